// CSV exports of a large cached history: the engine writes the file itself, in chunks read by key in the screen's
// order, while the store's reader goes on answering the UI; a cancelled export leaves no file, a bad filter none
// either. Real store files (tens of thousands of rows written straight into the account's cache), a real engine.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExportStatus, IpcMethod, IpcResult } from '../../src/shared/ipc';
import { Engine } from '../../src/main/core/engine/engine';
import { LEDGER_COLUMNS, TRADE_COLUMNS, type CsvColumns } from '../../src/main/core/export/columns';
import { centsToDecimal, toCsv } from '../../src/main/core/export/csv';
import { EXPORT_CHUNK_ROWS } from '../../src/main/core/export/exportJobs';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { MemorySecretStore } from '../../src/main/core/secrets';
import type { BalanceTransaction, Trade } from '../../src/shared/api';
import { cacheHistory, screenOrder } from '../support/cachedHistory';
import { waitFor } from '../support/waitFor';

const MERCHANT = 'busy-export';
const TRADES = 60_000;
const LEDGER = 9_000;

describe('CSV exports stream to a file in the engine', () => {
  let dataDir: string;
  let engine: Engine;
  let history: { trades: Trade[]; ledger: BalanceTransaction[] };
  /** Every `exports` list the engine announced, in order. */
  const announced: ExportStatus[][] = [];
  const exportsDir = () => join(dataDir, 'exports');

  async function call<M extends IpcMethod>(method: M, input: unknown = {}): Promise<IpcResult<M>> {
    const answer = await dispatchIpc(engine, method, input);
    if (!answer.ok) throw new Error(`${method}: ${answer.error.code}: ${answer.error.message}`);
    return answer.value as IpcResult<M>;
  }

  const latest = (id: string) =>
    announced
      .flat()
      .filter((e) => e.id === id)
      .at(-1);
  const ended = (id: string) =>
    waitFor(() => latest(id)?.state !== 'running' && latest(id) !== undefined, 60_000, 'export ended');

  /** The CSV of `rows` as one string built cell by cell in JS (toCsv, centsToDecimal): what the file must hold. */
  function expectedCsv<R extends object>(columns: CsvColumns, rows: R[]): string {
    return toCsv(
      columns.names,
      rows.map((row) =>
        columns.names.map((name) => {
          const value = (row as Record<string, string | number | null>)[name] ?? null;
          return columns.money.includes(name) ? centsToDecimal(value as number) : value;
        }),
      ),
    );
  }

  /** The CSV's data lines' first cells (the row ids), after checking the header. */
  function idsOf(file: string, header: string): string[] {
    const lines = readFileSync(file, 'utf8').split('\r\n');
    expect(lines.shift()).toBe(header);
    expect(lines.pop()).toBe(''); // the last record ends with its CRLF
    return lines.map((line) => line.slice(0, line.indexOf(',')));
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'engine-export-'));
    history = await cacheHistory(dataDir, MERCHANT, { trades: TRADES, ledger: LEDGER });
    // The account's cache only (no key): nothing goes over the network, and the cache is what is exported.
    engine = new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo in this test')),
      override: { baseUrl: 'http://127.0.0.1:9', wsUrl: 'ws://127.0.0.1:9/ws', merchantId: MERCHANT, apiKey: null },
    });
    engine.subscribe((batch) => {
      if (batch.exports) announced.push(batch.exports);
    });
    await engine.start();
    expect((await call('trades.query', { limit: 1 })).total).toBe(TRADES);
  }, 120_000);

  afterAll(async () => {
    await engine?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes every trade once, in the screen order (ties on createdAt included), chunk by chunk, while the reader answers other queries', async () => {
    const started = await call('trades.exportCsv', {});
    expect(started).toMatchObject({ kind: 'trades', state: 'running', delivery: 'download' });
    const final = join(exportsDir(), started.filename);
    const temp = join(exportsDir(), `.${started.filename}.${started.id}.part`);

    // Once the export has written a chunk, the UI asks the reader for a page and a trade's detail.
    await waitFor(() => (latest(started.id)?.done ?? 0) > 0, 60_000, 'a first chunk written');
    const seen = latest(started.id) as ExportStatus;
    expect(seen.state).toBe('running');
    let fileWhenAnswered: { temp: boolean; final: boolean } | null = null;
    const [page, detail] = await Promise.all([
      call('trades.query', { offset: 100, limit: 50 }).then((answer) => {
        // Ordering: the reader serves the page before the export's later chunks (one queue, chunks asked one by one).
        fileWhenAnswered = { temp: existsSync(temp), final: existsSync(final) };
        return answer;
      }),
      call('trades.get', { tradeId: history.trades[5]?.tradeId }),
    ]);
    expect(page.rows).toHaveLength(50);
    expect(detail?.trade.tradeId).toBe(history.trades[5]?.tradeId);
    expect(fileWhenAnswered).toEqual({ temp: true, final: false });

    await ended(started.id);
    const done = latest(started.id) as ExportStatus;
    expect(done).toMatchObject({ state: 'done', done: TRADES, total: TRADES, error: null });
    expect(existsSync(temp)).toBe(false);
    const ids = idsOf(
      final,
      'tradeId,externalId,status,price,itemId,assetId,offerId,market_hash_name,phase,float,webhookStatus,errorCode,failReason,createdAt,updatedAt,completedAt,cancelledAt,endProtection,rollbackAt,stage',
    );
    expect(new Set(ids).size).toBe(TRADES); // none twice
    const wanted = screenOrder(history.trades, (t) => t.tradeId);
    expect(ids).toEqual(wanted.map((t) => t.tradeId)); // none missing, in order
    // Every cell as the reference writes it: quoted, defused, decimals, empty for null.
    expect(readFileSync(final, 'utf8')).toBe(expectedCsv(TRADE_COLUMNS, wanted));
    // Progress came chunk by chunk: counts of whole chunks on the way.
    const progress = [
      ...new Set(
        announced
          .flat()
          .filter((e) => e.id === started.id)
          .map((e) => e.done),
      ),
    ];
    expect(progress.length).toBeGreaterThan(2);
    for (const count of progress.slice(0, -1)) expect(count % EXPORT_CHUNK_ROWS).toBe(0);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    // The web host serves it by id from the engine's private exports folder.
    expect(engine.exportFile(started.id)).toEqual({ path: final, filename: started.filename });
  }, 120_000);

  it('exports the ledger matching its filter the same way', async () => {
    const from = history.ledger[LEDGER - 1000]?.createdAt as string;
    const started = await call('wallet.exportCsv', { from });
    await ended(started.id);
    const wanted = screenOrder(
      history.ledger.filter((e) => e.createdAt >= from),
      (e) => e.id,
    );
    expect(latest(started.id)).toMatchObject({ state: 'done', done: wanted.length, total: wanted.length });
    const ids = idsOf(
      join(exportsDir(), started.filename),
      'id,createdAt,type,amount,balanceBefore,balanceAfter,tradeId,market_hash_name,phase,note',
    );
    expect(ids).toEqual(wanted.map((e) => String(e.id)));
    expect(readFileSync(join(exportsDir(), started.filename), 'utf8')).toBe(expectedCsv(LEDGER_COLUMNS, wanted));
  }, 60_000);

  it('a cancelled export leaves no file, neither under its name nor half written', async () => {
    const before = readdirSync(exportsDir());
    const started = await call('trades.exportCsv', {});
    await waitFor(() => (latest(started.id)?.done ?? 0) > 0, 60_000, 'a first chunk written');
    expect(await call('exports.cancel', { id: started.id })).toEqual({ cancelled: true });
    await ended(started.id);
    const last = latest(started.id) as ExportStatus;
    expect(last.state).toBe('cancelled');
    expect(last.done).toBeLessThan(TRADES);
    expect(readdirSync(exportsDir())).toEqual(before);
    expect(engine.exportFile(started.id)).toBeNull();
    expect(await call('exports.cancel', { id: started.id })).toEqual({ cancelled: false });
  }, 60_000);

  it('a filter that fails validation gets a clear error and writes nothing', async () => {
    const before = readdirSync(exportsDir());
    const listed = (await call('app.snapshot')).exports?.length;
    const answer = await dispatchIpc(engine, 'trades.exportCsv', { from: 'yesterday' });
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(answer.error.code).toBe('invalid_input');
    expect(answer.error.message).toMatch(/^trades\.exportCsv: .*from/);
    const ledger = await dispatchIpc(engine, 'wallet.exportCsv', { types: ['NOPE'] });
    expect(ledger).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(readdirSync(exportsDir())).toEqual(before);
    expect((await call('app.snapshot')).exports?.length).toBe(listed);
    // An unknown export: nothing to cancel, nothing to show.
    expect(await call('exports.cancel', { id: 'no-such-export' })).toEqual({ cancelled: false });
    expect(await dispatchIpc(engine, 'exports.reveal', { id: 'no-such-export' })).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
  });
});
