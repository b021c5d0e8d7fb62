// `npm run web`: the engine plus the loopback web host, for machines without Electron.
// stdout carries exactly one line, `Merchant Desk web host: <url>` (scripts read it);
// everything else (build output, engine log, warnings) goes to stderr.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createEngineFromOptions } from '../main/core/engine/create';
import { openBrowser } from './openBrowser';
import { parseWebCli, USAGE } from './options';
import type { WebHost } from './webHost';

const root = resolve(import.meta.dirname, '../..');
const rendererDir = join(root, 'out', 'renderer');
/** A second SIGINT/SIGTERM sooner than this after the first is the same request (see stop below). */
const REPEATED_SIGNAL_MS = 1000;

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

function fail(message: string, code = 1): never {
  log(`web: ${message}`);
  process.exit(code);
}

/** Builds the renderer when `out/renderer/index.html` is missing (same as `npm run build`). */
function ensureRenderer(): void {
  if (existsSync(join(rendererDir, 'index.html'))) return;
  log('web: the renderer is not built yet; running electron-vite build (npm run build)...');
  let bin: string;
  try {
    // electron-vite does not export its bin; it sits beside dist/.
    const require = createRequire(import.meta.url);
    bin = join(dirname(require.resolve('electron-vite')), '..', 'bin', 'electron-vite.js');
  } catch {
    fail('electron-vite is not installed: run `npm install`, then `npm run build`.');
  }
  // The build's own output goes to stderr: stdout is reserved for the URL line.
  const build = spawnSync(process.execPath, [bin, 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0 || !existsSync(join(rendererDir, 'index.html'))) {
    fail('building the renderer failed: run `npm run build` and fix what it reports, then try again.');
  }
}

async function main(): Promise<void> {
  const parsed = parseWebCli(process.argv.slice(2), process.env);
  if (!parsed.ok) {
    log(`web: ${parsed.message}`);
    log(USAGE);
    process.exit(2);
  }
  const args = parsed.options;
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  for (const warning of args.warnings) log(warning);
  const { host, port, token } = args;
  const dataDir = resolve(args.dataDir ?? (process.env['MERCHANT_DESK_DATA_DIR'] || join(homedir(), '.merchant-desk')));

  ensureRenderer();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });

  // The engine opens the account's cache while the web host starts listening: a page that connects
  // meanwhile gets its answers once the account is open (Engine.handle waits for the start).
  const created = await createEngineFromOptions({
    ...(args.baseUrl !== null ? { baseUrl: args.baseUrl } : {}),
    ...(args.wsUrl !== null ? { wsUrl: args.wsUrl } : {}),
    dataDir,
    log,
    // The demo is the host's: its code (the sandbox) loads only when the demo is used.
    startDemo: async () => (await import('../server/demo')).startDemoSandbox(dataDir, log),
    startInBackground: true,
    forwardToPrivateNetworks: args.forwardToPrivateNetworks,
    ...(args.testRateLimitScale !== 1 ? { testRateLimitScale: args.testRateLimitScale } : {}),
  });

  // The web host's code (fastify) loads while the store's threads boot on the other core: one turn first,
  // so the engine spawns them before this thread is busy.
  await new Promise((resolve) => setImmediate(resolve));
  const { startWebHost } = await import('./webHost');
  let webHost: WebHost;
  try {
    webHost = await startWebHost({
      engine: created.engine,
      rendererDir,
      host,
      port,
      ...(token ? { token } : {}),
      ...(args.publicUrl !== null ? { publicUrl: args.publicUrl } : {}),
      allowHosts: args.allowHosts,
      log,
    });
  } catch (error) {
    await created.close().catch(() => {});
    throw error;
  }

  let stoppingSince: number | null = null;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stoppingSince !== null) {
      // A terminal's Ctrl-C reaches the whole process group, and the launcher (scripts/start.mjs) forwards it
      // too: the same press arrives twice within moments. Only a signal sent later forces the exit.
      if (Date.now() - stoppingSince < REPEATED_SIGNAL_MS) return;
      log(`web: ${signal} again; exiting without a clean shutdown`);
      process.exit(1);
    }
    stoppingSince = Date.now();
    log(`web: ${signal}: shutting down`);
    setTimeout(() => {
      log('web: shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    let code = 0;
    try {
      await webHost.close();
    } catch (error) {
      code = 1;
      log(`web: closing the web host failed: ${(error as Error).message}`);
    }
    try {
      await created.close();
    } catch (error) {
      code = 1;
      log(`web: closing the engine failed: ${(error as Error).message}`);
    }
    process.exit(code);
  };
  process.on('SIGINT', (signal) => void stop(signal));
  process.on('SIGTERM', (signal) => void stop(signal));

  process.stdout.write(`Merchant Desk web host: ${webHost.url}\n`);
  try {
    await created.started;
  } catch (error) {
    await webHost.close().catch(() => {});
    await created.close().catch(() => {});
    fail(`the engine did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  log(`web: ${created.describe()}; data in ${dataDir}`);
  // A one-time link: the browser's command line is readable by every local user.
  if (args.open) openBrowser(webHost.openUrl(), { log });
}

main().catch((error: unknown) => {
  fail(error instanceof Error ? error.message : String(error));
});
