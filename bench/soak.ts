/**
 * Soak: the engine against a busy sandbox for a long time, watching for leaks.
 *
 *   node --expose-gc --import tsx bench/soak.ts [--minutes 30]   (memory sampled after a full GC: use this)
 *   npx tsx bench/soak.ts --minutes 1                            (smoke run; memory without a forced GC)
 *
 * The sandbox runs in its own process (`src/server/cli.ts --simulate --events-per-sec 50`: ten
 * times the default market, trades moving to outcomes by themselves), so this process holds only
 * the engine (its store workers included) and a small TCP relay in front of the sandbox. The engine
 * buys every few seconds, and the relay cuts every connection once a minute (the feed drops and
 * reconnects, REST calls in flight fail, the engine reconciles). Every 10 s it samples
 * `process.memoryUsage()` (after `global.gc()` when available), `process.getActiveResourcesInfo()`
 * and the account database's size. After the warm-up (the first 20 % of the run) the JS heap must stay
 * within ±10 %, rss may grow only by what the store's SQLite caches and the growing database file take
 * (+10 %), and the open handles must not grow. Writes bench/results/soak.json.
 *
 * Options: --minutes N (default 30), --sample-seconds N (10), --buy-seconds N (4),
 * --reconnect-seconds N (60), --out FILE (bench/results/soak.json), --heap-snapshots DIR (a V8 heap
 * snapshot at the end of the warm-up and one at the end, to compare in Chrome DevTools when the heap grows).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { Engine } from '../src/main/core/engine/engine';
import { MemorySecretStore } from '../src/main/core/secrets';
import type { IpcMethod, IpcParsedInput, IpcResult } from '../src/shared/ipc';
import { IPC_METHODS } from '../src/shared/ipc';

const ROOT = resolve(import.meta.dirname, '..');
const EVENTS_PER_SECOND = 50;
const WARMUP_SHARE = 0.2;
const MEMORY_TOLERANCE = 0.1;
/** Handles that come and go with in-flight work (a request, a timer) are not growth. */
const HANDLE_TOLERANCE = 3;
/**
 * What rss may legitimately gain as the account database grows: the store's SQLite page caches fill up to
 * their caps (writer 128 MiB, reader 64 MiB, worker/open.ts) and the reader's memory map covers the file.
 */
const SQLITE_CACHE_BUDGET_MIB = 128 + 64;

interface Sample {
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
  connection: string;
  activeTrades: number;
  catalogItems: number;
  buys: number;
  reconnects: number;
  batches: number;
}

// ---- options

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    'sample-seconds': { type: 'string', default: '10' },
    'buy-seconds': { type: 'string', default: '4' },
    'reconnect-seconds': { type: 'string', default: '60' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results', 'soak.json') },
    /** Writes a V8 heap snapshot at the end of the warm-up and at the end, to diff when the heap grows. */
    'heap-snapshots': { type: 'string' },
  },
  strict: true,
});
const positive = (name: string, text: string | undefined): number => {
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`--${name} must be a positive number, got ${text}`);
  return value;
};
const minutes = positive('minutes', values.minutes);
const sampleMs = positive('sample-seconds', values['sample-seconds']) * 1000;
const buyMs = positive('buy-seconds', values['buy-seconds']) * 1000;
const reconnectMs = positive('reconnect-seconds', values['reconnect-seconds']) * 1000;
const durationMs = minutes * 60_000;
const gc = (globalThis as { gc?: () => void }).gc;
const log = (line: string) => process.stderr.write(`soak: ${line}\n`);

// ---- the sandbox, in its own process

interface Ready {
  base_url: string;
  admin_token: string;
}

async function startSandboxProcess(dir: string): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/server/cli.ts', '--port', '0', '--db', join(dir, 'sandbox.sqlite'), '--items', '20000', '--seed', '7', '--simulate', '--events-per-sec', String(EVENTS_PER_SECOND), '--json'],
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
const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? 0 : sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
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

/** Compares the first and the last quarter of the samples after the warm-up. */
function flatness(samples: Sample[], pick: (s: Sample) => number): { first: number; last: number; change: number; min: number; max: number } {
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

// ---- the run

async function main(): Promise<void> {
  const dir = mkdtempSync(join(os.tmpdir(), 'md-soak-'));
  const loadBefore = os.loadavg().map((v) => Number(v.toFixed(2)));
  if (!gc) log('global.gc is not exposed (run with node --expose-gc --import tsx): memory is sampled without a forced GC');
  log(`${minutes} min: sandbox with ${EVENTS_PER_SECOND} market events/s, a buy every ${buyMs / 1000} s, a forced reconnect every ${reconnectMs / 1000} s`);
  const { child, ready } = await startSandboxProcess(dir);
  const adminHeaders = { 'x-admin-token': ready.admin_token, 'content-type': 'application/json' };
  const created = await fetch(`${ready.base_url}/admin/merchants`, { method: 'POST', headers: adminHeaders, body: JSON.stringify({ balance: 1_000_000_000 }) });
  const merchant = (await created.json()) as { merchantId: string; apiKey: string };
  const relay = new Relay(Number(new URL(ready.base_url).port));
  await relay.start();

  const dataDir = join(dir, 'engine');
  const engineLog = { lines: 0, last: [] as string[] };
  const counters = { buysOk: 0, buysRefused: {} as Record<string, number>, buyErrors: 0, reconnects: 0, cuts: 0, batches: 0, notifications: 0 };
  const engine = new Engine({
    dataDir,
    secrets: new MemorySecretStore(),
    log: (line) => {
      engineLog.lines++;
      engineLog.last.push(line.slice(0, 300));
      if (engineLog.last.length > 20) engineLog.last.shift();
    },
    startDemo: () => Promise.reject(new Error('no demo in the soak')),
    override: { baseUrl: `http://127.0.0.1:${relay.port}`, wsUrl: `ws://127.0.0.1:${relay.port}/ws`, merchantId: merchant.merchantId, apiKey: merchant.apiKey },
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
          recipient: { tradeUrl: `https://steamcommunity.com/tradeoffer/new/?partner=${90_000_000 + (partner++ % 20)}&token=AbCd1234` },
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
        `wal ${mib(entry.walBytes)} MiB ${entry.connection} buys ${entry.buys} reconnects ${entry.reconnects}`,
    );
  };
  await sample();
  const snapshots = values['heap-snapshots'];
  if (snapshots) mkdirSync(snapshots, { recursive: true });
  let warmSnapshot = false;
  await new Promise<void>((done) => {
    const timer = setInterval(() => {
      void sample().then(() => {
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
  const warmupS = (durationMs * WARMUP_SHARE) / 1000;
  const steady = samples.filter((s) => s.t >= warmupS);
  const heap = flatness(steady, (s) => s.heapUsedMiB);
  const rss = flatness(steady, (s) => s.rssMiB);
  const handles = flatness(steady, (s) => s.handles);
  // The JS heap after a full GC is the leak signal (±10 %). rss also holds the store workers' SQLite caches and
  // memory map, which fill up to their caps as the database grows: it may gain that much (and 10 %), no more.
  const rssBudgetMiB = Math.round(rss.first * (1 + MEMORY_TOLERANCE) + SQLITE_CACHE_BUDGET_MIB + mib(steady.at(-1)?.dbBytes ?? 0));
  const memoryFlat = Math.abs(heap.change) <= MEMORY_TOLERANCE && rss.last <= rssBudgetMiB;
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
  const handlesFlat = handles.last <= handles.first + HANDLE_TOLERANCE;
  const enough = steady.length >= 4;
  const pass = enough && memoryFlat && handlesFlat && counters.buysOk > 0 && counters.reconnects >= Math.max(0, counters.cuts - 1);
  const cpus = os.cpus();
  const result = {
    name: 'soak',
    machine: { cpu: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length, totalMemGiB: Number((os.totalmem() / 1024 ** 3).toFixed(1)) },
    node: process.version,
    date: new Date(started).toISOString(),
    durationMinutes: minutes,
    settings: {
      marketEventsPerSecond: EVENTS_PER_SECOND,
      catalogItems: 20_000,
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
    summary: {
      samples: samples.length,
      steadySamples: steady.length,
      heapUsedMiB: { ...heap, slopeMiBPerHour: slope((s) => s.heapUsedMiB) },
      rssMiB: { ...rss, slopeMiBPerHour: slope((s) => s.rssMiB), budget: rssBudgetMiB },
      handles,
      handleTypesFirst: steady[0]?.handleTypes ?? null,
      handleTypesLast: steady.at(-1)?.handleTypes ?? null,
      dbMiB: { first: mib(steady[0]?.dbBytes ?? 0), last: mib(steady.at(-1)?.dbBytes ?? 0) },
      walMiBMax: mib(Math.max(...samples.map((s) => s.walBytes))),
    },
    verdict: {
      pass,
      memoryFlat,
      handlesFlat,
      rule:
        `after a ${WARMUP_SHARE * 100} % warm-up, the median heapUsed (after GC) of the last quarter of samples within ±${MEMORY_TOLERANCE * 100} % of the first quarter's, ` +
        `rss at most +${MEMORY_TOLERANCE * 100} % plus what the SQLite caches (${SQLITE_CACHE_BUDGET_MIB} MiB) and the database file may take, ` +
        `open handles at most +${HANDLE_TOLERANCE}; at least one buy, and a reconnect after every forced cut but the last`,
      ...(enough ? {} : { note: 'too few samples after the warm-up for a verdict: run longer' }),
    },
    samples,
  };
  mkdirSync(dirname(values.out as string), { recursive: true });
  writeFileSync(values.out as string, `${JSON.stringify(result, null, 2)}\n`);
  log(
    `verdict: ${pass ? 'PASS' : 'FAIL'}: heap ${heap.first} → ${heap.last} MiB (${(heap.change * 100).toFixed(1)} %), rss ${rss.first} → ${rss.last} MiB ` +
      `(${(rss.change * 100).toFixed(1)} %), handles ${handles.first} → ${handles.last}; ${counters.buysOk} buys, ${counters.reconnects}/${counters.cuts} reconnects; wrote ${values.out}`,
  );

  await engine.close();
  await relay.close();
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = pass ? 0 : 1;
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
