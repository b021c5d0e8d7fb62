import type {
  AlertFiring,
  ConnectionStatus,
  EngineEventBatch,
  Notification,
  NotificationPage,
  StoredNotification,
} from '../../../shared/ipc';
import type { NotificationMarkRead, NotificationQuery } from '../../../shared/ipc/contract';
import { detailWithoutDelay } from '../../../shared/connectionDetail';
import { formatCents } from '../../../shared/money';
import { toUtcIso } from '../../../shared/time';
import { notificationCategory, notificationSeverity } from '../../../shared/notifications';
import type { EventBatcher } from '../events/batcher';
import type { LocalStore } from '../store';

/** The store's calls the centre uses. */
type NotificationStore = Pick<
  LocalStore,
  'insertNotifications' | 'listNotifications' | 'markNotificationsRead' | 'unreadNotificationCount'
>;

/**
 * The notification centre's engine side: every notification an event batch
 * carries is kept in the account's store (with its category and severity),
 * and the unread count follows in a later batch. It also raises the
 * notifications no other part raises: connection and maintenance changes
 * (seen in `connection`) and auto-buy outcomes (a firing's `autoBuy` set).
 * Those go out through the batcher like any other, so they are stored,
 * toasted and shown on the desktop the same way.
 */

type ConnectionClass = 'up' | 'maintenance' | 'down';

function connectionClass(status: ConnectionStatus): ConnectionClass | null {
  switch (status.state) {
    case 'connected':
      return 'up';
    case 'maintenance':
      return 'maintenance';
    case 'offline':
    case 'unauthorized':
      return 'down';
    default:
      // connecting, reconnecting, polling: on the way somewhere; the place it arrives at is announced.
      return null;
  }
}

const CONNECTION_TITLES: Record<ConnectionClass, string> = {
  up: 'Connected to the marketplace again',
  maintenance: 'Marketplace in maintenance',
  down: 'Marketplace connection lost',
};

/** `at`: when the engine announced the change (a status's `since` may be older than the one it replaced). */
export function connectionNotification(status: ConnectionStatus, klass: ConnectionClass, at: string): Notification {
  return {
    id: `connection:${status.state}:${status.since}`,
    kind: 'system',
    category: 'connection',
    severity: klass === 'up' ? 'success' : klass === 'maintenance' ? 'warning' : 'danger',
    title: status.state === 'unauthorized' ? 'The marketplace refused the API key' : CONNECTION_TITLES[klass],
    // Kept and shown later: "retrying in 30 s" would be false by then.
    body: detailWithoutDelay(status.detail),
    target: null,
    at,
  };
}

/** An auto-buy's answer (a buy placed, refused, or with no answer) as a notification; null while it has none. */
export function autoBuyNotification(firing: AlertFiring): Notification | null {
  const outcome = firing.autoBuy;
  if (!outcome || outcome.skipped || outcome.dryRun || (outcome.tradeId === null && outcome.error === null))
    return null;
  const item = firing.market_hash_name;
  const price = formatCents(firing.price);
  const bought = outcome.tradeId !== null;
  return {
    // A buy whose answer was lost is announced as failed, and again once its order id is found bought.
    id: `auto-buy:${firing.id}${bought ? ':placed' : ''}`,
    kind: 'alert',
    category: 'auto-buy',
    severity: bought ? 'neutral' : 'danger',
    title: bought ? `Auto-buy placed: ${item}` : `Auto-buy failed: ${item}`,
    body: bought
      ? `${firing.ruleName}: bought at ${price}; the trade follows in Trades`
      : `${firing.ruleName}: not bought at ${price} (${outcome.error ?? 'no answer'})`,
    target:
      bought && outcome.tradeId ? { type: 'trade', tradeId: outcome.tradeId } : { type: 'item', itemId: firing.itemId },
    at: toUtcIso(Date.now()),
  };
}

export function toStored(notification: Notification): StoredNotification {
  return {
    id: notification.id,
    kind: notification.kind,
    category: notificationCategory(notification),
    severity: notificationSeverity(notification),
    title: notification.title,
    body: notification.body,
    target: notification.target,
    at: notification.at,
    readAt: null,
  };
}

const EMPTY_PAGE: NotificationPage = { rows: [], total: 0, unread: 0 };

export class NotificationCentre {
  private lastClass: ConnectionClass | null = null;
  /** A firing is sent again whenever it changes: its auto-buy answer is announced once. */
  private readonly announcedAutoBuys = new Set<string>();
  private writes: Promise<void> = Promise.resolve();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly events: EventBatcher,
    /** The open account's notifications; null while none is open. */
    private readonly repository: () => NotificationStore | null,
    private readonly log: (line: string) => void,
  ) {
    this.unsubscribe = events.subscribe((batch) => this.onBatch(batch));
  }

  close(): void {
    this.unsubscribe();
  }

  list(query: NotificationQuery): Promise<NotificationPage> {
    return this.repository()?.listNotifications(query) ?? Promise.resolve(EMPTY_PAGE);
  }

  async markRead(input: NotificationMarkRead): Promise<{ marked: number; unread: number }> {
    const repository = this.repository();
    if (!repository) return { marked: 0, unread: 0 };
    const result = await repository.markNotificationsRead(input);
    this.events.push({ unreadNotifications: result.unread });
    return result;
  }

  async unreadCount(): Promise<number> {
    return (await this.repository()?.unreadNotificationCount()) ?? 0;
  }

  /** Stored notifications are written in arrival order, one call at a time. */
  whenWritten(): Promise<void> {
    return this.writes;
  }

  private onBatch(batch: EngineEventBatch): void {
    if (batch.accountChanged) this.lastClass = null;
    const raised: Notification[] = [];
    if (batch.connection) {
      const klass = connectionClass(batch.connection);
      // The first arrival after a start or a switch is news only when it is bad.
      if (klass !== null && klass !== this.lastClass && (this.lastClass !== null || klass !== 'up'))
        raised.push(connectionNotification(batch.connection, klass, batch.at));
      if (klass !== null) this.lastClass = klass;
    }
    for (const firing of batch.firings ?? []) {
      const notification = autoBuyNotification(firing);
      if (!notification || this.announcedAutoBuys.has(notification.id)) continue;
      if (this.announcedAutoBuys.size >= 10_000) this.announcedAutoBuys.clear();
      this.announcedAutoBuys.add(notification.id);
      raised.push(notification);
    }
    // Raised ones go out in the next batch and are stored when they pass through here.
    if (raised.length > 0) this.events.push({ notifications: raised });
    const list = batch.notifications;
    if (!list || list.length === 0) return;
    const repository = this.repository();
    if (!repository) return;
    this.writes = this.writes.then(async () => {
      try {
        const result = await repository.insertNotifications(list.map(toStored));
        if (result.inserted.length > 0) this.events.push({ unreadNotifications: result.unread });
      } catch (error) {
        this.log(`notifications: could not keep ${list.length} notification(s): ${(error as Error).message}`);
      }
    });
  }
}
