import type { NotificationPage, StoredNotification } from '../../../shared/ipc';
import { notificationMarkReadSchema, notificationQuerySchema, type NotificationMarkRead, type NotificationQuery } from '../../../shared/ipc/contract';

/**
 * The notification centre's repository in the account's store (table
 * `notifications`, migration 019). `LocalStore.notifications` implements it;
 * the engine's NotificationCentre writes through it, and readers of the
 * history (the away summary, the webhook forwarder) read through it.
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

/** The centre keeps this many notifications; older ones are dropped as new ones arrive. */
export const NOTIFICATIONS_KEPT = 20_000;

export { notificationMarkReadSchema, notificationQuerySchema };
export type { NotificationMarkRead, NotificationQuery };
