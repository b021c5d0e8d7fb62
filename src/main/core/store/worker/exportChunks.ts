/**
 * An export's chunks: pages by key, newest first as the screens show them (createdAt DESC, then the id DESC, the
 * trades_created and ledger_created indexes read backwards), never by OFFSET, so each chunk costs the same however
 * far the export has gone. Read raw and formatted as CSV here, so one string crosses to the host instead of
 * thousands of objects.
 */
import {
  ledgerQuerySchema,
  tradeQuerySchema,
  type LedgerQuery,
  type TradeQuery,
} from '../../../../shared/ipc/contract';
import { type CsvColumns, csvLines, LEDGER_COLUMNS, TRADE_COLUMNS } from '../../export/columns';
import type { ExportChunk, ExportKey } from '../types';
import type { Prepare } from './open';
import { ledgerWhere, tradeWhere } from './recordsReader';

/** The most rows one chunk may ask for: the reader answers the UI's other queries between chunks. */
export const MAX_EXPORT_CHUNK = 10_000;

type Cell = string | number | null;

interface ExportTable {
  table: string;
  id: string;
  idType: 'string' | 'number';
  columns: CsvColumns;
}

const TRADES: ExportTable = { table: 'trades', id: 'tradeId', idType: 'string', columns: TRADE_COLUMNS };
const LEDGER: ExportTable = { table: 'ledger', id: 'id', idType: 'number', columns: LEDGER_COLUMNS };

function chunk(
  prepare: Prepare,
  { table, id, idType, columns }: ExportTable,
  { where, params }: { where: string; params: unknown[] },
  after: ExportKey | null,
  limit: number,
): ExportChunk {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_EXPORT_CHUNK)
    throw new RangeError(`an export chunk is 1 to ${MAX_EXPORT_CHUNK} rows, not ${String(limit)}`);
  if (after !== null && (typeof after.createdAt !== 'string' || typeof after.id !== idType))
    throw new RangeError('an export chunk starts after a { createdAt, id } key');
  const keyset = `(createdAt, ${id}) < (?, ?)`;
  const filtered = after === null ? where : where === '' ? `WHERE ${keyset}` : `${where} AND ${keyset}`;
  const rows = prepare<unknown[], Cell[]>(
    `SELECT ${columns.names.join(', ')} FROM ${table} ${filtered} ORDER BY createdAt DESC, ${id} DESC LIMIT ?`,
  )
    .raw()
    .all(...params, ...(after === null ? [] : [after.createdAt, after.id]), limit);
  const last = rows.at(-1);
  const at = (name: string) => columns.names.indexOf(name);
  return {
    csv: csvLines(columns, rows),
    rows: rows.length,
    next:
      rows.length === limit && last
        ? { createdAt: last[at('createdAt')] as string, id: last[at(id)] as string | number }
        : null,
    total:
      after === null
        ? (prepare(`SELECT count(*) FROM ${table} ${where}`)
            .pluck()
            .get(...params) as number)
        : null,
  };
}

export function tradeExportChunk(
  prepare: Prepare,
  query: TradeQuery,
  after: ExportKey | null,
  limit: number,
): ExportChunk {
  return chunk(prepare, TRADES, tradeWhere(tradeQuerySchema.parse(query)), after, limit);
}

export function ledgerExportChunk(
  prepare: Prepare,
  query: LedgerQuery,
  after: ExportKey | null,
  limit: number,
): ExportChunk {
  return chunk(prepare, LEDGER, ledgerWhere(ledgerQuerySchema.parse(query)), after, limit);
}
