import type { Trade } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import type { TradeSource, TradeUpsertResult } from '../../store/types';
import type { TradeNews } from '../notifications';

/** Each back-fill re-reads this much before the mark: trades stamped by a server clock a little behind ours. */
export const HISTORY_OVERLAP_MS = 10 * 60_000;

/**
 * A history back-fill under way, as kept in meta (HISTORY_FILL_META) with every page it stores, in the page's
 * transaction: a restart goes on from it. Trades/History pages come newest first (the spec's "most recent"; the
 * sandbox orders by createdAt, newest first), so what is stored is the part from `to` up, and what is left is
 * `from`..`to`. `to` is the oldest createdAt stored: trades created later, or a status that changes, never move
 * it. `to` is inclusive, so the trades of that millisecond are asked again: the only overlap.
 */
export interface HistoryFill {
  /** Where the range starts (the mark less the overlap); null: the start of the history (a new cache). */
  from: string | null;
  /** The oldest createdAt stored so far (at first: when the fill began). */
  to: string;
  /** Everything from `to` up to here is stored: the mark once the fill is done. */
  top: string;
  /** Pages stored, and pages left as the last answer counted them (null before the first): the progress. */
  done: number;
  left: number | null;
}

/** A new fill: from the high-water mark (less the overlap) to now; the whole history without a mark. */
export function openFill(mark: unknown, now: number): HistoryFill {
  const markMs = typeof mark === 'string' ? Date.parse(mark) : Number.NaN;
  const to = toUtcIso(now);
  const from = Number.isNaN(markMs) ? null : toUtcIso(Math.min(markMs, now) - HISTORY_OVERLAP_MS);
  return { from, to, top: to, done: 0, left: null };
}

/** A fill read back from meta; anything else (none, or a shape this build does not know) is none. */
export function parseFill(value: unknown): HistoryFill | null {
  if (typeof value !== 'object' || value === null) return null;
  const fill = value as Partial<HistoryFill>;
  const isTime = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));
  if (!isTime(fill.to) || !isTime(fill.top) || !(fill.from === null || isTime(fill.from))) return null;
  if (typeof fill.done !== 'number' || !(fill.left === null || typeof fill.left === 'number')) return null;
  return { from: fill.from, to: fill.to, top: fill.top, done: fill.done, left: fill.left };
}

/**
 * The oldest createdAt of a page that came newest first and not newer than `to`; null when it did not (a server
 * that pages in another order): then no position is safe to keep but where the range began.
 */
export function oldestReached(to: string, trades: readonly Trade[]): string | null {
  let previous = Date.parse(to);
  for (const trade of trades) {
    const at = Date.parse(trade.createdAt);
    if (!(at <= previous)) return null;
    previous = at;
  }
  return toUtcIso(previous);
}

/** What the back-fill needs of the trade sync (the composer hands it over): storing pages and summing up catch-ups. */
export interface TradeWriter {
  upsertTrades(trades: Trade[], source: TradeSource, news?: TradeNews[], meta?: Record<string, unknown>): Promise<void>;
  catchingUp(work: (news: TradeNews[]) => Promise<void>): Promise<void>;
  /** The store streamed the 14-day window itself: what it changed since the account was opened, to tell. */
  windowStored(recent: TradeUpsertResult, news: TradeNews[]): void;
}
