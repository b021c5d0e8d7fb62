/**
 * An export's chunks: pages by key, newest first as the screens show them (createdAt DESC, then the id DESC, the
 * trades_created and ledger_created indexes read backwards), never by OFFSET, so each chunk costs the same however
 * far the export has gone. Formatted as CSV here, so one string crosses to the host instead of thousands of objects.
 */
import type { BalanceTransaction, Trade } from '../../../../shared/api';
import { ledgerQuerySchema, tradeQuerySchema, type LedgerQuery, type TradeQuery } from '../../../../shared/ipc/contract';
import { csvLines, LEDGER_COLUMNS, TRADE_COLUMNS } from '../../export/columns';
import type { ExportChunk, ExportKey } from '../types';
import type { Prepare } from './open';
import { LEDGER_FIELDS, TRADE_SELECT } from './recordRows';
import { ledgerWhere, tradeWhere } from './recordsReader';

/** The most rows one chunk may ask for: the reader answers the UI's other queries between chunks. */
export const MAX_EXPORT_CHUNK = 10_000;

function checkChunkArgs(after: ExportKey | null, limit: number, idType: 'string' | 'number'): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_EXPORT_CHUNK)
    throw new RangeError(`an export chunk is 1 to ${MAX_EXPORT_CHUNK} rows, not ${String(limit)}`);
  if (after !== null && (typeof after.createdAt !== 'string' || typeof after.id !== idType))
    throw new RangeError('an export chunk starts after a { createdAt, id } key');
}

function chunkOf<R extends { createdAt: string }>(
  rows: R[],
  limit: number,
  keyOf: (row: R) => ExportKey,
  format: (rows: R[]) => string,
  total: number | null,
): ExportChunk {
  const last = rows.at(-1);
  return { csv: format(rows), rows: rows.length, next: rows.length === limit && last ? keyOf(last) : null, total };
}

/** `where` and, after a key, the rows strictly older than it in the screen's order. */
function afterKey(where: string, id: string, after: ExportKey | null): string {
  if (after === null) return where;
  const keyset = `(createdAt, ${id}) < (?, ?)`;
  return where === '' ? `WHERE ${keyset}` : `${where} AND ${keyset}`;
}

export function tradeExportChunk(
  prepare: Prepare,
  query: TradeQuery,
  after: ExportKey | null,
  limit: number,
): ExportChunk {
  checkChunkArgs(after, limit, 'string');
  const { where, params } = tradeWhere(tradeQuerySchema.parse(query));
  const keyParams = after === null ? [] : [after.createdAt, after.id];
  const rows = prepare<unknown[], Trade>(
    `SELECT ${TRADE_SELECT} FROM trades ${afterKey(where, 'tradeId', after)} ORDER BY createdAt DESC, tradeId DESC LIMIT ?`,
  ).all(...params, ...keyParams, limit);
  const total =
    after === null
      ? (prepare(`SELECT count(*) FROM trades ${where}`)
          .pluck()
          .get(...params) as number)
      : null;
  return chunkOf(
    rows,
    limit,
    (t) => ({ createdAt: t.createdAt, id: t.tradeId }),
    (page) => csvLines(TRADE_COLUMNS, page),
    total,
  );
}

export function ledgerExportChunk(
  prepare: Prepare,
  query: LedgerQuery,
  after: ExportKey | null,
  limit: number,
): ExportChunk {
  checkChunkArgs(after, limit, 'number');
  const { where, params } = ledgerWhere(ledgerQuerySchema.parse(query));
  const keyParams = after === null ? [] : [after.createdAt, after.id];
  const rows = prepare<unknown[], BalanceTransaction>(
    `SELECT ${LEDGER_FIELDS.join(', ')} FROM ledger ${afterKey(where, 'id', after)} ORDER BY createdAt DESC, id DESC LIMIT ?`,
  ).all(...params, ...keyParams, limit);
  const total =
    after === null
      ? (prepare(`SELECT count(*) FROM ledger ${where}`)
          .pluck()
          .get(...params) as number)
      : null;
  return chunkOf(
    rows,
    limit,
    (e) => ({ createdAt: e.createdAt, id: e.id }),
    (page) => csvLines(LEDGER_COLUMNS, page),
    total,
  );
}
