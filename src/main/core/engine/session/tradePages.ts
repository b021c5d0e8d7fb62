import type { Trade, TradeHistoryQuery } from '../../../../shared/api';
import { HISTORY_MAX_LIMIT } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import type { MerchantApiClient } from '../../api';

/** Each back-fill re-reads this much before the mark: trades stamped by a server clock a little behind ours. */
const HISTORY_OVERLAP_MS = 10 * 60_000;

/**
 * What a history back-fill pages, from its high-water mark (HISTORY_MARK_META: the fixed `to` of the last complete
 * run) to now, so trades made while the app was closed for longer than the 14-day `isActive` window are still found.
 * No mark (a new cache): the whole history. `to` is fixed, so trades created while it pages do not shift the pages.
 */
export function backfillRange(mark: unknown, now: number): { from?: string; to: string } {
  const markMs = typeof mark === 'string' ? Date.parse(mark) : Number.NaN;
  const to = toUtcIso(now);
  return Number.isNaN(markMs) ? { to } : { from: toUtcIso(Math.min(markMs, now) - HISTORY_OVERLAP_MS), to };
}

/**
 * Every page of a Trades/History query, largest pages, in order: `onPage` hears each page's trades (and may store
 * them before the next is asked), with the pages done and their total once the first answer tells it.
 */
export async function pageTrades(
  client: MerchantApiClient,
  query: Omit<TradeHistoryQuery, 'limit' | 'page'>,
  options: { signal: AbortSignal; bulk: boolean },
  onPage: (trades: Trade[], done: number, pages: number) => Promise<void>,
): Promise<void> {
  let fetched = 0;
  for (let page = 1; ; page++) {
    const answer = await client.tradeHistory({ ...query, limit: HISTORY_MAX_LIMIT, page }, options);
    fetched += answer.trades.length;
    await onPage(answer.trades, page, Math.max(1, Math.ceil(answer.total / HISTORY_MAX_LIMIT)));
    if (answer.trades.length === 0 || fetched >= answer.total) return;
  }
}
