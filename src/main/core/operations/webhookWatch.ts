/**
 * Tells the merchant the first time a delivery of theirs fails: one notification per run of failures (until a trade
 * created later shows a delivered update), never one per trade. No frame carries `webhookStatus`: the watch asks the
 * server for the failed deliveries once a minute while the account is live (Trades/History?webhookStatus=failed,
 * throttled by the trade sync) and reads every trade write as it returns its rows.
 */
import type { Trade } from '../../../shared/api';
import type { Notification } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import type { LocalStore } from '../store';

/** The status time of the failure last told (the run of failures it began). */
export const NOTIFIED_META = 'operations.webhookFailureNotified';
/** A failure older than this when it is first seen (a new cache's history) is shown in the view, not told. */
const NEWS_WINDOW_MS = 24 * 3600_000;
export const WEBHOOK_REFRESH_MS = 60_000;

export class WebhookWatch {
  private lastDeliveredCreatedAt = '';
  private notifiedSince: string | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly store: LocalStore,
    private readonly notify: (notification: Notification) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** What the cache already knows: before the session writes anything. */
  async load(): Promise<void> {
    this.lastDeliveredCreatedAt = (await this.store.webhookLastDeliveredCreatedAt()) ?? '';
    const notified = await this.store.getMeta(NOTIFIED_META);
    this.notifiedSince = typeof notified === 'string' ? notified : null;
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

  /** Trades as a write returned them. */
  onTradesStored(changed: readonly Trade[]): void {
    for (const trade of changed) {
      if (trade.webhookStatus === 'sent' && trade.createdAt > this.lastDeliveredCreatedAt)
        this.lastDeliveredCreatedAt = trade.createdAt;
    }
    const newsFrom = toUtcIso(this.now() - NEWS_WINDOW_MS);
    const failing = changed
      .filter(
        (t) => t.webhookStatus === 'failed' && t.updatedAt > this.lastDeliveredCreatedAt && t.updatedAt >= newsFrom,
      )
      .sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : 0));
    const first = failing[0];
    if (!first) return;
    // This run of failures was told already (nothing was delivered since).
    if (this.notifiedSince !== null && this.notifiedSince > this.lastDeliveredCreatedAt) return;
    this.notifiedSince = first.updatedAt;
    void this.store.setMeta(NOTIFIED_META, first.updatedAt).catch(() => {});
    this.notify(failureNotification(first, failing.length, toUtcIso(this.now())));
  }
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
