import type { NotificationCategory, NotificationPage, NotificationSeverity } from '../../../../shared/ipc/models';

/** The notification centre: the unread count (title, nav, tray) and the list the screen shows. */
export interface InboxFilters {
  categories: NotificationCategory[];
  severities: NotificationSeverity[];
  unreadOnly: boolean;
}

export interface InboxSlice {
  unread: number;
  filters: InboxFilters;
  limit: number;
  page: NotificationPage | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
}

export const INBOX_PAGE = 200;

export const initialInbox: InboxSlice = {
  unread: 0,
  filters: { categories: [], severities: [], unreadOnly: false },
  limit: INBOX_PAGE,
  page: null,
  status: 'idle',
  error: null,
};

/** `(3) Merchant Desk` while 3 notifications are unread. */
export function titleWithUnread(base: string, unread: number): string {
  if (!Number.isFinite(unread) || unread <= 0) return base;
  return `(${unread > 999 ? '999+' : Math.floor(unread)}) ${base}`;
}

export function toggled<T>(list: readonly T[], value: T): T[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}
