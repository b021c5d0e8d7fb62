// The end-to-end stack of one spec file: a fresh sandbox in the Playwright worker
// (real HTTP + WebSocket on loopback), a merchant created through its admin API, and
// the real web host (engine + renderer) as a child process pointed at it. Every page
// of the file's tests opens the host's token URL in Debian's Chromium.
//
//   const stack = useStack({ items: 5000 });          // beforeAll / afterAll of this file
//   test('…', async ({ page }) => { await openApp(page, stack()); … });
//
// The child's stdout/stderr go to a log file; each test gets the slice written during
// it in its output dir (attached to the report when the test fails), along with the
// browser console.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { test as base, expect, type TestInfo } from '@playwright/test';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { FaultProxy } from '../../test/support/faultProxy';
import { adminApi, merchantApi, type MerchantCredentials } from '../../test/support/sandboxHttp';

export { expect };

export const ROOT = resolve(import.meta.dirname, '..', '..');
const RENDERER_INDEX = join(ROOT, 'out', 'renderer', 'index.html');
const BUILD_LOCK = join(ROOT, 'node_modules', '.cache', 'merchant-desk-e2e-build.lock');
/** How much of the web host's log a failed test prints. */
const HOST_LOG_TAIL_LINES = 80;
const URL_LINE = /^Merchant Desk web host: (http:\/\/\S+)$/;

export interface StackOptions {
  /** Demo mode: no sandbox here; the web host starts its embedded demo sandbox (no --base-url). */
  demo?: boolean;
  /** Catalog size of the sandbox (default 2,000: enough to scroll, quick to sync). */
  items?: number;
  seed?: number;
  /** A fixed free port and an explicit database in the temp dir, so the sandbox can be restarted in place. */
  restartable?: boolean;
  /** Body of `POST /admin/merchants` for the merchant the web host signs in as. */
  merchant?: Record<string, unknown>;
  /** Runs after the merchant exists and before the web host starts (list items, move the clock…). */
  prepare?: (ctx: {
    sandbox: Sandbox;
    admin: ReturnType<typeof adminApi>;
    merchant: MerchantCredentials;
    /** The web host's data folder (empty): a test may put an account's cache there. */
    dataDir: string;
    /** With `proxy: true`, the proxy the web host will go through (a fault set now applies from its first request). */
    proxy: FaultProxy | null;
  }) => Promise<void>;
  /** How long the web host may take to print its URL. */
  startTimeoutMs?: number;
  /**
   * A sandbox and its merchant as usual, but the web host starts without --base-url (the
   * embedded demo), so the account is configured through Settings like a user would.
   */
  hostInDemo?: boolean;
  /** A fixed port and an explicit --token, so the web host can be stopped and started again in place. */
  restartableHost?: boolean;
  /** The web host runs as where npm could not build keytar: no OS keychain module at all. */
  withoutKeytar?: boolean;
  /** `--forward-to-private-networks`: chat forwarding may reach a receiver on loopback. */
  forwardToPrivateNetworks?: boolean;
  /**
   * The web host reaches the sandbox (REST and feed) through a fault proxy (test/support/faultProxy.ts), started
   * before the host and kept across its restarts: `stack().proxy` sees every request it sends and can slow or break
   * them. Not with `demo` or `hostInDemo`.
   */
  proxy?: boolean;
}

export interface Stack {
  /** The host's URL with `?token=`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly token: string;
  readonly dataDir: string;
  readonly tempDir: string;
  /** The running sandbox; throws in demo mode or while stopped. */
  readonly sandbox: Sandbox;
  readonly admin: ReturnType<typeof adminApi>;
  readonly merchant: MerchantCredentials;
  readonly api: ReturnType<typeof merchantApi>;
  /** The proxy between the web host and the sandbox; throws without `proxy: true`. */
  readonly proxy: FaultProxy;
  /** The web host's combined stdout/stderr so far. */
  hostLog(): string;
  /** Closes the sandbox (the web host keeps running). */
  stopSandbox(): Promise<void>;
  /** Starts a sandbox on the same port with the same database and admin token (`restartable` only). */
  restartSandbox(): Promise<void>;
  /** Stops the web host (SIGTERM, a clean shutdown); `restartableHost` only. */
  stopHost(): Promise<void>;
  /** Starts the web host again on the same port and data dir, with the same token unless one is given; returns its URL. */
  startHost(options?: { token?: string }): Promise<string>;
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * Builds the bundles once (`electron-vite build`) when out/renderer/index.html is missing.
 * A lock directory keeps parallel workers from building at the same time.
 */
/** The newest change under the renderer's sources (its own and the shared code it bundles). */
function newestRendererSource(): number {
  let newest = 0;
  for (const dir of [join(ROOT, 'src', 'renderer'), join(ROOT, 'src', 'shared')]) {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/** A build of the renderer exists and is newer than every source it is made of. */
function rendererCurrent(): boolean {
  return existsSync(RENDERER_INDEX) && statSync(RENDERER_INDEX).mtimeMs >= newestRendererSource();
}

export async function ensureRendererBuilt(): Promise<void> {
  if (rendererCurrent()) return;
  mkdirSync(dirname(BUILD_LOCK), { recursive: true });
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Someone else is building; a lock older than 10 minutes belongs to a dead run.
      try {
        if (Date.now() - statSync(BUILD_LOCK).mtimeMs > 10 * 60_000)
          rmSync(BUILD_LOCK, { recursive: true, force: true });
      } catch {
        // gone meanwhile
      }
      await sleep(500);
      if (rendererCurrent()) return;
    }
  }
  try {
    if (rendererCurrent()) return;
    const require = createRequire(import.meta.url);
    const bin = join(dirname(require.resolve('electron-vite')), '..', 'bin', 'electron-vite.js');
    const build = spawnSync(process.execPath, [bin, 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
    if (build.status !== 0 || !existsSync(RENDERER_INDEX))
      throw new Error('electron-vite build failed: run `npm run build` and fix what it reports');
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

interface HostProcess {
  child: ChildProcess;
  url: string;
}

function spawnHost(args: string[], env: NodeJS.ProcessEnv, logFile: string, timeoutMs: number): Promise<HostProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/web/cli.ts', ...args, '--no-open'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Each line with the time it was read (UTC, ms), to follow a start-up that took too long.
  const write = (stream: string, text: string) =>
    appendFileSync(logFile, text.replace(/^(?=.)/gm, `[${stream} ${new Date().toISOString().slice(11, 23)}] `));
  child.stderr?.setEncoding('utf8').on('data', (text: string) => write('stderr', text));
  return new Promise<HostProcess>((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the web host printed no URL within ${timeoutMs} ms; its log:\n${readFileSync(logFile, 'utf8')}`));
    }, timeoutMs);
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      // The URL carries the token: keep it out of the log.
      const match = URL_LINE.exec(line);
      write('stdout', `${match ? 'Merchant Desk web host: <url>' : line}\n`);
      if (match?.[1]) {
        clearTimeout(timer);
        done({ child, url: match[1] });
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      appendFileSync(logFile, `[exit] code ${code} signal ${signal}\n`);
      fail(
        new Error(
          `the web host exited (code ${code}, signal ${signal}) before printing its URL; its log:\n${readFileSync(logFile, 'utf8')}`,
        ),
      );
    });
  });
}

async function stopHost(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 12_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Registers beforeAll/afterAll hooks that run one stack for the calling spec file
 * (and afterEach hooks that save the host's log of each test). Returns an accessor.
 */
export function useStack(options: StackOptions = {}): () => Stack {
  let stack: Stack | null = null;
  let child: ChildProcess | null = null;
  let sandbox: Sandbox | null = null;
  let proxy: FaultProxy | null = null;
  let tempDir = '';
  let logFile = '';
  let logOffset = 0;
  const killOnExit = () => child?.kill('SIGKILL');

  // eslint-disable-next-line no-empty-pattern -- Playwright wants a destructuring pattern
  base.beforeAll(async ({}, testInfo) => {
    testInfo.setTimeout(Math.max(testInfo.timeout, existsSync(RENDERER_INDEX) ? 120_000 : 300_000));
    await ensureRendererBuilt();
    tempDir = mkdtempSync(join(tmpdir(), 'md-e2e-'));
    const dataDir = join(tempDir, 'data');
    mkdirSync(dataDir, { recursive: true });
    logFile = join(tempDir, 'web-host.log');
    writeFileSync(logFile, '');
    const sandboxLog = (line: string) => appendFileSync(logFile, `[sandbox] ${line}\n`);

    const env: NodeJS.ProcessEnv = { ...process.env, MERCHANT_DESK_DATA_DIR: dataDir };
    delete env['MERCHANT_ID'];
    delete env['MERCHANT_API_KEY'];
    delete env['MERCHANT_DESK_WEB_TOKEN'];
    const hostPort = options.restartableHost ? await freePort() : 0;
    let hostToken = `e2e-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;
    const args = ['--data-dir', dataDir, '--port', String(hostPort)];
    // The token goes through the environment (out of the process list), like a user would.
    if (options.restartableHost) env['MERCHANT_DESK_WEB_TOKEN'] = hostToken;
    if (options.forwardToPrivateNetworks) args.push('--forward-to-private-networks');
    if (options.withoutKeytar) {
      env['NODE_OPTIONS'] =
        `${env['NODE_OPTIONS'] ?? ''} --import ${join(ROOT, 'test', 'support', 'withoutKeytar.mjs')}`.trim();
    }

    let admin: ReturnType<typeof adminApi> | null = null;
    let merchant: MerchantCredentials | null = null;
    // The base URL stays valid across restarts (same port).
    let baseUrl = '';
    const sandboxOptions = {
      items: options.items ?? 2000,
      seed: options.seed ?? 1,
      port: options.restartable ? await freePort() : 0,
      adminToken: `e2e-admin-${Math.random().toString(36).slice(2)}`,
      onInternalError: (error: unknown) => sandboxLog(`internal error: ${(error as Error).stack ?? String(error)}`),
      ...(options.restartable ? { dbFile: join(tempDir, 'sandbox.db') } : {}),
    };
    if (!options.demo) {
      sandbox = await startSandbox(sandboxOptions);
      baseUrl = sandbox.baseUrl;
      sandboxLog(`started at ${baseUrl} with ${sandboxOptions.items} items`);
      if (options.proxy && !options.hostInDemo) {
        proxy = FaultProxy.forBaseUrl(sandbox.baseUrl);
        await proxy.start();
        sandboxLog(`the web host goes through a proxy at ${proxy.baseUrl}`);
      }
      admin = adminApi(sandbox);
      const created = await admin.createMerchant({ balance: 1_000_000, ...options.merchant });
      merchant = { merchantId: created.merchantId, apiKey: created.apiKey };
      await options.prepare?.({ sandbox, admin, merchant, dataDir, proxy });
      if (!options.hostInDemo) {
        const target = proxy ?? sandbox;
        args.push('--base-url', target.baseUrl, '--ws-url', target.wsUrl);
        env['MERCHANT_ID'] = merchant.merchantId;
        env['MERCHANT_API_KEY'] = merchant.apiKey;
      }
    }

    const host = await spawnHost(args, env, logFile, options.startTimeoutMs ?? 90_000);
    child = host.child;
    let hostUrl = host.url;
    // A worker that dies without its hooks (Ctrl-C, crash) must not leave the host running.
    process.once('exit', killOnExit);
    const url = new URL(host.url);
    const token = url.searchParams.get('token') ?? '';
    const needSandbox = () => {
      if (!sandbox)
        throw new Error(options.demo ? 'demo mode: the sandbox lives inside the web host' : 'the sandbox is stopped');
      return sandbox;
    };
    const needMerchant = () => {
      if (!merchant || !admin) throw new Error('demo mode has no admin access');
      return { merchant, admin };
    };
    stack = {
      get url() {
        return hostUrl;
      },
      origin: url.origin,
      get token() {
        return new URL(hostUrl).searchParams.get('token') ?? token;
      },
      dataDir,
      tempDir,
      get sandbox() {
        return needSandbox();
      },
      get admin() {
        return needMerchant().admin;
      },
      get merchant() {
        return needMerchant().merchant;
      },
      get api() {
        return merchantApi({ baseUrl }, needMerchant().merchant);
      },
      get proxy() {
        if (!proxy) throw new Error('no proxy: useStack({ proxy: true })');
        return proxy;
      },
      hostLog: () => readFileSync(logFile, 'utf8'),
      async stopSandbox() {
        const running = needSandbox();
        sandbox = null;
        await running.close();
        sandboxLog('stopped');
      },
      async restartSandbox() {
        if (!options.restartable) throw new Error('restartSandbox needs useStack({ restartable: true })');
        if (sandbox) throw new Error('the sandbox is still running');
        sandbox = await startSandbox(sandboxOptions);
        sandboxLog(`restarted at ${sandbox.baseUrl}`);
      },
      async stopHost() {
        if (!options.restartableHost) throw new Error('stopHost needs useStack({ restartableHost: true })');
        if (child) await stopHost(child);
        process.off('exit', killOnExit);
        child = null;
        appendFileSync(logFile, '[e2e] web host stopped\n');
      },
      async startHost(next = {}) {
        if (!options.restartableHost) throw new Error('startHost needs useStack({ restartableHost: true })');
        if (child) throw new Error('the web host is still running');
        hostToken = next.token ?? hostToken;
        const restarted = await spawnHost(
          args,
          { ...env, MERCHANT_DESK_WEB_TOKEN: hostToken },
          logFile,
          options.startTimeoutMs ?? 90_000,
        );
        child = restarted.child;
        process.once('exit', killOnExit);
        hostUrl = restarted.url;
        appendFileSync(logFile, '[e2e] web host started again\n');
        return hostUrl;
      },
    };
  });

  base.beforeEach(() => {
    logOffset = logFile && existsSync(logFile) ? statSync(logFile).size : 0;
  });

  // eslint-disable-next-line no-empty-pattern -- Playwright wants a destructuring pattern
  base.afterEach(async ({}, testInfo) => {
    if (!logFile || !existsSync(logFile)) return;
    const slice = readFileSync(logFile).subarray(logOffset);
    const path = testInfo.outputPath('web-host.log');
    writeFileSync(path, slice);
    if (testInfo.status === testInfo.expectedStatus) return;
    await testInfo.attach('web-host.log', { path, contentType: 'text/plain' });
    // CI shows the run's output, not its files: the log's tail goes there too.
    const tail = slice.toString('utf8').trimEnd().split('\n').slice(-HOST_LOG_TAIL_LINES);
    console.log(`web host log of "${testInfo.title}" (its last ${tail.length} lines):\n${tail.join('\n')}`);
  });

  base.afterAll(async () => {
    process.off('exit', killOnExit);
    if (child) await stopHost(child);
    child = null;
    if (proxy) await proxy.close().catch(() => {});
    proxy = null;
    if (sandbox) await sandbox.close().catch(() => {});
    sandbox = null;
    stack = null;
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  });

  return () => {
    if (!stack) throw new Error('the stack is not running (useStack must be called at the top of the spec file)');
    return stack;
  };
}

/** `test` with a page whose browser console is saved and attached when the test fails. */
export const test = base.extend({
  page: async ({ page }, use, testInfo: TestInfo) => {
    const lines: string[] = [];
    page.on('console', (message) => lines.push(`[${message.type()}] ${message.text()} (${message.location().url})`));
    page.on('response', (response) => {
      if (response.status() >= 400)
        lines.push(
          `[http ${response.status()}] ${response.request().method()} ${response.url().replace(/token=[^&]+/, 'token=…')}`,
        );
    });
    page.on('pageerror', (error) => lines.push(`[pageerror] ${error.stack ?? error.message}`));
    await use(page);
    if (testInfo.status !== testInfo.expectedStatus && lines.length > 0) {
      await testInfo.attach('browser-console.log', { body: lines.join('\n'), contentType: 'text/plain' });
    }
  },
});
