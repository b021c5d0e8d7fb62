import type { FeedFrame, Trade, TradeHistoryQuery } from '../../../../shared/api';
import { HISTORY_MAX_LIMIT, isActiveStatus } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import type { TradeSource } from '../../store/types';
import { tradeNotifications } from '../notifications';
import { Throttler } from './async';
import type { SessionContext } from './sessionContext';

type TradeUpdate = Omit<Extract<FeedFrame, { type: 'trade_updated' }>, 'type'>;

/**
 * The history back-fill's high-water mark: the fixed `to` of the last complete run. Each run pages
 * `Trades/History?from=<mark − overlap>&to=<now>`, so trades made while the app was closed for longer than
 * the 14-day `isActive` window are still found. No mark (a new cache): the whole history.
 */
export const HISTORY_MARK_META = 'trades_history_mark';
/** Each run re-reads this much before the mark: trades stamped by a server clock a little behind ours. */
const HISTORY_OVERLAP_MS = 10 * 60_000;
/** Trades/History?webhookStatus=failed is asked at most this often (the user's filter for failed webhooks). */
const WEBHOOK_FAILED_REFRESH_MS = 60_000;

/**
 * The account's trades: feed updates, the reconcile of what can still change, the history back-fill and the
 * failed-webhook refresh. Every write goes through `upsertTrades` or the store's update rule, and is announced with
 * one notification per status a trade reaches for the first time.
 */
export class TradeSync {
  /** Trades the store holds as active (shown in the status bar). */
  activeTrades = 0;
  /** Trade URL → the recipient's label, for trade notifications (which never show a trade URL). */
  private recipientLabels: ReadonlyMap<string, string> = new Map();
  private readonly backfills = new Throttler();
  private readonly webhookRefreshes = new Throttler();
  private webhookFailedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly ctx: SessionContext,
    /** A trade changed on the server: the balance and ledger may have too. */
    private readonly walletTouched: () => void,
  ) {}

  /** What the cache holds, before anything goes over the network. */
  async load(): Promise<void> {
    this.activeTrades = (await this.ctx.store.activeTrades()).length;
    await this.loadRecipientLabels();
  }

  async onFrame(update: TradeUpdate): Promise<void> {
    const result = await this.ctx.store.applyTradeUpdate(update, 'feed');
    if (result.unknown) {
      await this.pageThrough({ tradeId: update.tradeId }, 'feed');
      return;
    }
    const newStatuses = result.newStatus ? [{ tradeId: result.trade.tradeId, status: result.newStatus }] : [];
    if (result.changed) {
      this.ctx.hooks.onTradesStored?.([result.trade], newStatuses);
      this.announce([result.trade], newStatuses);
    }
    // A frame carries no timestamps: a status that sets completedAt, endProtection,
    // cancelledAt or rollbackAt is worth the one request for the full record.
    if (result.newStatus && !isActiveStatus(result.newStatus))
      await this.pageThrough({ tradeId: update.tradeId }, 'feed');
    this.walletTouched();
  }

  async upsertTrades(trades: Trade[], source: TradeSource): Promise<void> {
    if (trades.length === 0) return;
    const result = await this.ctx.store.upsertTrades(trades, source);
    this.ctx.hooks.onTradesStored?.(result.changed, result.newStatuses);
    // Back-filled history from before the account was opened is old news: shown, not notified. A trade changed
    // since then is news however it arrives (a back-fill can store it before the feed or a reconcile does).
    let news = result.newStatuses;
    if (source === 'backfill') {
      const recent = new Set(
        result.changed.filter((t) => Date.parse(t.updatedAt) >= this.ctx.openedAt).map((t) => t.tradeId),
      );
      news = news.filter((change) => recent.has(change.tradeId));
    }
    this.announce(result.changed, news);
  }

  /** Every trade created in the last 14 days, and the final state of each one that was active here and left it. */
  async reconcile(source: 'poll' | 'reconcile'): Promise<void> {
    const client = this.ctx.api?.client;
    if (!client) return;
    const active = await client.tradeHistory({ isActive: true }, { signal: this.ctx.signal, bulk: true });
    await this.upsertTrades(active.trades, source);
    const inWindow = new Set(active.trades.map((trade) => trade.tradeId));
    for (const trade of await this.ctx.store.activeTrades()) {
      if (!inWindow.has(trade.tradeId)) await this.pageThrough({ tradeId: trade.tradeId }, 'reconcile');
    }
  }

  /**
   * Pages the history from the high-water mark to now (the whole history on a new cache): on start, after
   * every feed (re)connect and by the recovery. Single flight.
   */
  backfill(): Promise<void> {
    if (!this.ctx.api) return Promise.resolve();
    return this.backfills.join(() => this.runBackfill());
  }

  /** The back-fill under way, if any (the start-up's catch-up waits for it). */
  backfillSettled(): Promise<void> {
    return this.backfills.join(async () => {});
  }

  /** A failed delivery sends no frame: the user's filter for failed webhooks asks the server, at most once a minute. */
  refreshWebhookFailed(): Promise<void> {
    const now = this.ctx.timers.clock.now();
    if (!this.webhookRefreshes.busy) {
      if (!this.ctx.api || now - this.webhookFailedAt < WEBHOOK_FAILED_REFRESH_MS) return Promise.resolve();
      this.webhookFailedAt = now;
    }
    return this.webhookRefreshes.join(() =>
      this.pageThrough({ webhookStatus: 'failed' }, 'reconcile').catch((error: unknown) =>
        this.ctx.report('failed webhooks', error),
      ),
    );
  }

  private async runBackfill(): Promise<void> {
    const { store, progress, timers } = this.ctx;
    try {
      const mark = await store.getMeta(HISTORY_MARK_META);
      const markMs = typeof mark === 'string' ? Date.parse(mark) : Number.NaN;
      // A fixed `to`: trades created while we page do not shift the pages; the next run starts from it.
      const now = timers.clock.now();
      const to = toUtcIso(now);
      const from = Number.isNaN(markMs) ? null : toUtcIso(Math.min(markMs, now) - HISTORY_OVERLAP_MS);
      await this.pageThrough({ ...(from ? { from } : {}), to }, 'backfill', (done, total, page) =>
        progress.set('history-backfill', {
          done,
          total,
          phase: total === null ? `page ${page}` : `page ${page} of ${total}`,
        }),
      );
      await store.setMeta(HISTORY_MARK_META, to);
    } catch (error) {
      this.ctx.report('history back-fill', error);
    } finally {
      progress.clear('history-backfill');
    }
  }

  /** Every page of a history query, each stored as it comes; `progress` hears pages done of the total, and the page under way. */
  private async pageThrough(
    query: Omit<TradeHistoryQuery, 'limit' | 'page'>,
    source: TradeSource,
    progress?: (done: number, total: number | null, page: number) => void,
  ): Promise<void> {
    const client = this.ctx.api?.client;
    if (!client) return;
    let fetched = 0;
    let pages: number | null = null;
    for (let page = 1; ; page++) {
      progress?.(page - 1, pages, page);
      // Only a trade a frame named is awaited; the rest is background work.
      const answer = await client.tradeHistory(
        { ...query, limit: HISTORY_MAX_LIMIT, page },
        { signal: this.ctx.signal, bulk: source !== 'feed' },
      );
      await this.upsertTrades(answer.trades, source);
      fetched += answer.trades.length;
      pages = Math.max(1, Math.ceil(answer.total / HISTORY_MAX_LIMIT));
      progress?.(page, pages, page);
      if (answer.trades.length === 0 || fetched >= answer.total) return;
    }
  }

  /** Announces changed trades, once-per-status notifications and the active count. */
  private announce(changed: Trade[], newStatuses: { tradeId: string; status: Trade['status'] }[]): void {
    if (changed.length === 0) return;
    const notifications = tradeNotifications(
      changed,
      newStatuses,
      this.ctx.hooks.notifyStatuses(),
      this.recipientLabels,
    );
    // Read again for the next announcement: a recipient renamed meanwhile shows under its new name.
    void this.loadRecipientLabels();
    this.ctx.events.push({ trades: changed, ...(notifications.length > 0 ? { notifications } : {}) });
    void this.ctx.store
      .activeTrades()
      .then((active) => {
        this.activeTrades = active.length;
        this.ctx.events.push({ activeTrades: this.activeTrades });
      })
      // The store closes under a pending read when the session stops: not an unhandled rejection.
      .catch((error: unknown) => this.ctx.report('counting active trades', error));
  }

  private async loadRecipientLabels(): Promise<void> {
    try {
      const recipients = await this.ctx.store.listRecipients();
      this.recipientLabels = new Map(recipients.map((recipient) => [recipient.tradeUrl, recipient.label]));
    } catch {
      // The store closed under the read (the session stopping): the labels held stay.
    }
  }
}
