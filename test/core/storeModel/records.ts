/**
 * Trades and ledger entries in the store model test: stored once by id (a copy sent again changes nothing),
 * kept across reopens and kills, and listed newest first (createdAt, then id, both descending) through
 * their filters. The id filters match a prefix of the id, ASCII case ignored, `%` and `_` literal (the
 * tables show ids shortened); an external id likewise.
 */
import { expect } from 'vitest';
import type { BalanceTransaction, Trade, TradeStatus, TransactionType } from '../../../src/shared/api';
import { ACTIVE_TRADE_STATUSES, TRADE_STATUSES_ACCEPTED, TRANSACTION_TYPES } from '../../../src/shared/api';
import { trade } from '../../renderer/fixtures';
import type { StoreApi } from './compare';

/** Ids with both cases, `_` and `%`, so a prefix filter meets LIKE's wildcards and case rules. */
export function tradeIdOf(n: number): string {
  return `${n % 3 === 0 ? 'Tr' : 'tR'}${n % 5 === 0 ? '_' : '-'}${n % 7 === 0 ? '%' : ''}${n}`;
}

const DAY0 = Date.UTC(2026, 10, 20);

export function tradeOf(n: number): Trade {
  const status = TRADE_STATUSES_ACCEPTED[n % TRADE_STATUSES_ACCEPTED.length] as TradeStatus;
  const at = new Date(DAY0 + (n % 17) * 3_600_000).toISOString();
  return trade(tradeIdOf(n), status, {
    externalId: n % 4 === 0 ? null : `Ext_${n % 6}-${n}`,
    price: 100 + n,
    itemId: n,
    assetId: String(n),
    webhookStatus: n % 5 === 1 ? 'failed' : null,
    createdAt: at,
    updatedAt: at,
  });
}

export function ledgerEntryOf(n: number): BalanceTransaction {
  return {
    id: n,
    type: TRANSACTION_TYPES[n % TRANSACTION_TYPES.length] as TransactionType,
    amount: 10 * n,
    balanceBefore: 1000,
    balanceAfter: 1000 + 10 * n,
    tradeId: n % 3 === 0 ? null : tradeIdOf(n * 7),
    note: null,
    // Ties in createdAt are common: the id orders them.
    createdAt: new Date(DAY0 + (n % 11) * 3_600_000).toISOString(),
    market_hash_name: null,
    phase: null,
  };
}

export interface RecordsQuery {
  idPrefix: string;
  externalPrefix: string;
  statuses: TradeStatus[];
  activeOnly: boolean;
  webhookFailed: boolean;
  types: TransactionType[];
  fromHour: number | null;
  toHour: number | null;
  offset: number;
  limit: number;
}

const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
const startsWith = (id: string | null, prefix: string) =>
  prefix === '' || (id !== null && asciiLower(id).startsWith(asciiLower(prefix)));
const hour = (h: number | null) => (h === null ? null : new Date(DAY0 + h * 3_600_000).toISOString());

function newestFirst<T extends { createdAt: string }>(key: (row: T) => string | number): (a: T, b: T) => number {
  return (a, b) =>
    a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0;
}

export class RecordsModel {
  readonly trades = new Map<string, Trade>();
  readonly ledger = new Map<number, BalanceTransaction>();

  add(trades: Trade[], entries: BalanceTransaction[]): { changed: string[]; inserted: number[] } {
    const changed = trades
      .filter((trade) => !this.trades.has(trade.tradeId) && this.trades.set(trade.tradeId, trade))
      .map((trade) => trade.tradeId);
    const inserted = entries
      .filter((entry) => !this.ledger.has(entry.id) && this.ledger.set(entry.id, entry))
      .map((entry) => entry.id);
    return { changed, inserted };
  }

  tradePage(q: RecordsQuery): { ids: string[]; total: number } {
    const from = hour(q.fromHour);
    const to = hour(q.toHour);
    const rows = [...this.trades.values()]
      .filter(
        (t) =>
          (q.statuses.length === 0 || q.statuses.includes(t.status)) &&
          (!q.activeOnly || (ACTIVE_TRADE_STATUSES as readonly TradeStatus[]).includes(t.status)) &&
          (from === null || t.createdAt >= from) &&
          (to === null || t.createdAt <= to) &&
          (q.externalPrefix === '' || startsWith(t.externalId, q.externalPrefix)) &&
          startsWith(t.tradeId, q.idPrefix) &&
          (!q.webhookFailed || t.webhookStatus === 'failed'),
      )
      .sort(newestFirst((t) => t.tradeId));
    return { ids: rows.slice(q.offset, q.offset + q.limit).map((t) => t.tradeId), total: rows.length };
  }

  ledgerPage(q: RecordsQuery): { ids: number[]; total: number } {
    const from = hour(q.fromHour);
    const to = hour(q.toHour);
    const rows = [...this.ledger.values()]
      .filter(
        (e) =>
          (q.types.length === 0 || q.types.includes(e.type)) &&
          (q.idPrefix === '' || startsWith(e.tradeId, q.idPrefix)) &&
          (from === null || e.createdAt >= from) &&
          (to === null || e.createdAt <= to),
      )
      .sort(newestFirst((e) => e.id));
    return { ids: rows.slice(q.offset, q.offset + q.limit).map((e) => e.id), total: rows.length };
  }
}

/** The trade and ledger pages of a query, and one trade's detail, against the model. */
export async function checkRecords(
  store: StoreApi,
  records: RecordsModel,
  q: RecordsQuery,
  probeTrade: number,
): Promise<void> {
  const tradeQuery = {
    statuses: q.statuses,
    activeOnly: q.activeOnly,
    from: hour(q.fromHour),
    to: hour(q.toHour),
    externalId: q.externalPrefix,
    tradeId: q.idPrefix,
    webhookFailed: q.webhookFailed,
    offset: q.offset,
    limit: q.limit,
  };
  const trades = await store.queryTrades(tradeQuery);
  const expectedTrades = records.tradePage(q);
  expect(
    { ids: trades.rows.map((t) => t.tradeId), total: trades.total },
    `trades ${JSON.stringify(tradeQuery)}`,
  ).toEqual(expectedTrades);
  for (const row of trades.rows) expect(row, `trade ${row.tradeId}`).toEqual(records.trades.get(row.tradeId));
  const ledgerQuery = {
    types: q.types,
    tradeId: q.idPrefix,
    from: hour(q.fromHour),
    to: hour(q.toHour),
    offset: q.offset,
    limit: q.limit,
  };
  const ledger = await store.queryLedger(ledgerQuery);
  expect({ ids: ledger.rows.map((e) => e.id), total: ledger.total }, `ledger ${JSON.stringify(ledgerQuery)}`).toEqual(
    records.ledgerPage(q),
  );
  for (const row of ledger.rows) expect(row, `ledger entry ${row.id}`).toEqual(records.ledger.get(row.id));
  const tradeId = tradeIdOf(probeTrade);
  expect((await store.getTrade(tradeId))?.trade ?? null, `getTrade ${tradeId}`).toEqual(
    records.trades.get(tradeId) ?? null,
  );
}
