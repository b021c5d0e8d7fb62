import { toUtcIso } from '../../../../shared/time';
import { PACE_WINDOW_MS, secondsLeft } from '../../../../shared/timeLeft';
import { HISTORY_FILL_META, HISTORY_MARK_META } from '../../store/schema';
import { historyLoadedNotification } from '../notifications';
import { Throttler } from '../../async';
import {
  type HistoryFill,
  HISTORY_OVERLAP_MS,
  oldestReached,
  openFill,
  parseFill,
  type TradeWriter,
} from './historyFill';
import type { SessionContext } from './sessionContext';
import { pageTrades } from './tradePages';

/**
 * The history back-fill (see historyFill.ts): on start, after each feed connect, with each poll. A fill a stopped
 * run left goes on from where it was, after the gap since it began; else a new one pages from the high-water mark
 * (the whole history on a new cache). Single flight: asked while it runs, it closes the gap since it began between
 * two pages, so a fill of hours never holds back the trades made meanwhile.
 */
export class HistoryBackfill {
  private readonly runs = new Throttler();
  /** The cache holds the account's history (a back-fill completed once); a new cache's first one sums it up. */
  private historyLoaded = false;
  /** Asked for while a fill runs: it closes the gap since it began, between two of its pages. */
  private gapWanted = false;
  /** Settles once the run under way has streamed its 14-day window, or found it needs none. */
  private windowPhase: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: SessionContext,
    private readonly trades: TradeWriter,
  ) {}

  async load(): Promise<void> {
    this.historyLoaded = typeof (await this.ctx.store.getMeta(HISTORY_MARK_META)) === 'string';
  }

  run(): Promise<void> {
    if (!this.ctx.api) return Promise.resolve();
    if (this.runs.busy) this.gapWanted = true;
    return this.runs.join(() => this.fill());
  }

  /** The back-fill under way, if any (the start-up's catch-up waits for it). */
  settled(): Promise<void> {
    return this.runs.join(async () => {});
  }

  /**
   * The trade window under way, if any. A new cache's window and the ledger's first pages would share the one writer
   * thread; bulk work that can wait (the ledger's pages) waits for it.
   */
  windowStreamed(): Promise<void> {
    return this.windowPhase;
  }

  private async fill(): Promise<void> {
    const { store, progress, timers } = this.ctx;
    let windowDone = () => {};
    this.windowPhase = new Promise((resolve) => (windowDone = resolve));
    try {
      this.gapWanted = false;
      let fill = parseFill(await store.getMeta(HISTORY_FILL_META));
      const mark = await store.getMeta(HISTORY_MARK_META);
      // A fill a stopped run left: the newest first, so the gap since it began, then the rest of it.
      if (fill) fill = await this.closeGap(fill);
      // A new cache: the last 14 days in one streamed request, then only what is older is paged.
      else if (typeof mark !== 'string') fill = await this.streamWindow();
      windowDone();
      for (;;) {
        await this.pageFill(fill ?? openFill(await store.getMeta(HISTORY_MARK_META), timers.clock.now()));
        if (!this.historyLoaded) {
          this.historyLoaded = true;
          const loaded = await historyLoadedNotification(store, this.ctx.openedAt, timers.clock.now());
          if (loaded) this.ctx.events.push({ notifications: [loaded] });
        }
        if (!this.gapWanted) break;
        // Asked again during its last page or its summary (its last await): the range since its top, from the mark
        // it just moved.
        this.gapWanted = false;
        fill = null;
      }
    } catch (error) {
      this.ctx.report('history back-fill', error);
    } finally {
      windowDone();
      progress.clear('history-backfill');
    }
  }

  /**
   * The 14-day window (`isActive=true`) streamed into the store by its writer thread, checked and stored in chunks,
   * one bulk request; the fill it returns (written with the last chunk) pages what is older than the window's oldest
   * trade. Cut off, it leaves no fill: the next run streams the window again.
   */
  private async streamWindow(): Promise<HistoryFill> {
    const { api, store, progress, signal, timers } = this.ctx;
    const fill = openFill(null, timers.clock.now());
    if (!api) return fill;
    const show = (stored: number) =>
      progress.set('history-backfill', {
        done: stored,
        total: null,
        phase: `${stored.toLocaleString('en-US')} trades of the last 14 days`,
        etaSeconds: null,
      });
    show(0);
    const window = await api.client.prepareTradeWindowRequest(signal);
    let status = 0;
    let headers: Record<string, string> = {};
    let invalidatedAt = Number.NEGATIVE_INFINITY;
    try {
      const result = await store.streamTradeWindow(
        { ...window.request, signal, since: toUtcIso(this.ctx.openedAt), fillKey: HISTORY_FILL_META, fill },
        (step) => {
          show(step.applied);
          // The page shown re-queries: once a second is enough while thousands arrive.
          if (step.applied > 0 && timers.clock.now() - invalidatedAt >= 1000) {
            invalidatedAt = timers.clock.now();
            this.ctx.events.push({ tradesInvalidated: true });
          }
        },
      );
      if (!result.ok) {
        [status, headers] = [result.status, result.headers];
        throw window.error(result.status, result.headers, result.bodyText);
      }
      status = 200;
      await this.trades.catchingUp(async (news) => this.trades.windowStored(result.recent, news));
      this.ctx.hooks.log(`history back-fill: ${result.stored} trades of the last 14 days in one answer`);
      return { ...fill, to: result.oldest ?? fill.to };
    } finally {
      window.answered(status, headers);
    }
  }

  /**
   * Pages what is left of a fill, newest first, each page stored with the fill's new position in one transaction;
   * the last one moves the mark to the fill's top and ends it.
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
    await this.trades.catchingUp((news) =>
      this.page(query, async (trades, page, pages, last) => {
        const oldest = ordered ? oldestReached(fill.to, trades) : null;
        // Pages in another order than newest first: only where this query began is a safe place to go on from.
        if (oldest === null) ordered = false;
        fill = { ...fill, to: oldest ?? query.to, done: start.done + page, left: pages - page };
        const meta = last
          ? { [HISTORY_FILL_META]: null, [HISTORY_MARK_META]: fill.top }
          : { [HISTORY_FILL_META]: fill };
        await this.trades.upsertTrades(trades, 'backfill', news, meta);
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
    await this.trades.catchingUp((news) =>
      this.page({ from, to }, (trades) => this.trades.upsertTrades(trades, 'backfill', news)),
    );
    const next = { ...fill, top: to };
    await this.ctx.store.setMeta(HISTORY_FILL_META, next);
    return next;
  }

  private async page(query: Parameters<typeof pageTrades>[1], onPage: Parameters<typeof pageTrades>[3]): Promise<void> {
    const client = this.ctx.api?.client;
    if (client) await pageTrades(client, query, { signal: this.ctx.signal, slot: 'bulk' }, onPage);
  }
}
