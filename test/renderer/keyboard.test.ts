import { describe, expect, it } from 'vitest';
import { interpretKey, type KeyInput } from '../../src/renderer/src/lib/keyboard';

const key = (k: string, extra: Partial<KeyInput> = {}): KeyInput => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  inEditable: false,
  modalOpen: false,
  onCatalog: true,
  ...extra,
});

describe('keyboard map', () => {
  it('opens the palette with Ctrl+K or Cmd+K, even while typing', () => {
    expect(interpretKey(null, key('k', { ctrlKey: true })).command).toBe('palette.toggle');
    expect(interpretKey(null, key('K', { metaKey: true, inEditable: true })).command).toBe('palette.toggle');
    expect(interpretKey(null, key('k', { ctrlKey: true, modalOpen: true })).command).toBe('palette.toggle');
  });

  it('stops all auto-buy with Ctrl+Shift+X or Cmd+Shift+X from anywhere, a dialog or a text field included', () => {
    expect(interpretKey(null, key('X', { ctrlKey: true, shiftKey: true })).command).toBe('autobuy.stop');
    expect(interpretKey(null, key('x', { metaKey: true, shiftKey: true, inEditable: true })).command).toBe(
      'autobuy.stop',
    );
    expect(interpretKey('g', key('X', { ctrlKey: true, shiftKey: true, modalOpen: true }))).toEqual({
      command: 'autobuy.stop',
      pending: null,
    });
    expect(interpretKey(null, key('x', { ctrlKey: true })).command).toBeNull();
    expect(interpretKey(null, key('X', { ctrlKey: true, shiftKey: true, altKey: true })).command).toBeNull();
  });

  it('Esc always closes', () => {
    expect(interpretKey(null, key('Escape', { modalOpen: true })).command).toBe('dialog.close');
    expect(interpretKey('g', key('Escape', { inEditable: true }))).toEqual({ command: 'dialog.close', pending: null });
  });

  it('single keys: / b n', () => {
    expect(interpretKey(null, key('/')).command).toBe('search.focus');
    expect(interpretKey(null, key('b')).command).toBe('buy.selected');
    expect(interpretKey(null, key('n', { onCatalog: false })).command).toBe('buy.byName');
  });

  it('g then a letter goes to a screen', () => {
    const first = interpretKey(null, key('g'));
    expect(first).toEqual({ command: null, pending: 'g' });
    expect(interpretKey('g', key('c')).command).toBe('go.catalog');
    expect(interpretKey('g', key('t')).command).toBe('go.trades');
    expect(interpretKey('g', key('w')).command).toBe('go.wallet');
    expect(interpretKey('g', key('a')).command).toBe('go.alerts');
    expect(interpretKey('g', key('s')).command).toBe('go.settings');
    expect(interpretKey('g', key('n')).command).toBe('go.notifications');
    // N alone is still buy by name.
    expect(interpretKey(null, key('n')).command).toBe('buy.byName');
    expect(interpretKey('g', key('x'))).toEqual({ command: null, pending: null });
  });

  it('ignores shortcuts while typing, in dialogs, or with modifiers', () => {
    expect(interpretKey(null, key('b', { inEditable: true })).command).toBeNull();
    expect(interpretKey(null, key('/', { modalOpen: true })).command).toBeNull();
    expect(interpretKey(null, key('b', { ctrlKey: true })).command).toBeNull();
    expect(interpretKey(null, key('g', { altKey: true })).pending).toBeNull();
    expect(interpretKey('g', key('c', { inEditable: true })).command).toBeNull();
  });

  it('moves the catalog selection only on the catalog', () => {
    expect(interpretKey(null, key('ArrowDown')).command).toBe('selection.down');
    expect(interpretKey(null, key('ArrowUp')).command).toBe('selection.up');
    expect(interpretKey(null, key('PageDown')).command).toBe('selection.pageDown');
    expect(interpretKey(null, key('Home')).command).toBe('selection.first');
    expect(interpretKey(null, key('End')).command).toBe('selection.last');
    expect(interpretKey(null, key('Enter')).command).toBe('selection.open');
    expect(interpretKey(null, key('ArrowDown', { onCatalog: false })).command).toBeNull();
    expect(interpretKey(null, key('Enter', { onButton: true })).command).toBeNull();
  });

  it('on Alerts: arrows or j/k walk the firings, A acknowledges, R re-arms', () => {
    const alerts = { onCatalog: false, screen: 'alerts' as const };
    expect(interpretKey(null, key('ArrowDown', alerts)).command).toBe('firing.down');
    expect(interpretKey(null, key('k', alerts)).command).toBe('firing.up');
    expect(interpretKey(null, key('a', alerts)).command).toBe('firing.acknowledge');
    expect(interpretKey(null, key('r', alerts)).command).toBe('firing.rearm');
    // g a still goes to Alerts; A elsewhere does nothing.
    expect(interpretKey('g', key('a', alerts)).command).toBe('go.alerts');
    expect(interpretKey(null, key('a', { onCatalog: false, screen: 'trades' })).command).toBeNull();
    expect(interpretKey(null, key('a', { ...alerts, inEditable: true })).command).toBeNull();
  });

  it('E exports the list on Trades and Wallet only', () => {
    expect(interpretKey(null, key('e', { onCatalog: false, screen: 'trades' })).command).toBe('export.csv');
    expect(interpretKey(null, key('e', { onCatalog: false, screen: 'wallet' })).command).toBe('export.csv');
    expect(interpretKey(null, key('e', { screen: 'catalog' })).command).toBeNull();
    expect(interpretKey(null, key('e', { onCatalog: false, screen: 'wallet', modalOpen: true })).command).toBeNull();
  });
});
