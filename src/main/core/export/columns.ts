/** The columns of the CSV exports; the store's reader thread formats each chunk with them. */
import type { BalanceTransaction, Trade } from '../../../shared/api';
import { centsToDecimal, csvLine } from './csv';

type Cell = string | number | null;

/** A CSV's columns: each named as the stored column it is read from; money columns are written as decimals. */
export interface CsvColumns {
  readonly names: readonly string[];
  readonly money: readonly string[];
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
} as const satisfies CsvColumns;

export function csvHeader(columns: CsvColumns): string {
  return csvLine(columns.names);
}

/** Rows read raw (one array per row, in the columns' order) as CSV lines. */
export function csvLines(columns: CsvColumns, rows: readonly (readonly Cell[])[]): string {
  const money = columns.names.map((name) => columns.money.includes(name));
  let text = '';
  for (const row of rows) text += csvLine(row.map((cell, i) => (money[i] ? centsToDecimal(cell as number) : cell)));
  return text;
}
