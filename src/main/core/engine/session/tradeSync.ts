import type { Trade, TradeStatus } from '../../../../shared/api';
import { ACTIVE_TRADES_WINDOW_MS, isActiveStatus } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import type { TradeSource, TradeUpsertResult } from '../../store/types';
import { catchUpNotifications, changedSince, RecipientLabels, type TradeNews, tradeNews } from '../notifications';
import { Throttler } from '../../async';
import { HISTORY_OVERLAP_MS, type TradeWriter } from './historyFill';
import { TradeLookups, type TradeUpdate } from './tradeLookups';
import { failedDeliveryPages, reconcilePages } from './tradePages';
import type { SessionContext } from './sessionContext';
/** Trades/History?webhookStatus=failed (the user's filter for failed webhooks) is asked at most this often. */
const WEBHOOK_FAILED_REFRESH_MS = 60_000;
/** The newest failures held that a refresh checks against the server's list, and how many of them it reads again. */
const HELD_FAILURES_CHECKED = 500;
const HELD_FAILURES_READ = 20;
/** How often the refresh reads the failures older than the window too (each costs a page per 500 of them). */
const FAILED_FULL_READ_MS = 60 * 60_000;

/**
 * The account's trades: feed updates, the reconcile and the failed-webhook refresh (the back-fill stores through it). Each
 * status a trade reaches for the first time is told: a frame's at once, a catch-up's at its end (one summary past a
 * handful); history never seen live (a new cache's, or from before the account was opened) is not told.
 */
export class TradeSync implements TradeWriter {
  /** Trades the store holds as active (shown in the status bar). */
  activeTrades = 0;
  private readonly recipientLabels: RecipientLabels;
  private readonly webhookRefreshes = new Throttler();
  private webhookFailedAt = Number.NEGATIVE_INFINITY;
  private failedReadInFullAt = Number.NEGATIVE_INFINITY;
  private readonly lookups: TradeLookups;
  /** When the last reconcile looked for reversals (ISO): a poll reads the ledger's rollbacks since then. */
  private reversalsLookedAt: string | null = null;

  constructor(
    private readonly ctx: SessionContext,
    /** A trade changed on the server: the balance and ledger may have too. */
    private readonly walletTouched: () => void,
  ) {
    this.recipientLabels = new RecipientLabels(ctx.store);
    this.lookups = new TradeLookups(
      ctx,
      async (trades) => {
        await this.upsertTrades(trades, 'feed');
        if (trades.length > 0) this.walletTouched();
      },
      (update) => this.apply(update, false),
    );
  }

  /** What the cache holds, before anything goes over the network. */
  async load(): Promise<void> {
    this.activeTrades = (await this.ctx.store.activeTrades()).length;
    await this.recipientLabels.refresh();
  }

  onFrame(update: TradeUpdate): Promise<void> {
    return this.apply(update, true);
  }

  /** A frame's status, shown at once for a held trade; a trade not held (or a final status's record) is read soon. */
  private async apply(update: TradeUpdate, lookUp: boolean): Promise<void> {
    const result = await this.ctx.store.applyTradeUpdate(update, 'feed');
    if (result.unknown) {
      if (lookUp) this.lookups.unknownFrame(update);
      else this.ctx.hooks.log(`trade ${update.tradeId}: named by the feed, not found on the server`);
      return;
    }
    const newStatuses = result.newStatus ? [{ tradeId: result.trade.tradeId, status: result.newStatus }] : [];
    if (result.changed) {
      // A frame carries no webhookStatus: the stored one stays, and no delivery failed with this write.
      this.ctx.hooks.onTradesStored?.([result.trade], newStatuses, []);
      this.announce([result.trade], newStatuses, undefined);
    }
    // A frame carries no timestamps: the record of a final status (completedAt, endProtection) follows.
    if (result.newStatus && !isActiveStatus(result.newStatus)) this.lookups.finalStatus(result.trade);
    this.walletTouched();
  }

  /**
   * Stores trades (and `meta` in the same transaction); their news goes to `news` when one catch-up collects it,
   * else is told at once.
   */
  async upsertTrades(
    trades: Trade[],
    source: TradeSource,
    news?: TradeNews[],
    meta?: Record<string, unknown>,
  ): Promise<void> {
    if (trades.length === 0 && !meta) return;
    this.stored(await this.ctx.store.upsertTrades(trades, source, meta), source, news);
  }

  /** The trade window a new cache streamed into the store: its recent changes told, the pages shown re-queried. */
  windowStored(recent: TradeUpsertResult, news: TradeNews[]): void {
    this.stored(recent, 'backfill', news);
    this.ctx.events.push({ tradesInvalidated: true });
    this.countActive();
  }

  private stored(result: TradeUpsertResult, source: TradeSource, news?: TradeNews[]): void {
    this.ctx.hooks.onTradesStored?.(result.changed, result.newStatuses, result.newlyFailed);
    // A catch-up's changes from before the account was opened are old news (the away summary counts them); a trade
    // changed since then is news however it arrives (a back-fill can store it before the feed or a reconcile does).
    const newStatuses = source === 'feed' ? result.newStatuses : changedSince(result, this.ctx.openedAt);
    this.announce(result.changed, newStatuses, news);
  }

  /**
   * What can still change (see reconcilePages), never the whole 14-day window. The window's reversals are read at
   * each connect and recovery; a poll reads only the ledger's rollbacks since the last look (less an overlap for the
   * server's clock), so its cost never grows with the history.
   */
  async reconcile(source: 'poll' | 'reconcile'): Promise<void> {
    const client = this.ctx.api?.client;
    if (!client) return;
    const { store, signal, timers } = this.ctx;
    const now = timers.clock.now();
    const looked = this.reversalsLookedAt;
    const since = source === 'poll' && looked ? toUtcIso(Date.parse(looked) - HISTORY_OVERLAP_MS) : null;
    const held = {
      active: () => store.activeTrades(),
      get: async (tradeId: string) => (await store.getTrade(tradeId))?.trade ?? null,
    };
    await this.catchingUp((news) =>
      reconcilePages(client, signal, now, held, since, (trades) => this.upsertTrades(trades, source, news)),
    );
    this.reversalsLookedAt = toUtcIso(now);
  }

  /** A failed delivery sends no frame: the user's filter for failed webhooks asks the server, at most once a minute. */
  refreshWebhookFailed(): Promise<void> {
    const now = this.ctx.timers.clock.now();
    if (!this.webhookRefreshes.busy) {
      if (!this.ctx.api || now - this.webhookFailedAt < WEBHOOK_FAILED_REFRESH_MS) return Promise.resolve();
      this.webhookFailedAt = now;
    }
    return this.webhookRefreshes.join(() =>
      this.catchingUp((news) => this.refreshFailed(news)).catch((error: unknown) =>
        this.ctx.report('failed webhooks', error),
      ),
    );
  }

  /**
   * The server's failed deliveries: those of the last 14 days each time, all of them first and every hour. A
   * delivery changes only with its trade's status, and a status changes within the window but for a late reversal.
   */
  private async refreshFailed(news: TradeNews[]): Promise<void> {
    const client = this.ctx.api?.client;
    if (!client) return;
    const now = this.ctx.timers.clock.now();
    const full = now - this.failedReadInFullAt >= FAILED_FULL_READ_MS;
    const from = full ? null : toUtcIso(now - ACTIVE_TRADES_WINDOW_MS);
    const held = await this.ctx.store.webhookNewestFailed(HELD_FAILURES_CHECKED);
    const options = { signal: this.ctx.signal, now, from, readMax: HELD_FAILURES_READ };
    await failedDeliveryPages(client, held, options, (trades) => this.upsertTrades(trades, 'reconcile', news));
    if (full) this.failedReadInFullAt = now;
  }

  /** One catch-up: the news it collects is told at its end, each notification for a handful, else one summary. */
  async catchingUp(work: (news: TradeNews[]) => Promise<void>): Promise<void> {
    const news: TradeNews[] = [];
    try {
      await work(news);
    } finally {
      if (news.length > 0) {
        this.ctx.events.push({ notifications: catchUpNotifications(news, toUtcIso(this.ctx.timers.clock.now())) });
      }
    }
  }

  /** Announces changed trades and the active count; their notifications go to `news` when a catch-up collects them. */
  private announce(
    changed: Trade[],
    newStatuses: { tradeId: string; status: TradeStatus }[],
    news: TradeNews[] | undefined,
  ): void {
    if (changed.length === 0) return;
    const found = tradeNews(changed, newStatuses, this.ctx.hooks.notifyStatuses(), this.recipientLabels.current);
    news?.push(...found);
    const notifications = news ? [] : found.map((entry) => entry.notification);
    void this.recipientLabels.refresh();
    this.ctx.events.push({ trades: changed, ...(notifications.length > 0 ? { notifications } : {}) });
    this.countActive();
  }

  private countActive(): void {
    void this.ctx.store
      .activeTrades()
      .then((active) => {
        this.activeTrades = active.length;
        this.ctx.events.push({ activeTrades: this.activeTrades });
      })
      // The store closes under a pending read when the session stops: not an unhandled rejection.
      .catch((error: unknown) => this.ctx.report('counting active trades', error));
  }
}
