import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEnvelope } from '../../src/shared/api';
import { LocalStore } from '../../src/main/core/store';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { adminApi, merchantApi, type MerchantCredentials } from '../support/sandboxHttp';
import { bundleForNode, type Bundles, STORE_WORKER_SOURCE } from '../support/bundle';
import { waitFor } from '../support/waitFor';

/**
 * The app killed with SIGKILL in the middle of its writes. A child process
 * (test/support/faults/crashWriter.ts) opens a LocalStore and writes without
 * end, printing each write it has seen committed; the parent kills it at a
 * random moment (fast-check, fixed seed), then opens the file read-only with
 * better-sqlite3 (integrity_check, every committed write present, the write in
 * flight all-or-nothing) and with LocalStore.open (migrates, reads, writes).
 * The next child continues on the same file, so later kills also hit a file
 * that was recovered from an earlier one.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const WRITER = join(ROOT, 'test/support/faults/crashWriter.ts');
const ALL_KINDS = ['items', 'trades', 'ledger', 'catalog', 'mixed'] as const;
type Kind = (typeof ALL_KINDS)[number];
/** CRASH_KINDS=trades,ledger runs a subset (debugging). */
const KINDS: readonly Kind[] = process.env.CRASH_KINDS ? (process.env.CRASH_KINDS.split(',') as Kind[]) : ALL_KINDS;
const DEBUG = process.env.CRASH_DEBUG === '1';
const KILLS_PER_KIND = 10;
const CATALOG_ITEMS = 10_000;
const MARKER_COUNT = 20;
const SEED = Number(process.env.CRASH_SEED ?? 20_260_521);
/** Children running at once (2 cores: the parent serves their catalog downloads too). */
const PARALLEL = 3;

/** Kill delays after the child reported `ready`, per kind: short ones hit the first writes, long ones a sync's apply phase. */
const DELAYS: Record<Kind, number[]> = Object.fromEntries(
  ALL_KINDS.map((kind, index) => [
    kind,
    fc.sample(fc.noBias(fc.integer({ min: 5, max: kind === 'catalog' || kind === 'mixed' ? 2200 : 900 })), {
      seed: SEED + index,
      numRuns: KILLS_PER_KIND,
    }),
  ]),
) as Record<Kind, number[]>;

interface Line {
  t: 'ready' | 'begin' | 'commit' | 'note';
  op?: string;
  j?: number;
  [key: string]: unknown;
}

interface KillReport {
  kind: Kind;
  run: number;
  delayMs: number;
  commits: number;
  inFlight: string | null;
}

/** What every earlier run of a kind committed: it must all still be there. */
interface History {
  itemPrice: Map<number, number>;
  trades: Map<string, number>;
  ledgerIds: Set<number>;
  markerPrice: number;
  synced: boolean;
}

const RANK: Record<string, number> = {
  PENDING: 0,
  CREATING: 0,
  SENT: 1,
  COMPLETED: 2,
  CANCELLED: 2,
  FAILED: 2,
  EXPIRED: 2,
  REJECTED: 2,
  REVERSED: 3,
};

class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

describe('crash consistency: SIGKILL during catalog, trade and ledger writes', () => {
  let sb: Sandbox;
  let dir: string;
  let markers: number[];
  let markerGeneration = 0;
  let repricer: NodeJS.Timeout;
  let worker: Bundles<'storeWorker'>;
  const reports: KillReport[] = [];
  const semaphore = new Semaphore(PARALLEL);

  beforeAll(async () => {
    worker = await bundleForNode({ storeWorker: STORE_WORKER_SOURCE });
    sb = await startSandbox({ items: CATALOG_ITEMS, seed: 5 });
    dir = mkdtempSync(join(tmpdir(), 'crash-consistency-'));
    const ids = sb.core.db
      .prepare('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id LIMIT 400')
      .pluck()
      .all() as number[];
    markers = ids.slice(0, MARKER_COUNT);
    // Real items for the item writer, as the API returns them.
    const reader = await adminApi(sb).createMerchant({ balance: 0 });
    const found = await merchantApi(sb, reader).post<CatalogEnvelope>('/Items/SearchItems', { itemId: ids });
    expect(found.status).toBe(200);
    writeFileSync(join(dir, 'items.json'), JSON.stringify(found.body.items));
    // The markers move together in one sandbox transaction, so any one catalog download holds them at one price.
    repricer = setInterval(() => {
      markerGeneration++;
      sb.core.catalog.reprice(markers.map((itemId) => ({ itemId, price: 100_000 + markerGeneration })));
    }, 25);
  }, 60_000);

  afterAll(async () => {
    clearInterval(repricer);
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
    worker?.dispose();
    if (reports.length > 0) {
      const committed = reports.reduce((sum, r) => sum + r.commits, 0);
      const inFlight = reports.filter((r) => r.inFlight !== null).length;
      const applying = reports.filter((r) => r.inFlight?.includes('(applying)')).length;
      const receiving = reports.filter((r) => r.inFlight?.includes('(receiving)')).length;
      process.stdout.write(
        `crash-consistency: ${reports.length} kill points (seed ${SEED}), ${committed} committed writes checked, ` +
          `${inFlight} kills with a write in flight (catalog sync: ${receiving} while receiving, ${applying} while applying)\n`,
      );
    }
  });

  /**
   * One child: spawned, killed `delayMs` after it reported ready, its stdout lines returned.
   * Its stdout is a FILE, not a pipe: Node writes to a file synchronously, while a pipe
   * (a socket pair) is written asynchronously and a kill would drop lines still queued in
   * the child, making committed writes look unreported.
   */
  async function killDuring(
    kind: Kind,
    file: string,
    run: number,
    delayMs: number,
    merchant: MerchantCredentials | null,
    after: 'ready' | 'applying' = 'ready',
  ): Promise<Line[]> {
    const outFile = `${file}.run${run}.out`;
    const fd = openSync(outFile, 'w');
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, kind, file, String(run)], {
      cwd: ROOT,
      stdio: ['ignore', fd, 'pipe'],
      env: {
        ...process.env,
        CRASH_BASE_URL: sb.baseUrl,
        CRASH_MERCHANT_ID: merchant?.merchantId ?? '',
        CRASH_API_KEY: merchant?.apiKey ?? '',
        CRASH_ITEMS_FILE: join(dir, 'items.json'),
        CRASH_MARKERS: markers.join(','),
        CRASH_WORKER_ENTRY: worker.files.storeWorker.href,
      },
    });
    closeSync(fd);
    let stderr = '';
    const errors = child.stderr;
    if (!errors) throw new Error('no stderr pipe');
    errors.setEncoding('utf8');
    errors.on('data', (chunk: string) => (stderr += chunk));
    let exitStatus: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve((exitStatus = { code, signal }))),
    );
    const mark = after === 'ready' ? '"t":"ready"' : '"phase":"applying"';
    await waitFor(
      () => {
        if (exitStatus) throw new Error(`writer exited by itself (${JSON.stringify(exitStatus)})`);
        return readFileSync(outFile, 'utf8').includes(mark);
      },
      30_000,
      `the writer to reach ${after}`,
      10,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${stderr.slice(-2000)}`);
    });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (exitStatus) throw new Error(`writer exited by itself (${JSON.stringify(exitStatus)}): ${stderr.slice(-2000)}`);
    child.kill('SIGKILL');
    const status = await exited;
    expect(status.signal, stderr.slice(-2000)).toBe('SIGKILL');
    const lines: Line[] = [];
    for (const text of readFileSync(outFile, 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      try {
        lines.push(JSON.parse(text) as Line);
      } catch {
        // A line cut by the kill reported nothing.
      }
    }
    rmSync(outFile, { force: true });
    return lines;
  }

  function verifyReadOnly(kind: Kind, file: string, run: number, lines: Line[], history: History): string | null {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      const begun = lines.filter((l) => l.t === 'begin');
      // One round can move the same trade twice (PENDING -> SENT -> COMPLETED): the status is part of a write's key.
      const writeKey = (l: Line) => `${l.op}:${l.j}:${String(l.tradeId ?? '')}:${String(l.status ?? '')}`;
      const committedKeys = new Set(lines.filter((l) => l.t === 'commit').map(writeKey));
      const inFlight = begun.filter((l) => !committedKeys.has(writeKey(l)));
      // Writes run one at a time per loop: at most one in flight per loop (mixed runs three loops).
      expect(inFlight.length).toBeLessThanOrEqual(kind === 'mixed' ? 3 : 1);
      const isCommitted = (l: Line) => committedKeys.has(writeKey(l));

      // ---- items: every committed price (or a later one) is there; the write in flight is all or nothing.
      if (kind === 'items') {
        const maxBegun = new Map<number, number>();
        for (const l of begun) {
          for (const id of l.ids as number[]) {
            const price = l.price as number;
            maxBegun.set(id, Math.max(maxBegun.get(id) ?? 0, price));
            if (isCommitted(l)) history.itemPrice.set(id, Math.max(history.itemPrice.get(id) ?? 0, price));
          }
        }
        const stored = new Map(
          (
            db.prepare('SELECT itemId, price FROM items WHERE removed_at IS NULL').all() as {
              itemId: number;
              price: number;
            }[]
          ).map((r) => [r.itemId, r.price]),
        );
        // Each item holds its last committed price or the price of a later write: never older, never one nobody wrote.
        const wrong = [...history.itemPrice].filter(([id, price]) => {
          const now = stored.get(id) ?? -1;
          return now < price || now > Math.max(maxBegun.get(id) ?? 0, price);
        });
        expect(wrong.map(([id, price]) => `item ${id}: committed ${price}, stored ${stored.get(id)}`)).toEqual([]);
        for (const l of inFlight) {
          const ids = l.ids as number[];
          const applied = ids.filter((id) => stored.get(id) === l.price).length;
          expect([0, ids.length], `write ${l.op} ${l.j} half applied`).toContain(applied);
          // It committed just before the kill: from now on it counts as committed.
          if (applied > 0)
            for (const id of ids)
              history.itemPrice.set(id, Math.max(history.itemPrice.get(id) ?? 0, l.price as number));
        }
      }

      // ---- trades: committed batches and status moves are there; a batch in flight is all or nothing.
      if (kind === 'trades' || kind === 'mixed') {
        for (const l of begun.filter((x) => x.op === 'trades' && isCommitted(x)))
          for (const id of l.ids as string[]) history.trades.set(id, 0);
        for (const l of begun.filter((x) => x.op === 'update' && isCommitted(x))) {
          const id = l.tradeId as string;
          history.trades.set(id, Math.max(history.trades.get(id) ?? 0, RANK[l.status as string] as number));
        }
        const stored = new Map(
          (
            db.prepare('SELECT tradeId, status, status_rank FROM trades').all() as {
              tradeId: string;
              status: string;
              status_rank: number;
            }[]
          ).map((r) => [r.tradeId, r]),
        );
        const wrong = [...history.trades].filter(([id, rank]) => {
          const row = stored.get(id);
          return !row || (RANK[row.status] as number) < rank || row.status_rank !== RANK[row.status];
        });
        expect(
          wrong.map(
            ([id, rank]) => `trade ${id}: committed rank ${rank}, stored ${JSON.stringify(stored.get(id) ?? null)}`,
          ),
        ).toEqual([]);
        for (const l of inFlight.filter((x) => x.op === 'trades')) {
          const present = (l.ids as string[]).filter((id) => stored.has(id)).length;
          expect([0, (l.ids as string[]).length], `trade batch ${l.j} half applied`).toContain(present);
          if (present > 0) for (const id of l.ids as string[]) history.trades.set(id, history.trades.get(id) ?? 0);
        }
        // A status and its timeline entry are written in one transaction.
        const orphaned = db
          .prepare(
            'SELECT count(*) FROM trades t WHERE NOT EXISTS (SELECT 1 FROM trade_timeline l WHERE l.tradeId = t.tradeId AND l.status = t.status)',
          )
          .pluck()
          .get() as number;
        expect(orphaned).toBe(0);
      }

      // ---- ledger: committed entries are there; a batch (or synced page) in flight is all or nothing.
      if (kind === 'ledger' || kind === 'mixed') {
        const ledgerIds = new Set(db.prepare('SELECT id FROM ledger').pluck().all() as number[]);
        const idsOf = (l: Line): number[] =>
          l.op === 'ledger'
            ? Array.from({ length: l.count as number }, (_, k) => (l.first as number) + k)
            : (l.ids as number[]);
        for (const l of begun.filter((x) => (x.op === 'ledger' || x.op === 'ledgerSync') && isCommitted(x)))
          for (const id of idsOf(l)) history.ledgerIds.add(id);
        expect(
          [...history.ledgerIds].filter((id) => !ledgerIds.has(id)),
          'committed ledger entries missing',
        ).toEqual([]);
        for (const l of inFlight.filter((x) => x.op === 'ledger' || x.op === 'ledgerSync')) {
          const ids = idsOf(l);
          const fresh = ids.filter((id) => !history.ledgerIds.has(id));
          const present = fresh.filter((id) => ledgerIds.has(id)).length;
          expect([0, fresh.length], `ledger batch ${l.j} half applied`).toContain(present);
          if (present > 0) for (const id of fresh) history.ledgerIds.add(id);
        }
        if (kind === 'ledger') {
          // Nothing but what was written: the row count is exactly the committed entries plus a whole batch in flight, if any.
          expect(ledgerIds.size).toBe(history.ledgerIds.size);
        }
      }

      // ---- catalog: a sync replaces the list whole: every marker at one price, all items or the previous list.
      if (kind === 'catalog' || kind === 'mixed') {
        const count = db.prepare('SELECT count(*) FROM items WHERE removed_at IS NULL').pluck().get() as number;
        const prices = db
          .prepare(`SELECT price FROM items WHERE removed_at IS NULL AND itemId IN (${markers.join(',')})`)
          .pluck()
          .all() as number[];
        const committedSyncs = lines.filter((l) => l.t === 'commit' && l.op === 'sync');
        if (committedSyncs.length > 0) history.synced = true;
        for (const l of committedSyncs) history.markerPrice = Math.max(history.markerPrice, l.markerPrice as number);
        if (history.synced) {
          expect(count).toBe(CATALOG_ITEMS);
          expect(new Set(prices).size, `marker prices ${prices.join(',')}`).toBe(1);
          expect(prices[0]).toBeGreaterThanOrEqual(history.markerPrice);
        } else {
          // No sync ever committed in this file; a sync in flight at the kill either landed whole or not at all.
          expect([0, CATALOG_ITEMS]).toContain(count);
          if (count > 0) {
            expect(new Set(prices).size).toBe(1);
            history.synced = true;
          }
        }
      }
      void run;
      const last = inFlight[0];
      if (!last) return null;
      // For a sync in flight, the phase it was in (the child notes each phase as it starts).
      const phase = [...lines]
        .reverse()
        .find((l) => l.t === 'note' && l.op === 'sync' && l.j === last.j && typeof l.phase === 'string');
      return `${last.op} ${last.j}${last.op === 'sync' && phase ? ` (${String(phase.phase)})` : ''}`;
    } finally {
      db.close();
    }
  }

  async function verifyReopen(kind: Kind, file: string, run: number, history: History): Promise<void> {
    const store = await LocalStore.open({ file, workerEntry: worker.files.storeWorker });
    try {
      const info = await store.catalogInfo();
      if (kind === 'catalog' || kind === 'mixed') expect(info.totalItems).toBe(history.synced ? CATALOG_ITEMS : 0);
      // The whole pool once the first run's first write committed; none if the kill came before it (a loaded machine).
      if (kind === 'items') {
        expect([0, 400]).toContain(history.itemPrice.size);
        expect(info.totalItems).toBe(history.itemPrice.size);
      }
      if (kind === 'trades' || kind === 'mixed')
        expect((await store.queryTrades({ limit: 1 })).total).toBe(history.trades.size);
      if (kind === 'ledger') expect((await store.queryLedger({ limit: 1 })).total).toBe(history.ledgerIds.size);
      // Usable: a write and its read-back.
      await store.setMeta('crash-check', { run });
      expect(await store.getMeta('crash-check')).toEqual({ run });
    } finally {
      await store.close();
    }
  }

  async function merchantFor(kind: Kind): Promise<MerchantCredentials | null> {
    if (kind !== 'catalog' && kind !== 'mixed') return null;
    // A fresh merchant per child: 10 catalog downloads a minute each.
    const merchant = await adminApi(sb).createMerchant({ balance: 0 });
    if (kind === 'mixed') {
      // Something new for the child's ledger sync to fetch: 250 entries (3 pages).
      sb.core.db.transaction(() => {
        for (let i = 0; i < 250; i++)
          sb.core.ledger.post(merchant.merchantId, { type: 'CRYPTO DEPOSIT', amount: 100 + i, note: `deposit ${i}` });
      })();
    }
    return merchant;
  }

  it.concurrent.each(KINDS.map((kind) => [kind]))(
    '%s: 10 random kill points, nothing committed lost, nothing half-written, file reopens',
    async (kind) => {
      const file = join(dir, `${kind}.sqlite`);
      const history: History = {
        itemPrice: new Map(),
        trades: new Map(),
        ledgerIds: new Set(),
        markerPrice: 0,
        synced: false,
      };
      for (let run = 1; run <= KILLS_PER_KIND; run++) {
        // Half of the catalog kills aim at the sync's one big transaction: a random 0-50 ms after it starts applying.
        const aimAtApply = kind === 'catalog' && run % 2 === 0;
        const delayMs = aimAtApply ? (DELAYS[kind][run - 1] as number) % 50 : (DELAYS[kind][run - 1] as number);
        await semaphore.run(async () => {
          const started = Date.now();
          const merchant = await merchantFor(kind);
          const lines = await killDuring(kind, file, run, delayMs, merchant, aimAtApply ? 'applying' : 'ready');
          const killed = Date.now();
          const inFlight = verifyReadOnly(kind, file, run, lines, history);
          const checked = Date.now();
          await verifyReopen(kind, file, run, history);
          if (DEBUG) {
            process.stderr.write(
              `${kind} run ${run}: delay ${delayMs} ms, child ${killed - started} ms, checks ${checked - killed} + ${Date.now() - checked} ms, ${lines.length} lines, in flight ${inFlight}\n`,
            );
          }
          reports.push({ kind, run, delayMs, commits: lines.filter((l) => l.t === 'commit').length, inFlight });
        });
      }
      const mine = reports.filter((r) => r.kind === kind);
      expect(mine).toHaveLength(KILLS_PER_KIND);
      // The kills really landed during writes, not before the first one.
      expect(mine.filter((r) => r.commits > 0 || r.inFlight !== null).length).toBeGreaterThanOrEqual(
        KILLS_PER_KIND - 2,
      );
    },
    // The five kinds run at once and share the three child slots, so each one's time is nearly the whole file's:
    // ~80 s on a quiet 2-core machine, over 90 s beside the rest of the suite.
    240_000,
  );
});
