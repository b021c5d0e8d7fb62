/** The columns of the CSV exports; the store's reader thread formats each chunk with them. */
import type { BalanceTransaction, Trade } from '../../../shared/api';
import { csvLine } from './csv';

/** A CSV's columns: each named as the stored column it is read from; money columns are written as decimals. */
export interface CsvColumns {
  readonly names: readonly string[];
  readonly money: readonly string[];
  /**
   * Columns whose stored values never need quoting or defusing (enums, integers, UTC timestamps, money): the export
   * has SQLite write them as text, runs of them as one string (exportChunks.ts), so fewer values cross into JS.
   */
  readonly plain: readonly string[];
}

export const TRADE_COLUMNS = {
  names: [
    'tradeId',
    'externalId',
    'status',
    'price',
    'itemId',
    'assetId',
    'offerId',
    'market_hash_name',
    'phase',
    'float',
    'webhookStatus',
    'errorCode',
    'failReason',
    'createdAt',
    'updatedAt',
    'completedAt',
    'cancelledAt',
    'endProtection',
    'rollbackAt',
    'stage',
  ] satisfies (keyof Trade)[],
  money: ['price'] satisfies (keyof Trade)[],
  plain: [
    'status',
    'price',
    'itemId',
    'webhookStatus',
    'errorCode',
    'createdAt',
    'updatedAt',
    'completedAt',
    'cancelledAt',
    'endProtection',
    'rollbackAt',
    'stage',
  ] satisfies (keyof Trade)[],
} as const satisfies CsvColumns;

export const LEDGER_COLUMNS = {
  names: [
    'id',
    'createdAt',
    'type',
    'amount',
    'balanceBefore',
    'balanceAfter',
    'tradeId',
    'market_hash_name',
    'phase',
    'note',
  ] satisfies (keyof BalanceTransaction)[],
  money: ['amount', 'balanceBefore', 'balanceAfter'] satisfies (keyof BalanceTransaction)[],
  plain: ['id', 'createdAt', 'type', 'amount', 'balanceBefore', 'balanceAfter'] satisfies (keyof BalanceTransaction)[],
} as const satisfies CsvColumns;

export function csvHeader(columns: CsvColumns): string {
  return csvLine(columns.names);
}
