import type { BalanceTransaction, Trade } from '../../../shared/api';
import type { Page } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import type { LocalStore } from '../store';
import type { ParsedLedgerQuery, ParsedTradeQuery } from '../store/types';
import { centsToDecimal, toCsv } from './csv';

type Cell = string | number | null;
/** A CSV column: its header, and its cell of a row. */
type Column<T> = readonly [header: string, cell: (row: T) => Cell];

const EXPORT_PAGE = 1000;

const TRADE_COLUMNS: readonly Column<Trade>[] = [
  ['tradeId', (t) => t.tradeId],
  ['externalId', (t) => t.externalId],
  ['status', (t) => t.status],
  ['price', (t) => centsToDecimal(t.price)],
  ['itemId', (t) => t.itemId],
  ['assetId', (t) => t.assetId],
  ['offerId', (t) => t.offerId],
  ['market_hash_name', (t) => t.market_hash_name],
  ['phase', (t) => t.phase],
  ['float', (t) => t.float],
  ['webhookStatus', (t) => t.webhookStatus],
  ['errorCode', (t) => t.errorCode],
  ['failReason', (t) => t.failReason],
  ['createdAt', (t) => t.createdAt],
  ['updatedAt', (t) => t.updatedAt],
  ['completedAt', (t) => t.completedAt],
  ['cancelledAt', (t) => t.cancelledAt],
  ['endProtection', (t) => t.endProtection],
  ['rollbackAt', (t) => t.rollbackAt],
  ['stage', (t) => t.stage],
];

const LEDGER_COLUMNS: readonly Column<BalanceTransaction>[] = [
  ['id', (e) => e.id],
  ['createdAt', (e) => e.createdAt],
  ['type', (e) => e.type],
  ['amount', (e) => centsToDecimal(e.amount)],
  ['balanceBefore', (e) => centsToDecimal(e.balanceBefore)],
  ['balanceAfter', (e) => centsToDecimal(e.balanceAfter)],
  ['tradeId', (e) => e.tradeId],
  ['market_hash_name', (e) => e.market_hash_name],
  ['phase', (e) => e.phase],
  ['note', (e) => e.note],
];

export interface CsvExport {
  filename: string;
  csv: string;
}

/** Every cached trade the query matches, as CSV (money as decimals, times as stored). */
export function exportTrades(store: LocalStore, query: ParsedTradeQuery): Promise<CsvExport> {
  return exportRows('trades', TRADE_COLUMNS, (offset, limit) => store.queryTrades({ ...query, offset, limit }));
}

/** Every cached ledger entry the query matches, as CSV. */
export function exportLedger(store: LocalStore, query: ParsedLedgerQuery): Promise<CsvExport> {
  return exportRows('ledger', LEDGER_COLUMNS, (offset, limit) => store.queryLedger({ ...query, offset, limit }));
}

async function exportRows<T>(
  name: string,
  columns: readonly Column<T>[],
  page: (offset: number, limit: number) => Promise<Page<T>>,
): Promise<CsvExport> {
  const rows: Cell[][] = [];
  for (let offset = 0; ; offset += EXPORT_PAGE) {
    const answer = await page(offset, EXPORT_PAGE);
    for (const row of answer.rows) rows.push(columns.map(([, cell]) => cell(row)));
    if (answer.rows.length < EXPORT_PAGE) break;
  }
  const stamp = toUtcIso(Date.now()).replace(/[:.]/g, '-');
  return {
    filename: `${name}-${stamp}.csv`,
    csv: toCsv(
      columns.map(([header]) => header),
      rows,
    ),
  };
}
