import type { Trade, TradeHistoryQuery } from '../../../../shared/api';
import { ACTIVE_TRADE_STATUSES, ACTIVE_TRADES_WINDOW_MS, HISTORY_MAX_LIMIT } from '../../../../shared/api';
import { toUtcIso } from '../../../../shared/time';
import type { MerchantApiClient, SlotKind } from '../../api';

/**
 * Every page of a Trades/History query, largest pages, in order: `onPage` hears each page's trades (and may store
 * them before the next is asked), with the pages done, their total as this answer counts it, and whether it is the
 * last.
 */
export async function pageTrades(
  client: MerchantApiClient,
  query: Omit<TradeHistoryQuery, 'limit' | 'page'>,
  options: { signal: AbortSignal; slot: SlotKind },
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

/** More trades than this to read: one range read instead of a request each. */
const LOOKUPS_MAX = 20;

/** A trade to read from the server, and a time no later than its createdAt (ISO). */
export interface WantedTrade {
  tradeId: string;
  after: string;
}

/**
 * Reads these trades: each by id when there are `byIdMax` or fewer, else one range read since the oldest `after`
 * (paged), then by id any it did not name. With `spanMs`, trades older than that before `now` are read by id, so one
 * late straggler never stretches the range over hours of history. Every request takes a rate slot of `slot`'s kind.
 */
export async function readTrades(
  client: MerchantApiClient,
  wanted: readonly WantedTrade[],
  options: { signal: AbortSignal; slot: SlotKind; byIdMax: number; now: number; spanMs?: number },
  onPage: (trades: Trade[]) => Promise<void>,
): Promise<void> {
  const seen = new Set<string>();
  const read = (query: Omit<TradeHistoryQuery, 'limit' | 'page'>) =>
    pageTrades(client, query, { signal: options.signal, slot: options.slot }, async (trades) => {
      for (const trade of trades) seen.add(trade.tradeId);
      await onPage(trades);
    });
  const { spanMs } = options;
  const ranged = spanMs === undefined ? wanted : wanted.filter((w) => Date.parse(w.after) >= options.now - spanMs);
  if (ranged.length > options.byIdMax) {
    await read({ from: ranged.reduce((oldest, w) => (w.after < oldest ? w.after : oldest), toUtcIso(options.now)) });
  }
  for (const { tradeId } of wanted) if (!seen.has(tradeId)) await read({ tradeId });
}

/** What the reconcile needs of the store. */
export interface HeldTrades {
  /** The trades it holds as active. */
  active(): Promise<Trade[]>;
  /** One trade, if held. */
  get(tradeId: string): Promise<Trade | null>;
}

/**
 * What can still change, without the whole 14-day window: every active trade (by status, paged); the reversals,
 * either the window's (`rollbacksSince` null: every reversed trade created in 14 days) or those the ledger's
 * `TRADE ROLLBACK` entries since `rollbacksSince` name (a ledger entry is stamped when the reversal happens, a
 * trade's `from` filter is by creation); then each trade held active here that none of those answers named (it
 * finished: its final state) and each held trade a rollback names that is not held as reversed, read by id, or as
 * the range since the oldest of them when there are many. The bytes grow with the trades in flight and the
 * reversals, not with the history.
 */
export async function reconcilePages(
  client: MerchantApiClient,
  signal: AbortSignal,
  now: number,
  held: HeldTrades,
  rollbacksSince: string | null,
  onPage: (trades: Trade[]) => Promise<void>,
): Promise<void> {
  const seen = new Set<string>();
  const store = async (trades: Trade[]) => {
    for (const trade of trades) seen.add(trade.tradeId);
    await onPage(trades);
  };
  const read = (query: Omit<TradeHistoryQuery, 'limit' | 'page'>) =>
    pageTrades(client, query, { signal, slot: 'bulk' }, store);
  for (const status of ACTIVE_TRADE_STATUSES) await read({ status });
  const wanted: WantedTrade[] = [];
  if (rollbacksSince === null) await read({ status: 'REVERSED', from: toUtcIso(now - ACTIVE_TRADES_WINDOW_MS) });
  else {
    for (const tradeId of await rolledBack(client, signal, rollbacksSince)) {
      const trade = await held.get(tradeId);
      if (trade && trade.status !== 'REVERSED') wanted.push({ tradeId, after: trade.createdAt });
    }
  }
  for (const trade of await held.active())
    if (!seen.has(trade.tradeId)) wanted.push({ tradeId: trade.tradeId, after: trade.createdAt });
  await readTrades(client, wanted, { signal, slot: 'bulk', byIdMax: LOOKUPS_MAX, now }, store);
}

/** The trades the ledger's `TRADE ROLLBACK` entries since `from` name (a handful, however long the history). */
async function rolledBack(client: MerchantApiClient, signal: AbortSignal, from: string): Promise<Set<string>> {
  const tradeIds = new Set<string>();
  for (let page = 1; ; page++) {
    const answer = await client.balanceHistory(
      { type: 'TRADE ROLLBACK', from, limit: HISTORY_MAX_LIMIT, page },
      { signal, slot: 'bulk' },
    );
    for (const entry of answer.transactions) if (entry.tradeId) tradeIds.add(entry.tradeId);
    if (answer.transactions.length < HISTORY_MAX_LIMIT || page * HISTORY_MAX_LIMIT >= answer.total) return tradeIds;
  }
}

/**
 * The server's failed deliveries, every page, then the held failures (newest first) it no longer lists, read again,
 * `readMax` at most: a later status was delivered since, and no frame says so. `from` (ISO) bounds both to trades
 * created since then; null reads them all.
 */
export async function failedDeliveryPages(
  client: MerchantApiClient,
  held: readonly { tradeId: string; createdAt: string }[],
  options: { signal: AbortSignal; now: number; from: string | null; readMax: number },
  onPage: (trades: Trade[]) => Promise<void>,
): Promise<void> {
  const { signal, now, from, readMax } = options;
  const listed = new Set<string>();
  const query = { webhookStatus: 'failed' as const, ...(from === null ? {} : { from }) };
  await pageTrades(client, query, { signal, slot: 'bulk' }, (trades) => {
    for (const trade of trades) listed.add(trade.tradeId);
    return onPage(trades);
  });
  const gone = held.filter((trade) => !listed.has(trade.tradeId) && (from === null || trade.createdAt >= from));
  const wanted = gone.slice(0, readMax).map((trade) => ({ tradeId: trade.tradeId, after: trade.createdAt }));
  await readTrades(client, wanted, { signal, slot: 'bulk', byIdMax: readMax, now }, onPage);
}
