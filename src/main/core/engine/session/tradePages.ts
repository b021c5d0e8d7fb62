import type { Trade, TradeHistoryQuery } from '../../../../shared/api';
import { ACTIVE_TRADE_STATUSES, ACTIVE_TRADES_WINDOW_MS, HISTORY_MAX_LIMIT } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import type { MerchantApiClient } from '../../api';

/**
 * Every page of a Trades/History query, largest pages, in order: `onPage` hears each page's trades (and may store
 * them before the next is asked), with the pages done, their total as this answer counts it, and whether it is the
 * last.
 */
export async function pageTrades(
  client: MerchantApiClient,
  query: Omit<TradeHistoryQuery, 'limit' | 'page'>,
  options: { signal: AbortSignal; bulk: boolean },
  onPage: (trades: Trade[], done: number, pages: number, last: boolean) => Promise<void>,
): Promise<void> {
  let fetched = 0;
  for (let page = 1; ; page++) {
    const answer = await client.tradeHistory({ ...query, limit: HISTORY_MAX_LIMIT, page }, options);
    fetched += answer.trades.length;
    const last = answer.trades.length === 0 || fetched >= answer.total;
    await onPage(answer.trades, page, Math.max(page, Math.ceil(answer.total / HISTORY_MAX_LIMIT)), last);
    if (last) return;
  }
}

/** More trades than this left active here and named by no answer: one range read instead of a request each. */
const LOOKUPS_MAX = 20;

/**
 * What can still change, without the whole 14-day window: every active trade (by status, paged), the window's
 * reversals, then each trade held active here that none of those answers named (it finished: its final state),
 * read by id, or as the range since the oldest of them when there are many. The bytes grow with the trades in
 * flight and the reversals, not with the history.
 */
export async function reconcilePages(
  client: MerchantApiClient,
  signal: AbortSignal,
  now: number,
  heldActive: () => Promise<Trade[]>,
  onPage: (trades: Trade[]) => Promise<void>,
): Promise<void> {
  const seen = new Set<string>();
  const read = (query: Omit<TradeHistoryQuery, 'limit' | 'page'>) =>
    pageTrades(client, query, { signal, bulk: true }, async (trades) => {
      for (const trade of trades) seen.add(trade.tradeId);
      await onPage(trades);
    });
  for (const status of ACTIVE_TRADE_STATUSES) await read({ status });
  await read({ status: 'REVERSED', from: toUtcIso(now - ACTIVE_TRADES_WINDOW_MS) });
  const finished = (await heldActive()).filter((trade) => !seen.has(trade.tradeId));
  if (finished.length > LOOKUPS_MAX) {
    const from = finished.reduce(
      (oldest, trade) => (trade.createdAt < oldest ? trade.createdAt : oldest),
      toUtcIso(now),
    );
    await read({ from, to: toUtcIso(now) });
    return;
  }
  for (const trade of finished) await read({ tradeId: trade.tradeId });
}
