import type { Notification } from '../../../../shared/ipc/models';
import { groupBurst, notificationSeverity, type NotificationGroup } from '../../../../shared/notifications';

export type ToastTone = 'info' | 'success' | 'warn' | 'error' | 'alert' | 'neutral';

export interface Toast {
  id: string;
  tone: ToastTone;
  title: string;
  body: string;
  target: Notification['target'];
  at: string;
  /** A summary of many alerts: its action opens the Alerts screen. */
  opensAlerts?: boolean;
  /** A summary of a burst of other notifications: its action opens the notification centre. */
  opensNotifications?: boolean;
}

export interface NotesSlice {
  toasts: Toast[];
}

export const MAX_TOASTS = 4;
/** More notifications of one kind (alert firings, trades delivered) than this in one batch become one summary toast. */
export const MAX_ALERT_TOASTS = 2;

export const initialNotes: NotesSlice = { toasts: [] };

/** The severity's tone (delivered green, cancelled/failed/expired red, reversed amber, sent neutral); a neutral alert keeps the alert tone. */
export function toneOf(n: Notification): ToastTone {
  switch (notificationSeverity(n)) {
    case 'success':
      return 'success';
    case 'danger':
      return 'error';
    case 'warning':
      return 'warn';
    default:
      return n.kind === 'alert' ? 'alert' : 'neutral';
  }
}

export function toastFromNotification(n: Notification): Toast {
  return { id: n.id, tone: toneOf(n), title: n.title, body: n.body, target: n.target, at: n.at };
}

function summaryToast(group: NotificationGroup): Toast {
  const first = group.members[0] as Notification;
  const alert = first.kind === 'alert';
  return {
    id: `group-${first.id}`,
    tone: toneOf(first),
    title: group.title,
    body: alert ? `${first.body} and ${group.members.length - 1} more` : group.body,
    target: group.target,
    at: first.at,
    ...(alert ? { opensAlerts: true } : { opensNotifications: true }),
  };
}

/**
 * Toasts for a batch's notifications: a burst of one kind (more than
 * MAX_ALERT_TOASTS alerts, twelve deliveries) is one summary toast; alerts
 * come after the rest.
 */
export function toastsFromNotifications(list: Notification[]): Toast[] {
  const groups = groupBurst(list);
  const ordered = [
    ...groups.filter((g) => g.members[0]?.kind !== 'alert'),
    ...groups.filter((g) => g.members[0]?.kind === 'alert'),
  ];
  return ordered.flatMap((group) =>
    group.members.length > MAX_ALERT_TOASTS ? [summaryToast(group)] : group.members.map(toastFromNotification),
  );
}

/** Newest last; the oldest drop when more than MAX_TOASTS stack up; an id shows once. */
export function pushToasts(slice: NotesSlice, toasts: Toast[]): NotesSlice {
  if (toasts.length === 0) return slice;
  const seen = new Set(slice.toasts.map((t) => t.id));
  const fresh = toasts.filter((t) => {
    if (seen.has(t.id)) return false;
    seen.add(t.id);
    return true;
  });
  if (fresh.length === 0) return slice;
  // A repeat of a toast on screen (same tone and words: Refresh clicked twice) replaces it instead of stacking.
  const sameAs = (a: Toast, b: Toast) => a.tone === b.tone && a.title === b.title && a.body === b.body;
  const kept = slice.toasts.filter((shown) => !fresh.some((t) => sameAs(shown, t)));
  const unique = fresh.filter((t, i) => !fresh.slice(i + 1).some((later) => sameAs(t, later)));
  return { toasts: [...kept, ...unique].slice(-MAX_TOASTS) };
}

export function dismissToast(slice: NotesSlice, id: string): NotesSlice {
  return { toasts: slice.toasts.filter((t) => t.id !== id) };
}
