import type { Trade, TradeStatus } from '../../../shared/api';
import type { Notification } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { recipientWords } from '../../../shared/notifications';

const STATUS_WORDS: Record<TradeStatus, string> = {
  PENDING: 'is pending',
  CREATING: 'is being created',
  SENT: 'was sent — waiting for the recipient',
  COMPLETED: 'was delivered',
  CANCELLED: 'was cancelled',
  FAILED: 'failed',
  EXPIRED: 'expired',
  REVERSED: 'was reversed',
  REJECTED: 'was rejected',
};

/**
 * One notification per status a trade reaches for the first time, for the
 * statuses the user asked to hear about. The store decides "first time",
 * so duplicates and replays of the feed never notify twice. The recipient is
 * named by label or partner number: a trade URL's token is a secret.
 */
export function tradeNotifications(
  changed: readonly Trade[],
  newStatuses: readonly { tradeId: string; status: TradeStatus }[],
  notifyStatuses: readonly string[],
  recipientLabels: ReadonlyMap<string, string> = new Map(),
): Notification[] {
  const byId = new Map(changed.map((trade) => [trade.tradeId, trade]));
  const notifications: Notification[] = [];
  for (const { tradeId, status } of newStatuses) {
    if (!notifyStatuses.includes(status)) continue;
    const trade = byId.get(tradeId);
    if (!trade) continue;
    const reason = trade.status === status && trade.failReason ? ` (${trade.failReason})` : '';
    notifications.push({
      id: `trade:${tradeId}:${status}`,
      kind: 'trade',
      title: `${trade.market_hash_name}${trade.phase ? ` · ${trade.phase}` : ''}`,
      body: `Trade ${formatCents(trade.price)} to ${recipientWords(trade.tradeUrl, recipientLabels)} ${STATUS_WORDS[status]}${reason}`,
      target: { type: 'trade', tradeId },
      at: trade.updatedAt,
    });
  }
  return notifications;
}
