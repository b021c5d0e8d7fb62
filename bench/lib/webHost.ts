/**
 * The web host (`src/web/cli.ts`, engine + loopback UI server) as a child process,
 * Debian's Chromium through Playwright, and a data dir holding a 500k-item cache.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser } from '@playwright/test';
import { ROOT_DIR } from './result';
import { LocalStore } from '../../src/main/core/store';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';
import { catalogUrl, merchantHeaders, preparedStoreCopy, sleep, type MerchantCredentials } from './sandbox';

const URL_LINE = /^Merchant Desk web host: (http:\/\/\S+)$/;
const RENDERER_INDEX = join(ROOT_DIR, 'out', 'renderer', 'index.html');
/** The built web host, as `npm start` runs it where Electron is absent. */
const WEB_HOST_BUNDLE = join(ROOT_DIR, 'out', 'main', 'web.js');
/** Shared with e2e/support/stack.ts so two builds never run at once. */
const BUILD_LOCK = join(ROOT_DIR, 'node_modules', '.cache', 'merchant-desk-e2e-build.lock');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the app (electron-vite build: renderer and the web host bundle) when out/ is missing or older than src/. */
export async function ensureFreshRenderer(log: (line: string) => void): Promise<void> {
  const built = (file: string) => (existsSync(file) ? statSync(file).mtimeMs : 0);
  const stale = () => newestMtime(join(ROOT_DIR, 'src')) > Math.min(built(RENDERER_INDEX), built(WEB_HOST_BUNDLE));
  if (!stale()) return;
  mkdirSync(dirname(BUILD_LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch {
      if (Date.now() - statSync(BUILD_LOCK).mtimeMs > 10 * 60_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
      await sleep(500);
    }
  }
  try {
    if (!stale()) return;
    log('building the app (out/ is older than src/)...');
    const bin = join(dirname(createRequire(import.meta.url).resolve('electron-vite')), '..', 'bin', 'electron-vite.js');
    const build = spawnSync(process.execPath, [bin, 'build', '--logLevel', 'warn'], {
      cwd: ROOT_DIR,
      stdio: 'inherit',
    });
    if (build.status !== 0) throw new Error('electron-vite build failed');
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

export interface WebHostProcess {
  child: ChildProcess;
  url: string;
  /** ms from spawn to the URL line. */
  upMs: number;
  stderr: string[];
  stop(): Promise<void>;
}

/** Spawns the web host exactly as `npm start` runs it without Electron (the built out/main/web.js), pointed at the sandbox, signed in through the environment. */
export function spawnWebHost(options: {
  baseUrl: string;
  wsUrl: string;
  dataDir: string;
  merchant: MerchantCredentials;
  t0?: number;
  /** More command-line flags (e.g. `--test-rate-limit-scale N`). */
  args?: readonly string[];
}): Promise<WebHostProcess> {
  const t0 = options.t0 ?? performance.now();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MERCHANT_ID: options.merchant.merchantId,
    MERCHANT_API_KEY: options.merchant.apiKey,
  };
  delete env['MERCHANT_DESK_WEB_TOKEN'];
  // BENCH_CPU_PROF=<dir>: the host writes a V8 CPU profile there at exit (bench/lib/profile-summary.ts).
  const profile = process.env['BENCH_CPU_PROF']
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`]
    : [];
  const child = spawn(
    process.execPath,
    [
      ...profile,
      WEB_HOST_BUNDLE,
      '--base-url',
      options.baseUrl,
      '--ws-url',
      options.wsUrl,
      '--data-dir',
      options.dataDir,
      '--no-open',
      ...(options.args ?? []),
    ],
    { cwd: ROOT_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const stderr: string[] = [];
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => stderr.push(line));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    // Under the profiler the host writes each thread's profile as it exits: an hour's takes far longer than 15 s.
    const timer = setTimeout(() => child.kill('SIGKILL'), profile.length > 0 ? 600_000 : 15_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the web host printed no URL within 120 s:\n${stderr.join('\n')}`));
    }, 120_000);
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const match = URL_LINE.exec(line);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], upMs: performance.now() - t0, stderr, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the web host exited (code ${code}) before printing its URL:\n${stderr.join('\n')}`));
    });
  });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--enable-precise-memory-info',
    ],
  });
}

/** The grid's first data row (skeleton rows have no aria-selected). */
export const FIRST_ROW = '[role="grid"][aria-label="Catalog"] [role="row"][aria-selected]';

/**
 * A data dir whose account cache holds the sandbox's catalog and is FRESH (its
 * lastUpdate is the sandbox's current one, so the engine does not sync at start):
 * the prepared store is copied in and re-synced against this sandbox through the
 * real sync. Then the web host starts and stops once (the OS page cache) — a
 * re-launch, as a user's second start would be. Not measured.
 */
export async function prepareDataDir(options: {
  items: number;
  dataDir: string;
  baseUrl: string;
  wsUrl: string;
  merchant: MerchantCredentials;
  log: (line: string) => void;
}): Promise<void> {
  const accounts = join(options.dataDir, 'accounts');
  mkdirSync(accounts, { recursive: true });
  const staging = join(options.dataDir, 'staging');
  const file = await preparedStoreCopy(options.items, staging);
  const target = accountStoreFile(options.dataDir, options.merchant.merchantId);
  renameSync(file, target);
  rmSync(staging, { recursive: true, force: true });
  const store = await LocalStore.open({ file: target });
  const result = await store.syncCatalog({
    url: catalogUrl(options.baseUrl),
    headers: merchantHeaders(options.merchant),
  });
  await store.close();
  if (!result.ok) throw new Error(`preparing the cache: HTTP ${result.status}`);
  options.log(`cache prepared: ${result.total} items, re-synced in ${result.ms} ms`);
  const host = await spawnWebHost(options);
  options.log(`warm-up start of the web host: URL after ${Math.round(host.upMs)} ms`);
  await sleep(1000);
  await host.stop();
}
