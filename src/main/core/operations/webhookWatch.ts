/**
 * Tells the merchant the first time a delivery of theirs fails: one notification per run of failures (until a trade
 * created later shows a delivered update), never one per trade. A new cache's history is not news: the failures in
 * it are counted in the history's one summary (historyLoadedNotification). No frame carries `webhookStatus`: the
 * watch asks the server for the failed deliveries once a minute while the account is live
 * (Trades/History?webhookStatus=failed, throttled by the trade sync) and reads every trade write as it returns its
 * rows. A failure is news only when a write makes it (the store names those trades): a trade keeps its newest
 * settled delivery's webhookStatus, so one held as failed that moves on (a frame, a read before its new delivery
 * settles) still shows the old failure, told or summed up already. Before it tells, it asks the server for the newest
 * delivered trade: a new cache stores what comes first (a page of reversals, the failed deliveries) before the
 * history that shows the endpoint worked since, and a failure that was followed by a delivery is history, not news.
 */
import type { Trade } from '../../../shared/api';
import type { Notification } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import type { MerchantApiClient } from '../api';
import type { LocalStore } from '../store';
import { HISTORY_MARK_META } from '../store/schema';

/** The status time of the failure last told (the run of failures it began). */
export const NOTIFIED_META = 'operations.webhookFailureNotified';
/** A failure older than this when it is first seen (a new cache's history) is shown in the view, not told. */
const NEWS_WINDOW_MS = 24 * 3600_000;
export const WEBHOOK_REFRESH_MS = 60_000;

export class WebhookWatch {
  private lastDeliveredCreatedAt = '';
  private notifiedSince: string | null = null;
  /**
   * A new cache's history: a failure of a trade created before the account was opened is summed up, not told. Its
   * status time is no guide: the record of a trade that moved on since shows its last settled delivery, perhaps an
   * older update's failure; a broken endpoint shows in the trades created since.
   */
  private historyBefore = '';
  private timer: ReturnType<typeof setInterval> | null = null;
  /** One judgement at a time, in the order the writes came. */
  private judging: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: LocalStore,
    private readonly notify: (notification: Notification) => void,
    /** The createdAt of the newest trade whose update the server delivered (null: none, or it cannot say). */
    private readonly newestDelivered: () => Promise<string | null>,
    /** When the account was opened (its trades changed since are news however they arrive). */
    private readonly openedAt: number,
    private readonly now: () => number = Date.now,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** What the cache already knows: before the session writes anything. */
  async load(): Promise<void> {
    this.lastDeliveredCreatedAt = (await this.store.webhookLastDeliveredCreatedAt()) ?? '';
    const notified = await this.store.getMeta(NOTIFIED_META);
    this.notifiedSince = typeof notified === 'string' ? notified : null;
    const historyLoaded = typeof (await this.store.getMeta(HISTORY_MARK_META)) === 'string';
    this.historyBefore = historyLoaded ? '' : toUtcIso(this.openedAt);
  }

  /** Asks for the failed deliveries every minute (the start-up's reconcile and back-fill bring the first answer). */
  start(refresh: () => Promise<void>): void {
    this.timer = setInterval(() => void refresh(), WEBHOOK_REFRESH_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Trades as a write returned them, with the ids of those it made failed (a trade held as failed and written
   * again, a new status over the old failure, is no new failure); a failure that may be news is judged after the
   * server's word.
   */
  onTradesStored(changed: readonly Trade[], newlyFailed: readonly string[]): void {
    for (const trade of changed) {
      if (trade.webhookStatus === 'sent' && trade.createdAt > this.lastDeliveredCreatedAt)
        this.lastDeliveredCreatedAt = trade.createdAt;
    }
    const dayAgo = toUtcIso(this.now() - NEWS_WINDOW_MS);
    const failed = new Set(newlyFailed);
    const failing = changed.filter(
      (t) => failed.has(t.tradeId) && t.updatedAt >= dayAgo && t.createdAt >= this.historyBefore,
    );
    if (this.news(failing).length === 0) return;
    this.judging = this.judging.then(() => this.judge(failing));
  }

  /** The failures after the newest delivery known, oldest first; none while this run of failures was told already. */
  private news(failing: readonly Trade[]): Trade[] {
    if (this.notifiedSince !== null && this.notifiedSince > this.lastDeliveredCreatedAt) return [];
    return failing
      .filter((t) => t.updatedAt > this.lastDeliveredCreatedAt)
      .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
  }

  private async judge(failing: readonly Trade[]): Promise<void> {
    const delivered = await this.newestDelivered().catch(() => null);
    if (delivered !== null && delivered > this.lastDeliveredCreatedAt) this.lastDeliveredCreatedAt = delivered;
    const news = this.news(failing);
    const first = news[0];
    if (!first) {
      this.log(`webhook watch: ${failing.length} failed deliveries, a later one delivered: not told`);
      return;
    }
    this.notifiedSince = first.updatedAt;
    await this.store.setMeta(NOTIFIED_META, first.updatedAt).catch(() => {});
    this.notify(failureNotification(first, news.length, toUtcIso(this.now())));
  }
}

/** The createdAt of the newest trade whose update was delivered: the API lists the most recent first. */
export async function newestDeliveredAt(client: MerchantApiClient): Promise<string | null> {
  const answer = await client.tradeHistory({ webhookStatus: 'sent', limit: 1 }, { slot: 'live' });
  return answer.trades[0]?.createdAt ?? null;
}

function failureNotification(first: Trade, count: number, at: string): Notification {
  const more = count > 1 ? ` (and ${count - 1} more)` : '';
  return {
    id: `webhook-failed:${first.updatedAt}:${first.tradeId}`,
    kind: 'system',
    category: 'connection',
    severity: 'danger',
    title: 'Webhook deliveries are failing',
    body:
      `The ${first.status} update of trade ${first.tradeId}${more} did not reach your webhook. The marketplace ` +
      'pauses deliveries after repeated failures: see Operations → Webhook health.',
    target: { type: 'trade', tradeId: first.tradeId },
    at,
  };
}
