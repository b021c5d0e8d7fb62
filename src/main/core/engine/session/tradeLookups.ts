import type { FeedFrame, Trade } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import { Pacer, Throttler } from '../../async';
import type { SessionContext } from './sessionContext';
import { readTrades, type WantedTrade } from './tradePages';

export type TradeUpdate = Omit<Extract<FeedFrame, { type: 'trade_updated' }>, 'type'>;

/** A new trade is read at once when no read is under way, then with the others its frames named meanwhile, at most this often. */
const NEW_TRADES_GAP_MS = 500;
/** A final status's server record is read this long after its frame, together with the others meanwhile. */
const FINISHED_DELAY_MS = 10_000;
/** A trade's createdAt is no earlier than this before its first frame arrived (the server's clock, the frame's way). */
const FRAME_MARGIN_MS = 10_000;
/** Reads go back by range at most this far; older trades (a rare late outcome) are read by id. */
const RANGE_SPAN_MS = 10 * 60_000;

/**
 * The trades feed frames name that the desk must read from the server: one it does not hold (the merchant's own back
 * end bought it on the same key; a frame carries no price, item or times) and one that reached a final status (the
 * server's completedAt, endProtection, stage). A read for each would cost a request a frame, outside any share, and
 * under a burst of buys run the key into 429s; here they are coalesced: the trades named while a read is under way
 * are read together, as one range read since the oldest of them when there are more than one, in `live` slots: in
 * the bulk share, yet never behind its paging (a buy never waits behind them; see SlotKind). A final status is
 * already shown from its frame; its record follows.
 */
export class TradeLookups {
  /** Trades not held, with the latest frame for each (applied once read) and whether a read has them. */
  private readonly unknown = new Map<string, { update: TradeUpdate; after: string; asked: boolean }>();
  /** Trades at a final status whose record is wanted, with their createdAt. */
  private readonly finished = new Map<string, string>();
  private readonly rounds = new Throttler();
  private readonly newTrades: Pacer;
  private finishedDue = false;
  private cancelFinished: (() => void) | null = null;

  constructor(
    private readonly ctx: SessionContext,
    /** Stores trades read from the server (their news is live news). */
    private readonly store: (trades: Trade[]) => Promise<void>,
    /** Applies a frame again once its trade was read (a status it brought after the read moves the trade on). */
    private readonly apply: (update: TradeUpdate) => Promise<void>,
  ) {
    this.newTrades = new Pacer(ctx.timers, NEW_TRADES_GAP_MS, () => this.run());
  }

  /** A frame for a trade the store does not hold: read soon, with the others named meanwhile. */
  unknownFrame(update: TradeUpdate): void {
    const waiting = this.unknown.get(update.tradeId);
    const after = waiting?.after ?? toUtcIso(this.ctx.timers.clock.now() - FRAME_MARGIN_MS);
    this.unknown.set(update.tradeId, { update, after, asked: waiting?.asked ?? false });
    if (!waiting?.asked) this.newTrades.schedule();
  }

  /** A held trade reached a final status from a frame: its server record is read a little later, with others. */
  finalStatus(trade: Trade): void {
    this.finished.set(trade.tradeId, trade.createdAt);
    this.cancelFinished ??= this.ctx.timers.later(FINISHED_DELAY_MS, () => {
      this.cancelFinished = null;
      this.finishedDue = true;
      this.run();
    });
  }

  private run(): void {
    void this.rounds.queue(() => this.round());
  }

  /** One read of everything wanted now; the frames of the trades it was for are applied after it. */
  private async round(): Promise<void> {
    const client = this.ctx.api?.client;
    if (!client || this.ctx.isStopped()) return;
    const wanted: WantedTrade[] = [];
    for (const [tradeId, waiting] of this.unknown) {
      if (waiting.asked) continue;
      waiting.asked = true;
      wanted.push({ tradeId, after: waiting.after });
    }
    if (this.finishedDue) {
      this.finishedDue = false;
      for (const [tradeId, after] of this.finished) wanted.push({ tradeId, after });
      this.finished.clear();
    }
    if (wanted.length === 0) return;
    const now = this.ctx.timers.clock.now();
    try {
      const options = { signal: this.ctx.signal, slot: 'live' as const, byIdMax: 1, now, spanMs: RANGE_SPAN_MS };
      await readTrades(client, wanted, options, this.store);
    } catch (error) {
      // Asked again with the next round; a recovery's catch-up brings them meanwhile.
      for (const { tradeId, after } of wanted) {
        const waiting = this.unknown.get(tradeId);
        if (waiting) waiting.asked = false;
        else this.finished.set(tradeId, after);
      }
      this.ctx.report('reading trades the feed named', error);
      return;
    }
    for (const { tradeId } of wanted) {
      const waiting = this.unknown.get(tradeId);
      if (!waiting) continue;
      this.unknown.delete(tradeId);
      await this.apply(waiting.update);
    }
  }
}
