import type { ConnectionState } from '../../shared/ipc';

/**
 * What the tray shows, from the engine's state: tooltip, badge and menu. Plain
 * data; `src/main/tray.ts` turns it into a Tray tooltip and a Menu.
 */

export interface TrayState {
  activeTrades: number;
  connectionState: ConnectionState;
  alertsPaused: boolean;
  unacknowledgedFirings: number;
  /** Stop-all is on: no auto-buy request leaves. Absent: off. */
  autoBuyStopped?: boolean;
  /** Unread notifications in the notification centre. Absent: none. */
  unreadNotifications?: number;
}

export type TrayMenuItemId = 'open' | 'pause-alerts' | 'stop-auto-buy' | 'feed' | 'quit';

export type TrayMenuEntry =
  | { type?: 'normal'; id: TrayMenuItemId; label: string; enabled?: boolean }
  | { type: 'checkbox'; id: TrayMenuItemId; label: string; checked: boolean }
  | { type: 'separator' };

export interface TrayModel {
  tooltip: string;
  /**
   * For `app.setBadgeCount` (macOS dock, Unity-style Linux launchers): the number of
   * active trades, as the tooltip says (0 clears it). Unacknowledged alert firings stay
   * in the tooltip only.
   */
  badgeCount: number;
  menu: TrayMenuEntry[];
}

export const APP_NAME = 'Merchant Desk';

const FEED_WORDS: Record<ConnectionState, string> = {
  connecting: 'connecting',
  connected: 'connected',
  reconnecting: 'reconnecting',
  polling: 'polling (no live feed)',
  offline: 'offline',
  maintenance: 'marketplace maintenance',
  unauthorized: 'API key refused',
};

export function feedLabel(state: ConnectionState): string {
  return FEED_WORDS[state] ?? state;
}

function count(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function trayModel(state: TrayState): TrayModel {
  const active = count(state.activeTrades);
  const firings = count(state.unacknowledgedFirings);
  const parts = [
    active === 0 ? 'no active trades' : plural(active, 'active trade', 'active trades'),
    `feed ${feedLabel(state.connectionState)}`,
  ];
  if (firings > 0) parts.push(plural(firings, 'new alert', 'new alerts'));
  const unread = count(state.unreadNotifications ?? 0);
  if (unread > 0) parts.push(plural(unread, 'unread notification', 'unread notifications'));
  if (state.alertsPaused) parts.push('alerts paused');
  if (state.autoBuyStopped === true) parts.push('auto-buy stopped');
  return {
    tooltip: `${APP_NAME} — ${parts.join(' · ')}`,
    badgeCount: active,
    menu: [
      { id: 'open', label: unread > 0 ? `Open ${APP_NAME} (${unread} unread)` : `Open ${APP_NAME}` },
      {
        type: 'checkbox',
        id: 'pause-alerts',
        label: state.alertsPaused ? 'Resume alerts' : 'Pause alerts',
        checked: state.alertsPaused,
      },
      // Stop-all is one click from the tray; resuming is too, but says what it does.
      state.autoBuyStopped === true
        ? { id: 'stop-auto-buy', label: 'Resume auto-buy (stopped)' }
        : { id: 'stop-auto-buy', label: 'Stop all auto-buy' },
      { id: 'feed', label: `Feed: ${feedLabel(state.connectionState)}`, enabled: false },
      { type: 'separator' },
      { id: 'quit', label: 'Quit' },
    ],
  };
}

/** Folds an engine event batch into the tray state; returns the same object when nothing the tray shows changed. */
export function applyTrayBatch(
  state: TrayState,
  batch: {
    activeTrades?: number;
    connection?: { state: ConnectionState };
    unacknowledgedFirings?: number;
    unreadNotifications?: number;
  },
): TrayState {
  const next: TrayState = {
    ...state,
    ...(batch.activeTrades !== undefined ? { activeTrades: batch.activeTrades } : {}),
    ...(batch.connection !== undefined ? { connectionState: batch.connection.state } : {}),
    ...(batch.unacknowledgedFirings !== undefined ? { unacknowledgedFirings: batch.unacknowledgedFirings } : {}),
    ...(batch.unreadNotifications !== undefined ? { unreadNotifications: batch.unreadNotifications } : {}),
  };
  return sameTrayState(state, next) ? state : next;
}

type TrayBatch = Parameters<typeof applyTrayBatch>[1];

/**
 * The tray's state from an engine snapshot and the settings, with the batches that came while the snapshot was read
 * laid over it: they may be newer than its counts (read before them), and nothing is sent again until they change.
 */
export function trayStateFrom(
  snapshot: Required<Pick<TrayBatch, 'activeTrades' | 'connection' | 'unacknowledgedFirings'>> &
    Pick<TrayBatch, 'unreadNotifications'>,
  settings: { alertsPaused: boolean; autoBuyStopped?: boolean },
  batchesDuring: readonly TrayBatch[],
): TrayState {
  const read: TrayState = {
    activeTrades: snapshot.activeTrades,
    connectionState: snapshot.connection.state,
    alertsPaused: settings.alertsPaused,
    unacknowledgedFirings: snapshot.unacknowledgedFirings,
    autoBuyStopped: settings.autoBuyStopped === true,
    unreadNotifications: snapshot.unreadNotifications ?? 0,
  };
  return batchesDuring.reduce(applyTrayBatch, read);
}

export function sameTrayState(a: TrayState, b: TrayState): boolean {
  return (
    a.activeTrades === b.activeTrades &&
    a.connectionState === b.connectionState &&
    a.alertsPaused === b.alertsPaused &&
    a.unacknowledgedFirings === b.unacknowledgedFirings &&
    (a.unreadNotifications ?? 0) === (b.unreadNotifications ?? 0) &&
    (a.autoBuyStopped === true) === (b.autoBuyStopped === true)
  );
}
