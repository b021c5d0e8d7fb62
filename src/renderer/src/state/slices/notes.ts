import type { Notification } from '../../../../shared/ipc/models';

export type ToastTone = 'info' | 'success' | 'warn' | 'error' | 'alert';

export interface Toast {
  id: string;
  tone: ToastTone;
  title: string;
  body: string;
  target: Notification['target'];
  at: string;
  /** A summary of many alerts: its action opens the Alerts screen. */
  opensAlerts?: boolean;
}

export interface NotesSlice {
  toasts: Toast[];
}

export const MAX_TOASTS = 4;
/** More alert firings than this in one batch become one summary toast. */
export const MAX_ALERT_TOASTS = 2;

export const initialNotes: NotesSlice = { toasts: [] };

export function toastFromNotification(n: Notification): Toast {
  return { id: n.id, tone: n.kind === 'alert' ? 'alert' : 'info', title: n.title, body: n.body, target: n.target, at: n.at };
}

/** Toasts for a batch's notifications; a flood of alert firings collapses into one summary. */
export function toastsFromNotifications(list: Notification[]): Toast[] {
  const alerts = list.filter((n) => n.kind === 'alert');
  const others = list.filter((n) => n.kind !== 'alert').map(toastFromNotification);
  if (alerts.length <= MAX_ALERT_TOASTS) return [...others, ...alerts.map(toastFromNotification)];
  const first = alerts[0] as Notification;
  const summary: Toast = {
    id: `alerts-${first.id}`,
    tone: 'alert',
    title: `${alerts.length} alerts fired`,
    body: `${first.body} and ${alerts.length - 1} more`,
    target: null,
    at: first.at,
    opensAlerts: true,
  };
  return [...others, summary];
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
