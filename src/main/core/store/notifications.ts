import type { NotificationPage, StoredNotification } from '../../../shared/ipc';
import type { NotificationMarkRead, NotificationQuery } from '../../../shared/ipc/contract';

export { notificationMarkReadSchema, notificationQuerySchema } from '../../../shared/ipc/contract';

/**
 * The notification centre's store (table `notifications`), implemented by `LocalStore.notifications`: the
 * engine's NotificationCentre writes through it; the away summary and the webhook forwarder read through it.
 */
export interface NotificationRepository {
  /** Keeps notifications; idempotent by id (one already held is left as it is, read or not). */
  insert(list: StoredNotification[]): Promise<NotificationInsertResult>;
  /** Newest first, filtered by category, severity and unread. */
  list(query?: NotificationQuery): Promise<NotificationPage>;
  /** Marks the given ids read, or all unread ones at or before `through` (`all`). */
  markRead(input: NotificationMarkRead): Promise<{ marked: number; unread: number }>;
  unreadCount(): Promise<number>;
}

export interface NotificationInsertResult {
  /** The notifications that were new. */
  inserted: StoredNotification[];
  unread: number;
}
