import type { AppSettings, Notification } from '../../shared/ipc';

/**
 * Which engine notifications become desktop notifications, and what clicking
 * one opens. The engine already applies `notifyStatuses` and the alert settings
 * when it raises a notification; this is the shell's own, last check against
 * the settings at display time (a batch can be in flight while they change) and
 * a cap so that a burst (a reconnect that settles twenty trades at once) shows
 * one summary instead of twenty toasts.
 */

/** More than this many in one batch are folded into one summary notification. */
export const MAX_DESKTOP_NOTIFICATIONS_PER_BATCH = 3;

export type NotificationTarget = Notification['target'];

export interface DesktopNotice {
  /** The engine notification's id, or `summary:<first id>` for a folded burst. */
  id: string;
  title: string;
  body: string;
  /** What clicking it opens; null: just show the window. */
  target: NotificationTarget;
  /** Trade failures and alerts ask for attention ("critical" urgency on Linux). */
  urgent: boolean;
}

export type NotificationSettings = Pick<AppSettings, 'notifyStatuses' | 'notifyAlerts' | 'alertsPaused'>;

const URGENT_TRADE_STATUSES = new Set(['FAILED', 'REVERSED', 'REJECTED', 'EXPIRED', 'CANCELLED']);

/** `trade:<tradeId>:<STATUS>` (the engine's id for trade notifications) → the status. */
export function tradeStatusOf(notification: Notification): string | null {
  if (notification.kind !== 'trade') return null;
  const match = /:([A-Z]+)$/.exec(notification.id);
  return match?.[1] ?? null;
}

/** Whether one engine notification may show on the desktop under these settings. */
export function wantsDesktop(notification: Notification, settings: NotificationSettings): boolean {
  switch (notification.kind) {
    case 'trade': {
      const status = tradeStatusOf(notification);
      // An id without a status is the engine's choice to notify: keep it.
      return status === null || (settings.notifyStatuses as readonly string[]).includes(status);
    }
    case 'alert':
      return settings.notifyAlerts && !settings.alertsPaused;
    case 'system':
      return true;
    default:
      return false;
  }
}

function clip(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  return clean.length <= max ? clean : `${clean.slice(0, max - 1)}…`;
}

function toNotice(notification: Notification): DesktopNotice {
  const status = tradeStatusOf(notification);
  return {
    id: notification.id,
    title: clip(notification.title, 120),
    body: clip(notification.body, 300),
    target: notification.target,
    urgent: notification.kind === 'alert' || (status !== null && URGENT_TRADE_STATUSES.has(status)),
  };
}

function summaryOf(list: readonly Notification[]): DesktopNotice {
  const trades = list.filter((n) => n.kind === 'trade').length;
  const alerts = list.filter((n) => n.kind === 'alert').length;
  const other = list.length - trades - alerts;
  const parts: string[] = [];
  if (trades > 0) parts.push(`${trades} trade update${trades === 1 ? '' : 's'}`);
  if (alerts > 0) parts.push(`${alerts} alert${alerts === 1 ? '' : 's'}`);
  if (other > 0) parts.push(`${other} other notice${other === 1 ? '' : 's'}`);
  const targets = new Set(list.map((n) => JSON.stringify(n.target)));
  return {
    id: `summary:${list[0]?.id ?? ''}`,
    title: 'Merchant Desk',
    body: `${parts.join(', ')}. Open Merchant Desk to see them.`,
    // Only one place to go when every notification points at the same thing.
    target: targets.size === 1 ? (list[0]?.target ?? null) : null,
    urgent: list.some((n) => toNotice(n).urgent),
  };
}

/** The desktop notifications to show for one event batch's `notifications`. */
export function planDesktopNotifications(
  notifications: readonly Notification[] | undefined,
  settings: NotificationSettings,
): DesktopNotice[] {
  const wanted = (notifications ?? []).filter((n) => wantsDesktop(n, settings));
  if (wanted.length <= MAX_DESKTOP_NOTIFICATIONS_PER_BATCH) return wanted.map(toNotice);
  return [summaryOf(wanted)];
}

/**
 * What a click does: always bring the window up; when the notice has a target,
 * tell the renderer to open it (an event batch with `navigate`).
 */
export function clickAction(notice: Pick<DesktopNotice, 'target'>): { showWindow: true; navigate: NonNullable<NotificationTarget> | null } {
  return { showWindow: true, navigate: notice.target ?? null };
}
