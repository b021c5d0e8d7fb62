import type { FeedFrame, Trade, TradeHistoryQuery, TradeStatus } from '../../../../shared/api';
import { isActiveStatus } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import { PACE_WINDOW_MS, secondsLeft } from '../../../../shared/timeLeft';
import { HISTORY_FILL_META, HISTORY_MARK_META } from '../../store/schema';
import type { TradeSource } from '../../store/types';
import {
  catchUpNotifications,
  changedSince,
  historyLoadedNotification,
  RecipientLabels,
  type TradeNews,
  tradeNews,
} from '../notifications';
import { Throttler } from './async';
import { type HistoryFill, HISTORY_OVERLAP_MS, oldestReached, openFill, parseFill } from './historyFill';
import { pageTrades, reconcilePages } from './tradePages';
import type { SessionContext } from './sessionContext';

type TradeUpdate = Omit<Extract<FeedFrame, { type: 'trade_updated' }>, 'type'>;
/** Trades/History?webhookStatus=failed (the user's filter for failed webhooks) is asked at most this often. */
const WEBHOOK_FAILED_REFRESH_MS = 60_000;

/**
 * The account's trades: feed updates, the reconcile, the history back-fill and the failed-webhook refresh. Each
 * status a trade reaches for the first time is told: a frame's at once, a catch-up's at its end (one summary past a
 * handful); history never seen live (a new cache's, or from before the account was opened) is not told.
 */
export class TradeSync {
  /** Trades the store holds as active (shown in the status bar). */
  activeTrades = 0;
  private readonly recipientLabels: RecipientLabels;
  private readonly backfills = new Throttler();
  private readonly webhookRefreshes = new Throttler();
  private webhookFailedAt = Number.NEGATIVE_INFINITY;
  /** The cache holds the account's history (a back-fill completed once); a new cache's first one sums it up. */
  private historyLoaded = false;
  /** A back-fill was asked for while one runs: it closes the gap since it began, between two of its pages. */
  private gapWanted = false;

  constructor(
    private readonly ctx: SessionContext,
    /** A trade changed on the server: the balance and ledger may have too. */
    private readonly walletTouched: () => void,
  ) {
    this.recipientLabels = new RecipientLabels(ctx.store);
  }

  /** What the cache holds, before anything goes over the network. */
  async load(): Promise<void> {
    this.activeTrades = (await this.ctx.store.activeTrades()).length;
    this.historyLoaded = typeof (await this.ctx.store.getMeta(HISTORY_MARK_META)) === 'string';
    await this.recipientLabels.refresh();
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
      this.announce([result.trade], newStatuses, undefined);
    }
    // A frame carries no timestamps: a final status is worth the one request for the full record.
    if (result.newStatus && !isActiveStatus(result.newStatus))
      await this.pageThrough({ tradeId: update.tradeId }, 'feed');
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
    const result = await this.ctx.store.upsertTrades(trades, source, meta);
    this.ctx.hooks.onTradesStored?.(result.changed, result.newStatuses);
    // A catch-up's changes from before the account was opened are old news (the away summary counts them); a trade
    // changed since then is news however it arrives (a back-fill can store it before the feed or a reconcile does).
    const newStatuses = source === 'feed' ? result.newStatuses : changedSince(result, this.ctx.openedAt);
    this.announce(result.changed, newStatuses, news);
  }

  /** What can still change (see reconcilePages), never the whole 14-day window. */
  async reconcile(source: 'poll' | 'reconcile'): Promise<void> {
    const client = this.ctx.api?.client;
    if (!client) return;
    const { store, signal, timers } = this.ctx;
    const held = () => store.activeTrades();
    await this.catchingUp((news) =>
      reconcilePages(client, signal, timers.clock.now(), held, (trades) => this.upsertTrades(trades, source, news)),
    );
  }

  /**
   * Pages the history (see historyFill.ts): on start, after each feed connect, with each poll. A fill a stopped run
   * left goes on from where it was, after the gap since it began; else a new one pages from the high-water mark (the
   * whole history on a new cache). Single flight: asked while it runs, it closes the gap since it began between two
   * pages, so a fill of hours never holds back the trades made meanwhile.
   */
  backfill(): Promise<void> {
    if (!this.ctx.api) return Promise.resolve();
    if (this.backfills.busy) this.gapWanted = true;
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
      this.catchingUp((news) => this.pageThrough({ webhookStatus: 'failed' }, 'reconcile', news)).catch(
        (error: unknown) => this.ctx.report('failed webhooks', error),
      ),
    );
  }

  private async runBackfill(): Promise<void> {
    const { store, progress, timers } = this.ctx;
    try {
      this.gapWanted = false;
      let fill = parseFill(await store.getMeta(HISTORY_FILL_META));
      // A fill a stopped run left: the newest first, so the gap since it began, then the rest of it.
      if (fill) fill = await this.closeGap(fill);
      for (;;) {
        await this.pageFill(fill ?? openFill(await store.getMeta(HISTORY_MARK_META), timers.clock.now()));
        if (!this.gapWanted) break;
        // Asked again during its last page: the range since its top, from the mark it just moved.
        this.gapWanted = false;
        fill = null;
      }
      if (!this.historyLoaded) {
        this.historyLoaded = true;
        const loaded = await historyLoadedNotification(store, this.ctx.openedAt, timers.clock.now());
        if (loaded) this.ctx.events.push({ notifications: [loaded] });
      }
    } catch (error) {
      this.ctx.report('history back-fill', error);
    } finally {
      progress.clear('history-backfill');
    }
  }

  /**
   * Pages what is left of a fill, newest first, each page stored with the fill's new position in one transaction;
   * the last one moves the mark to the fill's top and ends it. Asked again meanwhile (a poll, a reconnect), it
   * closes the gap since it began between two pages.
   */
  private async pageFill(start: HistoryFill): Promise<void> {
    const { progress, timers } = this.ctx;
    const query = { ...(start.from !== null ? { from: start.from } : {}), to: start.to };
    const startedAt = timers.clock.now();
    const doneAt: number[] = [];
    let fill = start;
    let ordered = true;
    const show = () => {
      const total = fill.done + (fill.left ?? 0);
      progress.set('history-backfill', {
        done: fill.done,
        total: fill.left === null ? null : total,
        phase: fill.left === null ? `page ${fill.done + 1}` : `page ${Math.min(fill.done + 1, total)} of ${total}`,
        etaSeconds: fill.left === null ? null : secondsLeft(doneAt, fill.left, startedAt, timers.clock.now()),
      });
    };
    show();
    await this.catchingUp((news) =>
      this.pageThrough(query, 'backfill', news, async (trades, page, pages, last) => {
        const oldest = ordered ? oldestReached(fill.to, trades) : null;
        // Pages in another order than newest first: only where this query began is a safe place to go on from.
        if (oldest === null) ordered = false;
        fill = { ...fill, to: oldest ?? query.to, done: start.done + page, left: pages - page };
        const meta = last
          ? { [HISTORY_FILL_META]: null, [HISTORY_MARK_META]: fill.top }
          : { [HISTORY_FILL_META]: fill };
        await this.upsertTrades(trades, 'backfill', news, meta);
        const now = timers.clock.now();
        doneAt.push(now);
        while ((doneAt[0] ?? now) <= now - PACE_WINDOW_MS) doneAt.shift(); // only the last minute makes the pace
        show();
        if (!last && this.gapWanted) {
          this.gapWanted = false;
          fill = await this.closeGap(fill);
        }
      }),
    );
  }

  /** Pages what was created since the fill began (less the overlap), then moves its top: the newest first. */
  private async closeGap(fill: HistoryFill): Promise<HistoryFill> {
    const to = toUtcIso(this.ctx.timers.clock.now());
    const from = toUtcIso(Date.parse(fill.top) - HISTORY_OVERLAP_MS);
    await this.catchingUp((news) => this.pageThrough({ from, to }, 'backfill', news));
    const next = { ...fill, top: to };
    await this.ctx.store.setMeta(HISTORY_FILL_META, next);
    return next;
  }

  /** One catch-up: the news it collects is told at its end, each notification for a handful, else one summary. */
  private async catchingUp(work: (news: TradeNews[]) => Promise<void>): Promise<void> {
    const news: TradeNews[] = [];
    try {
      await work(news);
    } finally {
      if (news.length > 0) {
        this.ctx.events.push({ notifications: catchUpNotifications(news, toUtcIso(this.ctx.timers.clock.now())) });
      }
    }
  }

  /** Every page of a history query, each stored as it comes; only a trade a frame named is awaited by anyone. */
  private async pageThrough(
    query: Omit<TradeHistoryQuery, 'limit' | 'page'>,
    source: TradeSource,
    news?: TradeNews[],
    store?: (trades: Trade[], done: number, pages: number, last: boolean) => Promise<void>,
  ): Promise<void> {
    const client = this.ctx.api?.client;
    if (!client) return;
    await pageTrades(
      client,
      query,
      { signal: this.ctx.signal, bulk: source !== 'feed' },
      store ?? ((trades) => this.upsertTrades(trades, source, news)),
    );
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
