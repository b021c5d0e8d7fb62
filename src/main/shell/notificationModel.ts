import type { AppSettings, Notification, NotificationSeverity } from '../../shared/ipc';
import type { NavigateTarget } from '../../shared/ipc';
import {
  countedTitle,
  groupBurst,
  noticeTarget,
  notificationSeverity,
  tradeStatusOfNotification,
  type NotificationGroup,
} from '../../shared/notifications';

/**
 * Which engine notifications become desktop notifications, and what clicking
 * one opens. The engine already applies `notifyStatuses` and the alert settings
 * when it raises a notification; this is the shell's own, last check against
 * the settings at display time (a batch can be in flight while they change) and
 * grouping, so that a burst (a reconnect that settles twelve trades at once)
 * shows "12 trades delivered" once instead of twelve notifications, and a
 * batch of more kinds than the cap shows one summary.
 */

/** More than this many groups in one batch are folded into one summary notification. */
export const MAX_DESKTOP_NOTIFICATIONS_PER_BATCH = 3;

export type NotificationTarget = NavigateTarget | null;

export interface DesktopNotice {
  /** The engine notification's id, `group:<first id>` for a grouped burst, `summary:<first id>` for a folded batch. */
  id: string;
  title: string;
  body: string;
  /** What clicking it opens (a trade, an item, Trades for several trades); null: just show the window. */
  target: NotificationTarget;
  /** Trade failures and alerts ask for attention ("critical" urgency on Linux). */
  urgent: boolean;
  /** The same severity the toasts and the notification centre show (absent: the shell's own notices). */
  severity?: NotificationSeverity;
}

export type NotificationSettings = Pick<AppSettings, 'notifyStatuses' | 'notifyAlerts' | 'alertsPaused'>;

/** `trade:<tradeId>:<STATUS>` (the engine's id for trade notifications) → the status. */
export function tradeStatusOf(notification: Notification): string | null {
  return tradeStatusOfNotification(notification);
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

function isUrgent(notification: Notification): boolean {
  return (
    notification.kind === 'alert' ||
    notificationSeverity(notification) === 'danger' ||
    notificationSeverity(notification) === 'warning'
  );
}

function clipNotice(notice: DesktopNotice): DesktopNotice {
  return { ...notice, title: clip(notice.title, 120), body: clip(notice.body, 300) };
}

function toNotice(group: NotificationGroup): DesktopNotice {
  return {
    id: group.members.length === 1 ? group.id : `group:${group.id}`,
    title: clip(group.title, 120),
    body: clip(group.body, 300),
    target: noticeTarget(group.members),
    urgent: group.members.some(isUrgent),
    severity: group.severity,
  };
}

const SEVERITY_RANK: Record<NotificationSeverity, number> = { danger: 3, warning: 2, success: 1, neutral: 0 };

function summaryOf(groups: readonly NotificationGroup[]): DesktopNotice {
  const all = groups.flatMap((group) => group.members);
  const worst = groups.reduce((a, b) => (SEVERITY_RANK[b.severity] > SEVERITY_RANK[a.severity] ? b : a));
  return {
    id: `summary:${all[0]?.id ?? ''}`,
    title: APP_TITLE,
    body: `${groups.map((group) => countedTitle(group.members[0] as Notification, group.members.length)).join(', ')}. Open Merchant Desk to see them.`,
    target: noticeTarget(all),
    urgent: all.some(isUrgent),
    severity: worst.severity,
  };
}

const APP_TITLE = 'Merchant Desk';

/** The desktop notifications to show for one event batch's `notifications`. */
export function planDesktopNotifications(
  notifications: readonly Notification[] | undefined,
  settings: NotificationSettings,
  /** More groups than this fold into one summary (1 for a list the pacing held back). */
  maxNotices = MAX_DESKTOP_NOTIFICATIONS_PER_BATCH,
): DesktopNotice[] {
  const groups = groupBurst((notifications ?? []).filter((n) => wantsDesktop(n, settings)));
  if (groups.length === 0) return [];
  if (groups.length <= maxNotices) return groups.map(toNotice);
  return [clipNotice(summaryOf(groups))];
}

/** Settings → "Send a test notification": shown at once, whatever the notification settings; a click shows the window. */
export function testNotice(): DesktopNotice {
  return {
    id: 'test-notification',
    title: 'Merchant Desk test notification',
    body: 'Notifications from Merchant Desk reach this desktop.',
    target: null,
    urgent: false,
  };
}

/**
 * What a click does: always bring the window up; when the notice has a target,
 * tell the renderer to open it (an event batch with `navigate`).
 */
export function clickAction(notice: Pick<DesktopNotice, 'target'>): {
  showWindow: true;
  navigate: NonNullable<NotificationTarget> | null;
} {
  return { showWindow: true, navigate: notice.target ?? null };
}
