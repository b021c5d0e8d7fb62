// The store's reader writes an export's CSV chunks (SQLite writes the plain cells, JS the others): every cell must be what csvField writes for it, byte for byte, on a real store file, for the
// text a spreadsheet or a CSV reader trips on. Each tricky text goes into every text column of a trade and the ledger.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BalanceTransaction, Trade } from '../../src/shared/api';
import { LEDGER_COLUMNS, TRADE_COLUMNS, type CsvColumns } from '../../src/main/core/export/columns';
import { centsToDecimal, csvLine } from '../../src/main/core/export/csv';
import { LocalStore } from '../../src/main/core/store';
import type { ExportChunk, ExportKey } from '../../src/main/core/store/types';
import { trade } from '../renderer/fixtures';
import { screenOrder } from '../support/cachedHistory';

/** Texts whose CSV cell differs from the text, or nearly does; with what csvField makes of each. */
const TRICKY: [text: string, cell: string][] = [
  ['', ''],
  ['plain', 'plain'],
  ['a,b', '"a,b"'],
  ['say "hi"', '"say ""hi"""'],
  ['"', '""""'],
  ['line\nbreak', '"line\nbreak"'],
  ['cr\rhere', '"cr\rhere"'],
  ['crlf\r\n', '"crlf\r\n"'],
  ['=SUM(A1)', "'=SUM(A1)"],
  ['=HYPERLINK("x",1)', '"\'=HYPERLINK(""x"",1)"'],
  ['+1', "'+1"],
  ['@SUM(A1), "x"', '"\'@SUM(A1), ""x"""'],
  ['\t=1', "'\t=1"],
  ['\r=1+1', '"\'\r=1+1"'],
  ['\r\n@x', '"\'\r\n@x"'],
  [' =1', ' =1'],
  ['a=b', 'a=b'],
  ['AK-47\t| Redline', 'AK-47\t| Redline'],
  // A leading minus: a plain negative decimal stays a number; anything else is defused.
  ['-15.00', '-15.00'],
  ['-5', '-5'],
  ['-0', '-0'],
  ['-', "'-"],
  ['-1.', "'-1."],
  ['-.5', "'-.5"],
  ['-1.2.3', "'-1.2.3"],
  ['-1+2', "'-1+2"],
  ['-1e5', "'-1e5"],
  ['-A1', "'-A1"],
  ['-1,5', '"\'-1,5"'],
  ['-1\n', '"\'-1\n"'],
  ['-١٢', "'-١٢"],
  // Unicode: as it is (a fullwidth = is no formula).
  ['StatTrak™ ★ Karambit | Fade (Factory New) 🔥', 'StatTrak™ ★ Karambit | Fade (Factory New) 🔥'],
  ['＝1+1', '＝1+1'],
  ['Ünïcödé, "quoted"', '"Ünïcödé, ""quoted"""'],
  ['ー', 'ー'],
];

const TRADE_TEXT = ['externalId', 'assetId', 'offerId', 'market_hash_name', 'phase', 'failReason'] as const;
const AT = Date.UTC(2026, 5, 1, 12, 0, 0);

/** Trade i carries TRICKY[i] in every text column (its id too, after a prefix that keeps ids unique). */
function trickyTrade(i: number, text: string): Trade {
  const at = new Date(AT - Math.floor(i / 3) * 1000).toISOString();
  const cells = Object.fromEntries(TRADE_TEXT.map((name) => [name, text]));
  return trade(`${text}#${i}`, 'FAILED', {
    ...cells,
    float: i % 2 === 0 ? null : 0.1 + i / 7,
    price: i % 5 === 0 ? 0 : 12_345 + i,
    errorCode: i % 2 === 0 ? 504 : null,
    createdAt: at,
    updatedAt: at,
    cancelledAt: at,
  });
}

function trickyEntry(i: number, text: string): BalanceTransaction {
  return {
    id: i + 1,
    type: 'ADMIN DEDUCT',
    amount: -(i * 101),
    balanceBefore: 100_000,
    balanceAfter: 100_000 - i * 101,
    tradeId: text,
    note: text,
    createdAt: new Date(AT - Math.floor(i / 3) * 1000).toISOString(),
    market_hash_name: text,
    phase: i % 2 === 0 ? null : text,
  };
}

/** The CSV body of `rows` as csvField writes it cell by cell in JS (money through centsToDecimal). */
function reference<R extends object>(columns: CsvColumns, rows: R[]): string {
  return rows
    .map((row) =>
      csvLine(
        columns.names.map((name) => {
          const value = (row as Record<string, string | number | null>)[name] ?? null;
          return columns.money.includes(name) ? centsToDecimal(value as number) : value;
        }),
      ),
    )
    .join('');
}

/** Every chunk of an export, `limit` rows at a time, joined. */
async function exported(read: (after: ExportKey | null, limit: number) => Promise<ExportChunk>): Promise<string> {
  let csv = '';
  for (let after: ExportKey | null = null; ;) {
    const chunk = await read(after, 4);
    csv += chunk.csv;
    if (chunk.next === null) return csv;
    after = chunk.next;
  }
}

describe('export CSV cells written by the store', () => {
  let dir: string;
  let store: LocalStore;
  const file = () => join(dir, 'm.sqlite');
  const trades = TRICKY.map(([text], i) => trickyTrade(i, text));
  const ledger = TRICKY.map(([text], i) => trickyEntry(i, text));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'export-cells-'));
    store = await LocalStore.open({ file: file() });
    await store.upsertTrades(trades, 'poll');
    await store.insertLedger(ledger);
  });

  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the reference writes each tricky text as expected', () => {
    for (const [text, cell] of TRICKY) expect(csvLine([text])).toBe(`${cell}\r\n`);
  });

  it('writes every trade cell as csvField does, tricky text in each text column', async () => {
    const csv = await exported((after, limit) => store.exportTradesChunk({}, after, limit));
    expect(csv).toBe(
      reference(
        TRADE_COLUMNS,
        screenOrder(trades, (t) => t.tradeId),
      ),
    );
    // One row spelled out: the cells in column order.
    const i = TRICKY.findIndex(([text]) => text === '=HYPERLINK("x",1)');
    const cell = (TRICKY[i] as [string, string])[1];
    const row = csv.split('\r\n').find((line) => line.startsWith(`"'=HYPERLINK(""x"",1)#${i}"`));
    const at = trades[i]?.createdAt;
    expect(i).toBe(9);
    expect(row).toBe(
      `"'=HYPERLINK(""x"",1)#9",${cell},FAILED,123.54,1,${cell},${cell},${cell},${cell},${String(0.1 + 9 / 7)},,,${cell},${at},${at},,${at},,,1`,
    );
  });

  it('writes every ledger cell as csvField does, tricky text in each text column', async () => {
    const csv = await exported((after, limit) => store.exportLedgerChunk({}, after, limit));
    expect(csv).toBe(
      reference(
        LEDGER_COLUMNS,
        screenOrder(ledger, (e) => e.id),
      ),
    );
    const i = TRICKY.findIndex(([text]) => text === '-1,5');
    expect(i).toBe(28);
    const row = csv.split('\r\n').find((line) => line.startsWith('29,'));
    expect(row).toBe(`29,${ledger[i]?.createdAt},ADMIN DEDUCT,-28.28,1000.00,971.72,"'-1,5","'-1,5",,"'-1,5"`);
  });
});
