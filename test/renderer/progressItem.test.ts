import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/renderer/src/app/StatusBar';
import type { ProgressStatus } from '../../src/shared/ipc/models';

const backfill = (etaSeconds: number | null): ProgressStatus => ({
  kind: 'history-backfill',
  done: 11,
  total: 280,
  phase: 'page 12 of 280',
  startedAt: '2026-11-29T08:00:00.000Z',
  etaSeconds,
});

describe('the status bar says how long background work has left', () => {
  it('shows the page and the time left, and gives a screen reader both in words', () => {
    const html = renderToStaticMarkup(createElement(Progress, { p: backfill(170) }));
    expect(html).toContain('page 12 of 280 · about 3 min left');
    expect(html).toContain('aria-valuetext="11 of 280, about 3 minutes left"');
  });

  it('says nothing of time while no pace is known', () => {
    const html = renderToStaticMarkup(createElement(Progress, { p: backfill(null) }));
    expect(html).toContain('>page 12 of 280<');
    expect(html).toContain('aria-valuetext="11 of 280"');
    expect(html).not.toContain('left');
  });
});
