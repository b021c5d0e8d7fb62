import { describe, expect, it } from 'vitest';
import { pushToasts, type Toast } from '../../src/renderer/src/state/slices/notes';

const toast = (id: string, title: string, body = '', tone: Toast['tone'] = 'info'): Toast => ({
  id,
  tone,
  title,
  body,
  target: null,
  at: '2026-03-01T10:00:00.000Z',
});

describe('toasts', () => {
  it('a repeat of a toast on screen replaces it instead of stacking (Refresh clicked three times)', () => {
    let slice = { toasts: [] as Toast[] };
    for (const id of ['a', 'b', 'c'])
      slice = pushToasts(slice, [toast(id, 'Catalog refresh started', 'Catalog sync requested')]);
    expect(slice.toasts.map((t) => t.id)).toEqual(['c']);
  });

  it('toasts that differ in tone, title or words all stay, in order', () => {
    let slice = { toasts: [] as Toast[] };
    slice = pushToasts(slice, [toast('a', 'Catalog refresh started', 'Catalog sync requested')]);
    slice = pushToasts(slice, [toast('b', 'Catalog refresh not started', 'A sync is already running', 'warn')]);
    slice = pushToasts(slice, [toast('c', 'Catalog refresh started', 'Catalog sync requested', 'warn')]);
    slice = pushToasts(slice, [toast('d', 'Bought AK-47', '$12.34'), toast('e', 'Bought AK-47', '$12.34')]);
    expect(slice.toasts.map((t) => t.id)).toEqual(['a', 'b', 'c', 'e']);
  });
});
