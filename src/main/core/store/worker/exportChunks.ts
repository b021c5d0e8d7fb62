/**
 * An export's chunks: pages by key, newest first as the screens show them (createdAt DESC, then the id DESC, the
 * trades_order and ledger_created indexes read backwards), never by OFFSET, so each chunk costs the same however
 * far the export has gone. Formatted as CSV here, so one string crosses to the host instead of thousands of objects:
 * SQLite writes the plain columns (columns.ts), a run of them as one value; the others are quoted in JS (csvField).
 */
import {
  ledgerQuerySchema,
  tradeQuerySchema,
  type LedgerQuery,
  type TradeQuery,
} from '../../../../shared/ipc/contract';
import { type CsvColumns, LEDGER_COLUMNS, TRADE_COLUMNS } from '../../export/columns';
import { csvField } from '../../export/csv';
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
  /** The SELECT list: one value per text column or run of plain columns, then the row's key (createdAt, id). */
  select: string;
  /** Per value but the key's two: true when SQLite wrote it (as is), false when it is quoted here. */
  written: boolean[];
}

/** A plain column as CSV text in SQL: money as a decimal (centsToDecimal's), NULL as nothing. */
function plainSql(name: string, money: boolean): string {
  if (!money) return `IFNULL(${name}, '')`;
  const abs = `abs(${name})`;
  return `(CASE WHEN ${name} < 0 THEN '-' ELSE '' END || (${abs} / 100) || '.' || substr('0' || (${abs} % 100), -2))`;
}

function exportTable(table: string, id: string, idType: ExportTable['idType'], columns: CsvColumns): ExportTable {
  const values: string[] = [];
  const written: boolean[] = [];
  let run: string[] = [];
  const endRun = () => {
    if (run.length === 0) return;
    values.push(run.join(` || ',' || `));
    written.push(true);
    run = [];
  };
  for (const name of columns.names) {
    if (columns.plain.includes(name)) run.push(plainSql(name, columns.money.includes(name)));
    else {
      endRun();
      values.push(name);
      written.push(false);
    }
  }
  endRun();
  return { table, id, idType, select: [...values, 'createdAt', id].join(', '), written };
}

const TRADES = exportTable('trades', 'tradeId', 'string', TRADE_COLUMNS);
const LEDGER = exportTable('ledger', 'id', 'number', LEDGER_COLUMNS);

function chunk(
  prepare: Prepare,
  { table, id, idType, select, written }: ExportTable,
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
    `SELECT ${select} FROM ${table} ${filtered} ORDER BY createdAt DESC, ${id} DESC LIMIT ?`,
  )
    .raw()
    .all(...params, ...(after === null ? [] : [after.createdAt, after.id]), limit);
  let csv = '';
  for (const row of rows) {
    let line = '';
    for (let i = 0; i < written.length; i++) {
      const value = row[i] as Cell;
      line += (i === 0 ? '' : ',') + (written[i] ? (value as string) : csvField(value));
    }
    csv += `${line}\r\n`;
  }
  const last = rows.at(-1);
  const n = written.length;
  return {
    csv,
    rows: rows.length,
    next: rows.length === limit && last ? { createdAt: last[n] as string, id: last[n + 1] as string | number } : null,
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
