import type { Trade, TradeStatus } from '../../../shared/api';
import { ACTIVE_TRADE_STATUSES } from '../../../shared/api';
import type { LocalStore } from '../store';
import { toUtcIso } from '../../../shared/time';
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
export function tradeNews(
  changed: readonly Trade[],
  newStatuses: readonly { tradeId: string; status: TradeStatus }[],
  notifyStatuses: readonly string[],
  recipientLabels: ReadonlyMap<string, string> = new Map(),
): TradeNews[] {
  const byId = new Map(changed.map((trade) => [trade.tradeId, trade]));
  const news: TradeNews[] = [];
  for (const { tradeId, status } of newStatuses) {
    if (!notifyStatuses.includes(status)) continue;
    const trade = byId.get(tradeId);
    if (!trade) continue;
    const reason = trade.status === status && trade.failReason ? ` (${trade.failReason})` : '';
    const notification: Notification = {
      id: `trade:${tradeId}:${status}`,
      kind: 'trade',
      title: `${trade.market_hash_name}${trade.phase ? ` · ${trade.phase}` : ''}`,
      body: `Trade ${formatCents(trade.price)} to ${recipientWords(trade.tradeUrl, recipientLabels)} ${STATUS_WORDS[status]}${reason}`,
      target: { type: 'trade', tradeId },
      at: trade.updatedAt,
    };
    news.push({ status, notification });
  }
  return news;
}

/** A status a trade reached for the first time, and the notification it would have raised alone. */
export interface TradeNews {
  status: TradeStatus;
  notification: Notification;
}

/** More news than this from one catch-up (a reconcile, a poll, a back-fill run) is told in one summary. */
export const CATCH_UP_NOTIFY_MAX = 5;

const SUMMARY_WORDS: Record<TradeStatus, string> = {
  COMPLETED: 'delivered',
  REJECTED: 'declined',
  CANCELLED: 'cancelled',
  FAILED: 'failed',
  EXPIRED: 'expired',
  REVERSED: 'reversed',
  SENT: 'sent',
  CREATING: 'being created',
  PENDING: 'pending',
};

const count = (n: number) => n.toLocaleString('en-US');

/** What one catch-up tells: each notification when there are a handful, else one summary counting them by status. */
export function catchUpNotifications(news: readonly TradeNews[], at: string): Notification[] {
  if (news.length <= CATCH_UP_NOTIFY_MAX) return news.map((entry) => entry.notification);
  const byStatus = new Map<TradeStatus, number>();
  for (const { status } of news) byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  const parts = [...byStatus].sort((a, b) => b[1] - a[1]).map(([status, n]) => `${count(n)} ${SUMMARY_WORDS[status]}`);
  return [
    {
      id: `trades-caught-up:${at}`,
      kind: 'system',
      category: 'trade',
      severity: 'neutral',
      title: 'Trades caught up',
      body: `${count(news.length)} trade updates arrived together: ${parts.join(', ')}`,
      target: null,
      at,
    },
  ];
}

/**
 * The one notification for a history loaded into a new cache (it was never seen live, so no trade is told alone, and
 * no failed webhook delivery either): the trades created before `openedAt` the store holds; null when there are none.
 */
export async function historyLoadedNotification(
  store: Pick<LocalStore, 'queryTrades'>,
  openedAtMs: number,
  nowMs: number,
): Promise<Notification | null> {
  const [to, at] = [toUtcIso(openedAtMs), toUtcIso(nowMs)];
  const total = async (statuses: TradeStatus[], webhookFailed = false) =>
    (await store.queryTrades({ statuses, to, webhookFailed, limit: 1 })).total;
  const counts = {
    total: await total([]),
    active: await total([...ACTIVE_TRADE_STATUSES]),
    unsuccessful: await total(['FAILED', 'CANCELLED', 'REJECTED', 'EXPIRED']),
    reversed: await total(['REVERSED']),
    webhookFailed: await total([], true),
  };
  if (counts.total === 0) return null;
  const parts = [
    `${count(counts.unsuccessful)} failed, cancelled, declined or expired`,
    `${count(counts.active)} active`,
    ...(counts.reversed > 0 ? [`${count(counts.reversed)} reversed`] : []),
    ...(counts.webhookFailed > 0
      ? [`${count(counts.webhookFailed)} whose webhook delivery failed (Operations → Webhook health)`]
      : []),
  ];
  return {
    id: `trades-loaded:${at}`,
    kind: 'system',
    category: 'trade',
    severity: 'neutral',
    title: 'Trade history loaded',
    body: `${count(counts.total)} ${counts.total === 1 ? 'trade' : 'trades'} loaded; ${parts.join(', ')}`,
    target: null,
    at,
  };
}

/** Trade URL → the recipient's label, for trade notifications (which never show a trade URL). */
export class RecipientLabels {
  private labels: ReadonlyMap<string, string> = new Map();

  constructor(private readonly store: Pick<LocalStore, 'listRecipients'>) {}

  get current(): ReadonlyMap<string, string> {
    return this.labels;
  }

  /** Reads the labels again (after each use: a recipient renamed meanwhile shows under its new name). */
  async refresh(): Promise<void> {
    try {
      const recipients = await this.store.listRecipients();
      this.labels = new Map(recipients.map((recipient) => [recipient.tradeUrl, recipient.label]));
    } catch {
      // The store closed under the read (the session stopping): the labels held stay.
    }
  }
}

/** The new statuses of trades changed at or after `sinceMs` (older history is shown, not told). */
export function changedSince(
  stored: { changed: readonly Trade[]; newStatuses: readonly { tradeId: string; status: TradeStatus }[] },
  sinceMs: number,
): { tradeId: string; status: TradeStatus }[] {
  const recent = new Set(stored.changed.filter((t) => Date.parse(t.updatedAt) >= sinceMs).map((t) => t.tradeId));
  return stored.newStatuses.filter((change) => recent.has(change.tradeId));
}
