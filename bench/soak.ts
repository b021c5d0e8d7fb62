/**
 * Soak: the engine against a busy sandbox for a long time, watching for leaks.
 *
 *   npm run bench -- soak                                        (30 minutes; bench/run.ts adds --expose-gc)
 *   node --expose-gc --import tsx bench/soak.ts [--minutes 30]   (the same by hand)
 *   npx tsx bench/soak.ts --minutes 1                            (smoke run; memory without a forced GC: no pass)
 *
 * The sandbox runs in its own process (`src/server/cli.ts --simulate --events-per-sec 50`: ten
 * times the default market, trades moving to outcomes by themselves), so this process holds only
 * the engine (its store workers included) and a small TCP relay in front of the sandbox. The engine
 * buys every few seconds, and the relay cuts every connection once a minute (the feed drops and
 * reconnects, REST calls in flight fail, the engine reconciles). Every 10 s it samples
 * `process.memoryUsage()` (after `global.gc()` when available), `process.getActiveResourcesInfo()`
 * and the account database: its file and WAL sizes, and what SQLite itself counts as data (the bytes in use
 * in its b-tree pages, `dbstat`) against free and unused space. After the warm-up (the first 20 % of the run)
 * the JS heap must stay within ±10 %, rss may grow only by what the store's SQLite caches and the growing
 * database file take (+10 %), the open handles must not grow, and the database may grow only by its data
 * (free and unused space, and the WAL, stay flat). Writes bench/results/soak.json.
 *
 * Options: --minutes N (default 30), --sample-seconds N (10), --buy-seconds N (4),
 * --reconnect-seconds N (60), --items N (the sandbox's catalog, 20000), --out FILE (bench/results/soak.json),
 * --heap-snapshots DIR (a V8 heap snapshot at the end of the warm-up and one at the end, to compare in Chrome
 * DevTools when the heap grows), --rejudge FILE (no run: the verdict of a results file computed again from its samples with the current
 * rule; the verdict it had is kept as `verdictAsRun`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import Database from 'better-sqlite3';
import { Engine } from '../src/main/core/engine/engine';
import { MemorySecretStore } from '../src/main/core/secrets';
import type { IpcMethod, IpcParsedInput, IpcResult } from '../src/shared/ipc';
import { IPC_METHODS } from '../src/shared/ipc';

const ROOT = resolve(import.meta.dirname, '..');
/** The simulator's default rate (`src/server/cli.ts --events-per-sec`, `startSandbox`'s `eventsPerSecond`). */
export const SIMULATOR_DEFAULT_EVENTS_PER_SECOND = 5;
/** The soak runs the market at ten times that. */
export const EVENTS_PER_SECOND = 10 * SIMULATOR_DEFAULT_EVENTS_PER_SECOND;
export const DEFAULT_MINUTES = 30;
export const DEFAULT_ITEMS = 20_000;
const WARMUP_SHARE = 0.2;
const MEMORY_TOLERANCE = 0.1;
/** Handles that come and go with in-flight work (a request, a timer) are not growth. */
const HANDLE_TOLERANCE = 3;
/**
 * The database may grow by its data only. SQLite's b-tree pages are between about half and completely full
 * (inserts in index order fill them, random-order inserts leave them ~70 % full, and the share of such
 * indexes grows as price history accumulates), so its pages may grow by up to this many bytes per byte of
 * data they hold; more means space not reused (bloat).
 */
const DB_PAGES_PER_DATA = 2;
/** Slack for the database rules (pages, free pages, WAL): 10 % of the first size or this, whichever is more. */
const DB_TOLERANCE_MIB = 4;
/**
 * What rss may legitimately gain as the account database grows: the store's SQLite page caches fill up to
 * their caps (writer 128 MiB, reader 64 MiB, worker/open.ts) and the reader's memory map covers the file.
 */
const SQLITE_CACHE_BUDGET_MIB = 128 + 64;

export interface Sample {
  /** Seconds since the engine started. */
  t: number;
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
  handles: number;
  handleTypes: Record<string, number>;
  dbBytes: number;
  walBytes: number;
  /** page_count × page_size of the account database as SQLite sees it (WAL included). */
  pageBytes: number;
  /** Bytes in use in its b-tree pages (dbstat: pgsize − unused): the data, indexes included. */
  dataBytes: number;
  /** Free pages (freelist_count × page_size). */
  freeBytes: number;
  /** Rows of the tables that grow with use (trades, ledger, price points, item changes, sold items, firings). */
  rows: number;
  connection: string;
  activeTrades: number;
  catalogItems: number;
  buys: number;
  reconnects: number;
  batches: number;
}

// ---- options

function readOptions() {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: String(DEFAULT_MINUTES) },
      'sample-seconds': { type: 'string', default: '10' },
      'buy-seconds': { type: 'string', default: '4' },
      'reconnect-seconds': { type: 'string', default: '60' },
      items: { type: 'string', default: String(DEFAULT_ITEMS) },
      out: { type: 'string', default: join(ROOT, 'bench', 'results', 'soak.json') },
      /** Writes a V8 heap snapshot at the end of the warm-up and at the end, to diff when the heap grows. */
      'heap-snapshots': { type: 'string' },
      rejudge: { type: 'string' },
    },
    strict: true,
  });
  const positive = (name: string, text: string | undefined): number => {
    const value = Number(text);
    if (!(value > 0) || !Number.isFinite(value)) throw new Error(`--${name} must be a positive number, got ${text}`);
    return value;
  };
  const minutes = positive('minutes', values.minutes);
  return {
    minutes,
    sampleMs: positive('sample-seconds', values['sample-seconds']) * 1000,
    buyMs: positive('buy-seconds', values['buy-seconds']) * 1000,
    reconnectMs: positive('reconnect-seconds', values['reconnect-seconds']) * 1000,
    items: Math.round(positive('items', values.items)),
    durationMs: minutes * 60_000,
    out: values.out as string,
    heapSnapshots: values['heap-snapshots'],
    rejudge: values.rejudge,
  };
}
const gc = (globalThis as { gc?: () => void }).gc;
const log = (line: string) => process.stderr.write(`soak: ${line}\n`);

// ---- the sandbox, in its own process

interface Ready {
  base_url: string;
  admin_token: string;
}

async function startSandboxProcess(dir: string, items: number): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/server/cli.ts',
      '--port',
      '0',
      '--db',
      join(dir, 'sandbox.sqlite'),
      '--items',
      String(items),
      '--seed',
      '7',
      '--simulate',
      '--events-per-sec',
      String(EVENTS_PER_SECOND),
      '--json',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = await new Promise<Ready>((resolveReady, reject) => {
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
    lines.once('line', (line) => resolveReady(JSON.parse(line) as Ready));
  });
  return { child, ready };
}

// ---- a relay that can cut every connection (the forced reconnects)

class Relay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private down = false;
  port = 0;

  constructor(private readonly targetPort: number) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (this.down) {
        client.destroy();
        return;
      }
      const upstream = connect(this.targetPort, '127.0.0.1');
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      this.sockets.add(client);
      this.sockets.add(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('error', close);
      upstream.on('error', close);
      client.on('close', close);
      upstream.on('close', close);
    });
    await new Promise<void>((done) => this.server?.listen(0, '127.0.0.1', done));
    this.port = (this.server?.address() as AddressInfo).port;
  }

  /** Drops every connection and refuses new ones for `ms`. */
  cut(ms: number): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    setTimeout(() => {
      this.down = false;
    }, ms);
  }

  async close(): Promise<void> {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((done) => (this.server ? this.server.close(() => done()) : done()));
  }
}

// ---- helpers

const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
export const median = (list: number[]): number => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0
    ? 0
    : sorted.length % 2
      ? (sorted[mid] as number)
      : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function fileSizes(dataDir: string): { dbBytes: number; walBytes: number } {
  let dbBytes = 0;
  let walBytes = 0;
  const dir = join(dataDir, 'accounts');
  for (const name of readdirSync(dir)) {
    const size = statSync(join(dir, name)).size;
    if (name.endsWith('.sqlite')) dbBytes += size;
    if (name.endsWith('-wal')) walBytes += size;
  }
  return { dbBytes, walBytes };
}

/** Tables that grow with use; their rows are "the data" in the report (a count, not the verdict's measure). */
const GROWING_TABLES = [
  'trades',
  'trade_timeline',
  'ledger',
  'price_history',
  'items',
  'alert_firings',
  'notifications',
];

/** What SQLite counts in the account database, read through a read-only connection of its own (WAL included). */
function databaseUsage(dataDir: string): { pageBytes: number; dataBytes: number; freeBytes: number; rows: number } {
  const dir = join(dataDir, 'accounts');
  const file = readdirSync(dir).find((name) => name.endsWith('.sqlite'));
  if (!file) return { pageBytes: 0, dataBytes: 0, freeBytes: 0, rows: 0 };
  const db = new Database(join(dir, file), { readonly: true, fileMustExist: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pageCount = db.pragma('page_count', { simple: true }) as number;
    const freePages = db.pragma('freelist_count', { simple: true }) as number;
    const dataBytes = (db.prepare('SELECT coalesce(sum(pgsize - unused), 0) FROM dbstat').pluck().get() as number) ?? 0;
    const tables = new Set(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[]);
    let rows = 0;
    for (const table of GROWING_TABLES)
      if (tables.has(table)) rows += db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number;
    return { pageBytes: pageSize * pageCount, dataBytes, freeBytes: pageSize * freePages, rows };
  } finally {
    db.close();
  }
}

/** Compares the first and the last quarter of the samples after the warm-up. */
export function flatness(
  samples: Sample[],
  pick: (s: Sample) => number,
): { first: number; last: number; change: number; min: number; max: number } {
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const first = median(samples.slice(0, quarter).map(pick));
  const last = median(samples.slice(-quarter).map(pick));
  const all = samples.map(pick);
  return {
    first: Math.round(first * 10) / 10,
    last: Math.round(last * 10) / 10,
    change: first === 0 ? 0 : Math.round(((last - first) / first) * 1000) / 1000,
    min: Math.min(...all),
    max: Math.max(...all),
  };
}

// ---- the verdict (pure: tested in test/reliability/soak.test.ts on synthetic runs and on a short real one)

export interface SoakCounters {
  buysOk: number;
  buysRefused: Record<string, number>;
  buyErrors: number;
  reconnects: number;
  cuts: number;
  batches: number;
  notifications: number;
}

export interface SoakVerdict {
  pass: boolean;
  memoryFlat: boolean;
  handlesFlat: boolean;
  /** The database grew by its data only (pages at most twice the data's growth), free pages and WAL flat. */
  databaseFlat: boolean;
  gcBeforeSample: boolean;
  rule: string;
  /** Why it failed, one line each (empty on a pass). */
  failures: string[];
  summary: {
    samples: number;
    steadySamples: number;
    heapUsedMiB: ReturnType<typeof flatness> & { slopeMiBPerHour: number };
    rssMiB: ReturnType<typeof flatness> & { slopeMiBPerHour: number; budget: number };
    handles: ReturnType<typeof flatness>;
    handleTypesFirst: Record<string, number> | null;
    handleTypesLast: Record<string, number> | null;
    dbMiB: { first: number; last: number };
    dataMiB: { first: number; last: number };
    pagesMiB: ReturnType<typeof flatness> & { budget: number };
    /** pages × page size ÷ bytes in use: 1 would be every page full. */
    pagesPerData: { first: number; last: number };
    overheadMiB: ReturnType<typeof flatness>;
    freeMiB: { first: number; last: number; budget: number };
    walMiB: ReturnType<typeof flatness> & { budget: number };
    walMiBMax: number;
    rows: { first: number; last: number };
  };
}

export const SOAK_RULE =
  `after a ${WARMUP_SHARE * 100} % warm-up, on samples taken after a forced GC: the median heapUsed of the last quarter of samples within ` +
  `±${MEMORY_TOLERANCE * 100} % of the first quarter's; rss at most +${MEMORY_TOLERANCE * 100} % plus what the SQLite caches ` +
  `(${SQLITE_CACHE_BUDGET_MIB} MiB) and the database file may take; open handles at most +${HANDLE_TOLERANCE}; the database grows by its ` +
  `data only: its pages (page count × page size) grow by at most ${DB_PAGES_PER_DATA} bytes per byte of data they gained (SQLite's ` +
  `bytes in use), and its free pages and WAL do not grow, each with a slack of ${MEMORY_TOLERANCE * 100} % of the first size or ` +
  `${DB_TOLERANCE_MIB} MiB; at least one buy, and a reconnect after every forced cut but the last`;

/** The soak's verdict from its samples: memory, handles and database flat after the warm-up; buys and reconnects happened. */
export function soakVerdict(input: {
  samples: Sample[];
  durationMs: number;
  counters: SoakCounters;
  gcBeforeSample: boolean;
}): SoakVerdict {
  const { samples, counters } = input;
  const warmupS = (input.durationMs * WARMUP_SHARE) / 1000;
  const steady = samples.filter((s) => s.t >= warmupS);
  const heap = flatness(steady, (s) => s.heapUsedMiB);
  const rss = flatness(steady, (s) => s.rssMiB);
  const handles = flatness(steady, (s) => s.handles);
  const overhead = flatness(steady, (s) => (s.pageBytes - s.dataBytes) / 1024 / 1024);
  const pages = flatness(steady, (s) => s.pageBytes / 1024 / 1024);
  const data = flatness(steady, (s) => s.dataBytes / 1024 / 1024);
  const free = flatness(steady, (s) => s.freeBytes / 1024 / 1024);
  const wal = flatness(steady, (s) => s.walBytes / 1024 / 1024);
  const slope = (pick: (s: Sample) => number) => {
    if (steady.length < 2) return 0;
    const xs = steady.map((s) => s.t / 3600);
    const ys = steady.map(pick);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = ys.reduce((a, b) => a + b, 0) / ys.length;
    const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
    const sxy = xs.reduce((a, x, i) => a + (x - mx) * ((ys[i] as number) - my), 0);
    return sxx === 0 ? 0 : Math.round((sxy / sxx) * 10) / 10;
  };
  const firstSteady = steady[0];
  const lastSteady = steady.at(-1);
  // The JS heap after a full GC is the leak signal (±10 %). rss also holds the store workers' SQLite caches and
  // memory map, which fill up to their caps as the database grows: it may gain that much (and 10 %), no more.
  const rssBudgetMiB = Math.round(
    rss.first * (1 + MEMORY_TOLERANCE) + SQLITE_CACHE_BUDGET_MIB + mib(lastSteady?.dbBytes ?? 0),
  );
  const dbSlackMiB = Math.max(DB_TOLERANCE_MIB, MEMORY_TOLERANCE * pages.first);
  const round1 = (n: number) => Math.round(n * 10) / 10;
  const pagesBudget = round1(pages.first + DB_PAGES_PER_DATA * Math.max(0, data.last - data.first) + dbSlackMiB);
  const freeBudget = round1(free.first + dbSlackMiB);
  const walBudget = round1(wal.first + dbSlackMiB);
  const ratio = (s: Sample | undefined) =>
    s && s.dataBytes > 0 ? Math.round((s.pageBytes / s.dataBytes) * 1000) / 1000 : 0;

  const failures: string[] = [];
  const enough = steady.length >= 4;
  if (!enough) failures.push(`too few samples after the warm-up (${steady.length} < 4): run longer`);
  if (!input.gcBeforeSample)
    failures.push('memory was sampled without a forced GC (run with node --expose-gc, as npm run bench -- soak does)');
  const memoryFlat = Math.abs(heap.change) <= MEMORY_TOLERANCE && rss.last <= rssBudgetMiB;
  if (Math.abs(heap.change) > MEMORY_TOLERANCE)
    failures.push(
      `heap ${heap.first} → ${heap.last} MiB (${(heap.change * 100).toFixed(1)} %), beyond ±${MEMORY_TOLERANCE * 100} %`,
    );
  if (rss.last > rssBudgetMiB) failures.push(`rss ${rss.last} MiB above its budget of ${rssBudgetMiB} MiB`);
  const handlesFlat = handles.last <= handles.first + HANDLE_TOLERANCE;
  if (!handlesFlat) failures.push(`open handles ${handles.first} → ${handles.last} (more than +${HANDLE_TOLERANCE})`);
  const databaseFlat = pages.last <= pagesBudget && free.last <= freeBudget && wal.last <= walBudget;
  if (pages.last > pagesBudget) {
    failures.push(
      `database ${pages.first} → ${pages.last} MiB for data ${data.first} → ${data.last} MiB: it grows beyond its data (budget ${pagesBudget} MiB)`,
    );
  }
  if (free.last > freeBudget)
    failures.push(`free pages ${free.first} → ${free.last} MiB: space is not reused (budget ${freeBudget} MiB)`);
  if (wal.last > walBudget)
    failures.push(`WAL ${wal.first} → ${wal.last} MiB: checkpoints do not keep up (budget ${walBudget} MiB)`);
  if (counters.buysOk <= 0) failures.push('no buy succeeded');
  if (counters.reconnects < Math.max(0, counters.cuts - 1))
    failures.push(`${counters.reconnects} reconnects after ${counters.cuts} forced cuts`);
  return {
    pass: failures.length === 0,
    memoryFlat,
    handlesFlat,
    databaseFlat,
    gcBeforeSample: input.gcBeforeSample,
    rule: SOAK_RULE,
    failures,
    summary: {
      samples: samples.length,
      steadySamples: steady.length,
      heapUsedMiB: { ...heap, slopeMiBPerHour: slope((s) => s.heapUsedMiB) },
      rssMiB: { ...rss, slopeMiBPerHour: slope((s) => s.rssMiB), budget: rssBudgetMiB },
      handles,
      handleTypesFirst: firstSteady?.handleTypes ?? null,
      handleTypesLast: lastSteady?.handleTypes ?? null,
      dbMiB: { first: mib(firstSteady?.dbBytes ?? 0), last: mib(lastSteady?.dbBytes ?? 0) },
      dataMiB: { first: data.first, last: data.last },
      pagesMiB: { ...pages, budget: pagesBudget },
      pagesPerData: { first: ratio(firstSteady), last: ratio(lastSteady) },
      overheadMiB: overhead,
      freeMiB: { first: free.first, last: free.last, budget: freeBudget },
      walMiB: { ...wal, budget: walBudget },
      walMiBMax: mib(Math.max(0, ...samples.map((s) => s.walBytes))),
      rows: { first: firstSteady?.rows ?? 0, last: lastSteady?.rows ?? 0 },
    },
  };
}

// ---- the run

async function main(): Promise<void> {
  const { minutes, sampleMs, buyMs, reconnectMs, items, durationMs, out, heapSnapshots } = readOptions();
  const dir = mkdtempSync(join(os.tmpdir(), 'md-soak-'));
  const loadBefore = os.loadavg().map((v) => Number(v.toFixed(2)));
  if (!gc)
    log(
      'global.gc is not exposed (run with node --expose-gc --import tsx): memory is sampled without a forced GC, so the run cannot pass',
    );
  log(
    `${minutes} min: sandbox with ${EVENTS_PER_SECOND} market events/s, a buy every ${buyMs / 1000} s, a forced reconnect every ${reconnectMs / 1000} s`,
  );
  const { child, ready } = await startSandboxProcess(dir, items);
  const adminHeaders = { 'x-admin-token': ready.admin_token, 'content-type': 'application/json' };
  const created = await fetch(`${ready.base_url}/admin/merchants`, {
    method: 'POST',
    headers: adminHeaders,
    body: JSON.stringify({ balance: 1_000_000_000 }),
  });
  const merchant = (await created.json()) as { merchantId: string; apiKey: string };
  const relay = new Relay(Number(new URL(ready.base_url).port));
  await relay.start();

  const dataDir = join(dir, 'engine');
  const engineLog = { lines: 0, last: [] as string[] };
  const counters: SoakCounters = {
    buysOk: 0,
    buysRefused: {},
    buyErrors: 0,
    reconnects: 0,
    cuts: 0,
    batches: 0,
    notifications: 0,
  };
  const engine = new Engine({
    dataDir,
    secrets: new MemorySecretStore(),
    log: (line) => {
      engineLog.lines++;
      engineLog.last.push(line.slice(0, 300));
      if (engineLog.last.length > 20) engineLog.last.shift();
    },
    startDemo: () => Promise.reject(new Error('no demo in the soak')),
    override: {
      baseUrl: `http://127.0.0.1:${relay.port}`,
      wsUrl: `ws://127.0.0.1:${relay.port}/ws`,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
    },
  });
  let lastState = '';
  let everConnected = false;
  engine.subscribe((batch) => {
    counters.batches++;
    counters.notifications += batch.notifications?.length ?? 0;
    if (batch.connection) {
      // A reconnect: connected again after having been connected (the first connection is not one).
      if (batch.connection.state === 'connected' && lastState !== 'connected' && everConnected) counters.reconnects++;
      if (batch.connection.state === 'connected') everConnected = true;
      lastState = batch.connection.state;
    }
  });
  const call = <M extends IpcMethod>(method: M, input: unknown = {}): Promise<IpcResult<M>> =>
    engine.handle(method, IPC_METHODS[method].input.parse(input) as IpcParsedInput<M>);

  const started = Date.now();
  await engine.start();
  for (let waited = 0; (await call('catalog.query', { limit: 1 })).total === 0; waited += 250) {
    if (waited > 120_000) throw new Error('the first catalog sync did not finish in 2 min');
    await new Promise((done) => setTimeout(done, 250));
  }
  log(`engine ready in ${Date.now() - started} ms`);

  let partner = 0;
  let buying = false;
  const buyTimer = setInterval(() => {
    if (buying) return;
    buying = true;
    void (async () => {
      try {
        const page = await call('catalog.query', { sort: 'price', direction: 'asc', limit: 100 });
        const row = page.rows[Math.floor(Math.random() * page.rows.length)];
        if (!row) return;
        const detail = await call('catalog.item', { itemId: row.itemId });
        if (!detail) return;
        const outcome = await call('buy.byId', {
          itemId: row.itemId,
          assetId: detail.item.assetId,
          price: detail.item.price,
          recipient: {
            tradeUrl: `https://steamcommunity.com/tradeoffer/new/?partner=${90_000_000 + (partner++ % 20)}&token=AbCd1234`,
          },
        });
        if (outcome.ok) counters.buysOk++;
        else counters.buysRefused[outcome.failure.code] = (counters.buysRefused[outcome.failure.code] ?? 0) + 1;
      } catch {
        counters.buyErrors++;
      } finally {
        buying = false;
      }
    })();
  }, buyMs);
  const cutTimer = setInterval(() => {
    counters.cuts++;
    relay.cut(1000);
  }, reconnectMs);

  const samples: Sample[] = [];
  const sample = async (): Promise<void> => {
    if (gc) {
      gc();
      gc();
    }
    const memory = process.memoryUsage();
    const resources = process.getActiveResourcesInfo();
    const handleTypes: Record<string, number> = {};
    for (const type of resources) handleTypes[type] = (handleTypes[type] ?? 0) + 1;
    const snapshot = await engine.snapshot();
    const sizes = fileSizes(dataDir);
    let usage: ReturnType<typeof databaseUsage>;
    try {
      usage = databaseUsage(dataDir);
    } catch (error) {
      // A busy moment of the writer (SQLITE_BUSY): keep the previous reading rather than lose the sample.
      log(`database usage not read: ${(error as Error).message}`);
      const previous = samples.at(-1);
      usage = {
        pageBytes: previous?.pageBytes ?? 0,
        dataBytes: previous?.dataBytes ?? 0,
        freeBytes: previous?.freeBytes ?? 0,
        rows: previous?.rows ?? 0,
      };
    }
    const entry: Sample = {
      t: Math.round((Date.now() - started) / 100) / 10,
      rssMiB: mib(memory.rss),
      heapUsedMiB: mib(memory.heapUsed),
      heapTotalMiB: mib(memory.heapTotal),
      externalMiB: mib(memory.external),
      arrayBuffersMiB: mib(memory.arrayBuffers),
      handles: resources.length,
      handleTypes,
      dbBytes: sizes.dbBytes,
      walBytes: sizes.walBytes,
      ...usage,
      connection: snapshot.connection.state,
      activeTrades: snapshot.activeTrades,
      catalogItems: snapshot.catalog.totalItems,
      buys: counters.buysOk,
      reconnects: counters.reconnects,
      batches: counters.batches,
    };
    samples.push(entry);
    log(
      `t=${entry.t}s rss ${entry.rssMiB} MiB heap ${entry.heapUsedMiB} MiB handles ${entry.handles} db ${mib(entry.dbBytes)} MiB ` +
        `(data ${mib(entry.dataBytes)}, free ${mib(entry.freeBytes)}) wal ${mib(entry.walBytes)} MiB rows ${entry.rows} ${entry.connection} ` +
        `buys ${entry.buys} reconnects ${entry.reconnects}`,
    );
  };
  await sample();
  const snapshots = heapSnapshots;
  if (snapshots) mkdirSync(snapshots, { recursive: true });
  let warmSnapshot = false;
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      void sample()
        .catch((error: unknown) => log(`sample failed: ${(error as Error).message}`))
        .then(() => {
          if (snapshots && !warmSnapshot && Date.now() - started >= durationMs * WARMUP_SHARE) {
            warmSnapshot = true;
            log(`heap snapshot ${writeHeapSnapshot(join(snapshots, 'soak-warm.heapsnapshot'))}`);
          }
          if (Date.now() - started >= durationMs) {
            clearInterval(timer);
            done();
          }
        });
    }, sampleMs);
  });
  clearInterval(buyTimer);
  clearInterval(cutTimer);
  if (snapshots) {
    gc?.();
    log(`heap snapshot ${writeHeapSnapshot(join(snapshots, 'soak-end.heapsnapshot'))}`);
  }

  // ---- verdict
  const verdict = soakVerdict({ samples, durationMs, counters, gcBeforeSample: Boolean(gc) });
  const { pass } = verdict;
  const heap = verdict.summary.heapUsedMiB;
  const rss = verdict.summary.rssMiB;
  const handles = verdict.summary.handles;
  const cpus = os.cpus();
  const result = {
    name: 'soak',
    machine: {
      cpu: cpus[0]?.model.trim() ?? 'unknown',
      cores: cpus.length,
      totalMemGiB: Number((os.totalmem() / 1024 ** 3).toFixed(1)),
    },
    node: process.version,
    date: new Date(started).toISOString(),
    durationMinutes: minutes,
    settings: {
      marketEventsPerSecond: EVENTS_PER_SECOND,
      catalogItems: items,
      buyEverySeconds: buyMs / 1000,
      forcedReconnectEverySeconds: reconnectMs / 1000,
      sampleEverySeconds: sampleMs / 1000,
      warmupShare: WARMUP_SHARE,
      gcBeforeSample: Boolean(gc),
      sandboxInOwnProcess: true,
      loadAverageBefore: loadBefore,
      loadAverageAfter: os.loadavg().map((v) => Number(v.toFixed(2))),
    },
    counters,
    engineLog: { lines: engineLog.lines, last: engineLog.last },
    summary: verdict.summary,
    verdict: verdictRecord(verdict),
    samples,
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  log(
    `verdict: ${pass ? 'PASS' : 'FAIL'}: heap ${heap.first} → ${heap.last} MiB (${(heap.change * 100).toFixed(1)} %), rss ${rss.first} → ${rss.last} MiB ` +
      `(${(rss.change * 100).toFixed(1)} %), handles ${handles.first} → ${handles.last}, db ${verdict.summary.pagesMiB.first} → ` +
      `${verdict.summary.pagesMiB.last} MiB (data ${verdict.summary.dataMiB.first} → ${verdict.summary.dataMiB.last} MiB); ` +
      `${counters.buysOk} buys, ${counters.reconnects}/${counters.cuts} reconnects; wrote ${out}` +
      (verdict.failures.length > 0 ? `\nsoak: failed: ${verdict.failures.join('; ')}` : ''),
  );

  await engine.close();
  await relay.close();
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = pass ? 0 : 1;
}

/** The verdict as a results file records it (its summary is written beside it, at the top level). */
function verdictRecord(verdict: SoakVerdict): Omit<SoakVerdict, 'summary'> {
  const { summary: _summary, ...record } = verdict;
  return record;
}

/** `--rejudge FILE`: the verdict of a recorded run computed again from its samples, with the current rule. */
function rejudge(file: string): void {
  const result = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> & {
    durationMinutes: number;
    counters: SoakCounters;
    settings: { gcBeforeSample: boolean };
    samples: Sample[];
    verdict: unknown;
    verdictAsRun?: unknown;
  };
  const verdict = soakVerdict({
    samples: result.samples,
    durationMs: result.durationMinutes * 60_000,
    counters: result.counters,
    gcBeforeSample: result.settings.gcBeforeSample,
  });
  const { samples, ...rest } = result;
  const next = {
    ...rest,
    verdictAsRun: result.verdictAsRun ?? result.verdict,
    rejudgedAt: new Date().toISOString(),
    summary: verdict.summary,
    verdict: verdictRecord(verdict),
    samples,
  };
  writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
  log(`rejudged ${file}: ${verdict.pass ? 'PASS' : `FAIL: ${verdict.failures.join('; ')}`}`);
  process.exitCode = verdict.pass ? 0 : 1;
}

// Run only as a script: tests import the verdict.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rejudgeFile = readOptions().rejudge;
  if (rejudgeFile) {
    rejudge(rejudgeFile);
  } else {
    main().catch((error: unknown) => {
      log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    });
  }
}
