/** The columns of the CSV exports; the store's reader thread formats each chunk with them. */
import type { BalanceTransaction, Trade } from '../../../shared/api';
import { centsToDecimal, csvLine } from './csv';

type Cell = string | number | null;
/** A CSV column: its header, and its cell of a row. */
type Column<T> = readonly [header: string, cell: (row: T) => Cell];

export const TRADE_COLUMNS: readonly Column<Trade>[] = [
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

export const LEDGER_COLUMNS: readonly Column<BalanceTransaction>[] = [
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

export function csvHeader<T>(columns: readonly Column<T>[]): string {
  return csvLine(columns.map(([header]) => header));
}

/** The rows as CSV lines, in the columns' order. */
export function csvLines<T>(columns: readonly Column<T>[], rows: readonly T[]): string {
  let text = '';
  for (const row of rows) text += csvLine(columns.map(([, cell]) => cell(row)));
  return text;
}
