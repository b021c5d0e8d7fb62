import type { NotificationMarkRead } from '../../../../shared/ipc/contract';
import { debounced } from '../../lib/debounce';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { INBOX_PAGE, type InboxFilters } from '../slices/inbox';
import { readWithBatches } from '../batchesSince';
import { getState, update } from '../store';
import { toast } from './toast';

/** Reads the notification centre's list for the filters on screen. */
export async function loadNotifications(): Promise<void> {
  const { filters, limit } = getState().inbox;
  const key = JSON.stringify({ filters, limit });
  update('inbox', (s) => ({ ...s, status: 'loading', error: null }));
  try {
    const { answer: page, since } = await readWithBatches(() =>
      unwrap(api().notifications.list({ ...filters, limit })),
    );
    // A count that came in a batch while the list was read may be newer than the list's.
    const counted = since.findLast((batch) => batch.unreadNotifications !== undefined)?.unreadNotifications;
    update('inbox', (s) =>
      JSON.stringify({ filters: s.filters, limit: s.limit }) !== key
        ? s
        : { ...s, page, unread: counted ?? page.unread, status: 'ready' },
    );
  } catch (error) {
    update('inbox', (s) =>
      JSON.stringify({ filters: s.filters, limit: s.limit }) !== key
        ? s
        : { ...s, status: 'error', error: errorMessage(error) },
    );
  }
}

export const scheduleNotificationsReload = debounced(() => void loadNotifications(), 300);

export function setNotificationFilters(patch: Partial<InboxFilters>): void {
  update('inbox', (s) => ({ ...s, filters: { ...s.filters, ...patch }, limit: INBOX_PAGE }));
  void loadNotifications();
}

export function showMoreNotifications(): void {
  update('inbox', (s) => ({ ...s, limit: s.limit + INBOX_PAGE }));
  void loadNotifications();
}

async function markRead(input: NotificationMarkRead, what: string): Promise<void> {
  try {
    const result = await unwrap(api().notifications.markRead(input));
    update('inbox', (s) => ({ ...s, unread: result.unread }));
    await loadNotifications();
  } catch (error) {
    toast('error', `Could not mark ${what} read`, errorMessage(error));
  }
}

export function markNotificationsRead(ids: string[]): Promise<void> {
  return ids.length === 0
    ? Promise.resolve()
    : markRead({ ids: ids.slice(0, 1000) }, ids.length === 1 ? 'the notification' : 'the notifications');
}

export function markAllNotificationsRead(): Promise<void> {
  return markRead({ all: true }, 'all notifications');
}
