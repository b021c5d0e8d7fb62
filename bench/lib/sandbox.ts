/**
 * The real sandbox and engine, set up for benchmarks.
 *
 * Generating a 500k catalog takes ~40 s, so each size is generated once into
 * bench/.cache/ (git-ignored) and every benchmark starts its sandbox on a COPY of
 * that pristine database. The sandbox listens on a fixed port (BENCH_SANDBOX_PORT,
 * default 38787) because item image URLs carry the port: on another port the
 * sandbox rewrites every item's JSON at start (seconds at 500k).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/main/core/engine/engine';
import { MemorySecretStore } from '../../src/main/core/secrets';
import { CACHE_VERSION, LocalStore } from '../../src/main/core/store';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/server/sandbox';
import { BENCH_DIR } from './result';

// The tests' one waitFor (its poll period a parameter: latency benchmarks poll every millisecond).
export { waitFor } from '../../test/support/waitFor';

export const CACHE_DIR = join(BENCH_DIR, '.cache');
export const BENCH_SEED = 7;
export const BENCH_PORT = Number(process.env['BENCH_SANDBOX_PORT'] ?? 38787);
const fresh = () => process.env['BENCH_FRESH'] === '1';

export interface MerchantCredentials {
  merchantId: string;
  apiKey: string;
}

export function merchantHeaders(merchant: MerchantCredentials): Record<string, string> {
  return { 'x-merchant-id': merchant.merchantId, 'x-api-key': merchant.apiKey };
}

export function catalogUrl(baseUrl: string): string {
  return `${baseUrl}/Items/GetAllItemsOnSale`;
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export function scratchDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `md-bench-${prefix}-`));
}

/** The pristine sandbox database with `items` generated items (seed 7), created on first use. */
export async function pristineSandboxDb(items: number, log: (line: string) => void = console.log): Promise<string> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const file = join(CACHE_DIR, `sandbox-${items}-seed${BENCH_SEED}-port${BENCH_PORT}.db`);
  if (existsSync(file) && !fresh()) return file;
  const tmp = `${file}.tmp`;
  rmSync(tmp, { force: true });
  log(`generating the ${items.toLocaleString('en-US')}-item sandbox catalog once (cached in ${file})...`);
  const started = performance.now();
  if (!(await portFree(BENCH_PORT))) throw new Error(`port ${BENCH_PORT} is busy: set BENCH_SANDBOX_PORT`);
  const sb = await startSandbox({ items, seed: BENCH_SEED, dbFile: tmp, port: BENCH_PORT });
  await sb.close();
  renameSync(tmp, file);
  log(
    `generated in ${((performance.now() - started) / 1000).toFixed(1)} s (${(statSync(file).size / 1e6).toFixed(0)} MB)`,
  );
  return file;
}

export interface BenchSandbox {
  sb: Sandbox;
  dbFile: string;
  close(): Promise<void>;
}

/** A sandbox on a private copy of the pristine database (so runs never change the cache). */
export async function startBenchSandbox(
  items: number,
  options: Omit<SandboxOptions, 'dbFile' | 'items' | 'seed'> = {},
): Promise<BenchSandbox> {
  const pristine = await pristineSandboxDb(items);
  const dir = scratchDir('sandbox');
  const dbFile = join(dir, 'sandbox.db');
  copyFileSync(pristine, dbFile);
  const port = options.port ?? ((await portFree(BENCH_PORT)) ? BENCH_PORT : 0);
  const sb = await startSandbox({ ...options, items, seed: BENCH_SEED, dbFile, port });
  return {
    sb,
    dbFile,
    async close() {
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function createMerchant(
  sb: Sandbox,
  input: { balance?: number; reveal?: { steamId?: boolean; inspectInGame?: boolean; tradeUrl?: boolean } } = {},
): MerchantCredentials {
  const merchant = sb.core.merchants.create(input);
  return { merchantId: merchant.merchantId, apiKey: merchant.apiKey };
}

/**
 * A local store holding the sandbox's `items`-item catalog, synced once through the
 * real sync and cached (bench/.cache/store-<items>-v<schema>.sqlite); returns a copy in `dir`.
 */
export async function preparedStoreCopy(
  items: number,
  dir: string,
  log: (line: string) => void = console.log,
): Promise<string> {
  const cached = join(
    CACHE_DIR,
    `store-${items}-seed${BENCH_SEED}-v${LocalStore.schemaVersion}-c${CACHE_VERSION}.sqlite`,
  );
  if (!existsSync(cached) || fresh()) {
    log(`syncing a ${items.toLocaleString('en-US')}-item store once (cached in ${cached})...`);
    const bench = await startBenchSandbox(items);
    const tmp = `${cached}.tmp`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(tmp + suffix, { force: true });
    try {
      const merchant = createMerchant(bench.sb);
      const store = await LocalStore.open({ file: tmp });
      const result = await store.syncCatalog({ url: catalogUrl(bench.sb.baseUrl), headers: merchantHeaders(merchant) });
      await store.close();
      if (!result.ok) throw new Error(`sync failed: HTTP ${result.status}`);
      log(`synced ${result.total} items in ${result.ms} ms`);
    } finally {
      await bench.close();
    }
    for (const suffix of ['-wal', '-shm'])
      if (existsSync(tmp + suffix)) throw new Error(`${tmp + suffix} left behind: the store did not close cleanly`);
    renameSync(tmp, cached);
  }
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'store.sqlite');
  copyFileSync(cached, file);
  return file;
}

export interface BenchEngine {
  engine: Engine;
  logs: string[];
  close(): Promise<void>;
}

/** The real engine (as the web host and Electron build it) signed in as `merchant`. */
export async function startEngine(options: {
  dataDir: string;
  baseUrl: string;
  wsUrl: string;
  merchant: MerchantCredentials;
  log?: (line: string) => void;
}): Promise<BenchEngine> {
  const logs: string[] = [];
  const engine = new Engine({
    dataDir: options.dataDir,
    secrets: new MemorySecretStore(),
    log: (line) => {
      logs.push(line);
      options.log?.(line);
    },
    startDemo: () => Promise.reject(new Error('no demo in benchmarks')),
    override: {
      baseUrl: options.baseUrl,
      wsUrl: options.wsUrl,
      merchantId: options.merchant.merchantId,
      apiKey: options.merchant.apiKey,
    },
  });
  await engine.start();
  return { engine, logs, close: () => engine.close() };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
