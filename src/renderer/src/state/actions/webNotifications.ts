import type { AppSettings, NavigateTarget, Notification } from '../../../../shared/ipc/models';
import {
  BurstGate,
  countedTitle,
  groupBurst,
  noticeTarget,
  tradeStatusOfNotification,
} from '../../../../shared/notifications';
import { getState } from '../store';
import { openTarget } from './navigation';

/**
 * Browser notifications (the web host; Electron's main raises native ones through
 * src/main/shell/notificationModel.ts, with the same grouping): the statuses and
 * alert settings chosen apply, a burst of one kind is one notification ("12 trades
 * delivered"), a batch of more than three kinds is one summary, and what comes within
 * the pacing window after one was shown waits and shows grouped.
 */

export const MAX_WEB_NOTIFICATIONS_PER_BATCH = 3;

export interface WebNotice {
  tag: string;
  title: string;
  body: string;
  target: NavigateTarget | null;
}

type NoticeSettings = Pick<AppSettings, 'notifyStatuses' | 'notifyAlerts' | 'alertsPaused'>;

function wanted(n: Notification, settings: NoticeSettings): boolean {
  if (n.kind === 'alert') return settings.notifyAlerts && !settings.alertsPaused;
  const status = tradeStatusOfNotification(n);
  return status === null || (settings.notifyStatuses as readonly string[]).includes(status);
}

/** `maxNotices`: more groups fold into one summary (1 for a list the pacing held back). */
export function planWebNotifications(
  list: readonly Notification[],
  settings: NoticeSettings | null,
  maxNotices = MAX_WEB_NOTIFICATIONS_PER_BATCH,
): WebNotice[] {
  const groups = groupBurst(settings ? list.filter((n) => wanted(n, settings)) : list);
  if (groups.length <= maxNotices) {
    return groups.map((group) => ({
      tag: group.members.length === 1 ? group.id : `group:${group.id}`,
      title: group.title,
      body: group.body,
      target: noticeTarget(group.members),
    }));
  }
  const all = groups.flatMap((group) => group.members);
  return [
    {
      tag: `summary:${all[0]?.id ?? ''}`,
      title: 'Merchant Desk',
      body: groups.map((group) => countedTitle(group.members[0] as Notification, group.members.length)).join(', '),
      target: noticeTarget(all),
    },
  ];
}

/** Paced across batches like the desktop's (shared/notifications.ts BurstGate); the settings are read when they show. */
const gate = new BurstGate<Notification>((list, paced) =>
  show(planWebNotifications(list, getState().settings.settings, paced ? 1 : undefined)),
);

export function raiseWebNotifications(list: readonly Notification[]): void {
  if (typeof window === 'undefined' || !('Notification' in window) || window.Notification.permission !== 'granted')
    return;
  gate.offer(list);
}

/** Settings → "Send a test notification" in a browser: asks for permission first if need be (a click is a gesture). */
export async function showWebTestNotification(): Promise<{ shown: boolean; detail: string }> {
  if (typeof window === 'undefined' || !('Notification' in window))
    return { shown: false, detail: 'This browser cannot show desktop notifications; in-app toasts still appear.' };
  const permission =
    window.Notification.permission === 'default'
      ? await window.Notification.requestPermission()
      : window.Notification.permission;
  if (permission !== 'granted')
    return {
      shown: false,
      detail: 'Notifications are blocked for this page: allow them in the browser’s site settings, then try again.',
    };
  try {
    const note = new window.Notification('Merchant Desk test notification', {
      body: 'Notifications from Merchant Desk reach this desktop.',
      tag: 'test-notification',
    });
    note.onclick = () => {
      window.focus();
      note.close();
    };
    return { shown: true, detail: 'Sent by the browser.' };
  } catch {
    return { shown: false, detail: 'This browser shows notifications only from an installed web app.' };
  }
}

function show(notices: WebNotice[]): void {
  for (const notice of notices) {
    try {
      const note = new window.Notification(notice.title, { body: notice.body, tag: notice.tag });
      note.onclick = () => {
        window.focus();
        openTarget(notice.target);
        note.close();
      };
    } catch {
      // Some browsers only allow notifications from a service worker; the in-app toast remains.
    }
  }
}
