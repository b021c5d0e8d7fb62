/**
 * The keyboard map, as a pure function from (pending chord, key event) to a
 * command. The app shell feeds it window keydowns and runs what comes out.
 */
export type KeyCommand =
  | 'palette.toggle'
  | 'dialog.close'
  | 'search.focus'
  | 'buy.selected'
  | 'buy.byName'
  | 'go.catalog'
  | 'go.trades'
  | 'go.wallet'
  | 'go.alerts'
  | 'go.operations'
  | 'go.notifications'
  | 'go.settings'
  | 'selection.up'
  | 'selection.down'
  | 'selection.pageUp'
  | 'selection.pageDown'
  | 'selection.first'
  | 'selection.last'
  | 'selection.open'
  | 'firing.up'
  | 'firing.down'
  | 'firing.acknowledge'
  | 'firing.rearm'
  | 'autobuy.stop'
  | 'export.csv';

export interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  /** Focus is in a text field, select or contenteditable. */
  inEditable: boolean;
  /** Focus is on a button or link (Enter belongs to it). */
  onButton?: boolean;
  /** A modal dialog (buy, palette, editor) is open. */
  modalOpen: boolean;
  /** The catalog screen is showing (selection keys apply). */
  onCatalog: boolean;
  /** The screen showing, for the keys of one screen (alerts: firings; trades and wallet: export). */
  screen?: 'catalog' | 'trades' | 'wallet' | 'alerts' | 'operations' | 'notifications' | 'settings';
}

export interface KeyResult {
  command: KeyCommand | null;
  /** The chord prefix still waiting for its second key ("g"), or null. */
  pending: string | null;
}

export const CHORD_TIMEOUT_MS = 1500;

const GO_KEYS: Record<string, KeyCommand> = {
  c: 'go.catalog',
  t: 'go.trades',
  w: 'go.wallet',
  a: 'go.alerts',
  o: 'go.operations',
  n: 'go.notifications',
  s: 'go.settings',
};

const SELECTION_KEYS: Record<string, KeyCommand> = {
  ArrowUp: 'selection.up',
  ArrowDown: 'selection.down',
  PageUp: 'selection.pageUp',
  PageDown: 'selection.pageDown',
  Home: 'selection.first',
  End: 'selection.last',
  Enter: 'selection.open',
};

/** On the Alerts screen: walk the firings, acknowledge the selected one, re-arm its rule. */
const FIRING_KEYS: Record<string, KeyCommand> = {
  ArrowUp: 'firing.up',
  ArrowDown: 'firing.down',
  k: 'firing.up',
  j: 'firing.down',
  a: 'firing.acknowledge',
  r: 'firing.rearm',
};

const none = (pending: string | null = null): KeyResult => ({ command: null, pending });

export function interpretKey(pending: string | null, e: KeyInput): KeyResult {
  const mod = e.ctrlKey || e.metaKey;
  if (mod && !e.altKey && e.key.toLowerCase() === 'k') return { command: 'palette.toggle', pending: null };
  // Stop-all works from anywhere, a dialog or a text field included: it only ever stops.
  if (mod && e.shiftKey && !e.altKey && e.key.toLowerCase() === 'x') return { command: 'autobuy.stop', pending: null };
  if (e.key === 'Escape') return { command: 'dialog.close', pending: null };
  // Everything else is for the focused field or the open dialog.
  if (e.inEditable || e.modalOpen || mod || e.altKey) return none();

  if (pending === 'g') {
    const go = GO_KEYS[e.key.toLowerCase()];
    return go ? { command: go, pending: null } : none();
  }
  if (e.onCatalog) {
    const selection = SELECTION_KEYS[e.key];
    if (selection && !(e.key === 'Enter' && e.onButton)) return { command: selection, pending: null };
  }
  if (e.screen === 'alerts') {
    const firing = FIRING_KEYS[e.key];
    if (firing) return { command: firing, pending: null };
  }
  if ((e.screen === 'trades' || e.screen === 'wallet') && e.key === 'e')
    return { command: 'export.csv', pending: null };
  switch (e.key) {
    case 'g':
      return none('g');
    case '/':
      return { command: 'search.focus', pending: null };
    case 'b':
      return { command: 'buy.selected', pending: null };
    case 'n':
      return { command: 'buy.byName', pending: null };
    default:
      return none();
  }
}

/** Shortcut hints shown in the palette and tooltips. */
export const SHORTCUT_HINTS: Partial<Record<KeyCommand, string>> = {
  'palette.toggle': 'Ctrl K',
  'search.focus': '/',
  'buy.selected': 'B',
  'buy.byName': 'N',
  'go.catalog': 'G C',
  'go.trades': 'G T',
  'go.wallet': 'G W',
  'go.alerts': 'G A',
  'go.operations': 'G O',
  'go.notifications': 'G N',
  'go.settings': 'G S',
  'selection.open': 'Enter',
  'firing.up': '↑',
  'firing.down': '↓',
  'firing.acknowledge': 'A',
  'firing.rearm': 'R',
  'autobuy.stop': 'Ctrl Shift X',
  'export.csv': 'E',
};
