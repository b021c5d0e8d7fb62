// The embedded demo the hosts (Electron shell, web host) start and hand to the engine as its account.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createPrivateFile, PRIVATE_FILE_MODE } from '../main/core/privateFiles';
import type { BusyMerchantOptions } from './sandbox';
import { startSandbox } from './sandbox';
import { BUSY_DEFAULTS } from './seeding/historyParams';

/** What the engine needs of the demo: an account (the demo's key is no secret) and a way to stop it. */
export interface DemoSandbox {
  credentials: { baseUrl: string; wsUrl: string; merchantId: string; apiKey: string };
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
/** `npm start -- --busy` sets it: the demo starts as a busy merchant. */
export const DEMO_BUSY_ENV = 'MERCHANT_DESK_DEMO_BUSY';

/** The demo's choices: a busy merchant (a seeded history and the load mode) or the plain demo. */
export interface DemoOptions {
  busy?: Pick<BusyMerchantOptions, 'days' | 'tradesPerDay' | 'recipients'> | null;
}

/** What the environment asks of the demo: MERCHANT_DESK_DEMO_BUSY=1 makes it busy (14 days at 10,000 a day). */
export function demoOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): DemoOptions {
  return env[DEMO_BUSY_ENV] === '1' ? { busy: BUSY_DEFAULTS } : {};
}
/** Where the demo listened last: the cached catalog's picture URLs carry this address. */
const PORT_FILE = 'demo-sandbox.json';

/**
 * A persistent sandbox with a simulated market, kept in the data folder, on the loopback port it had the
 * last time (so the cached pictures still load after a restart); on a free port when that one is taken.
 */
export async function startDemoSandbox(
  dataDir: string,
  log: (line: string) => void,
  options: DemoOptions = demoOptionsFromEnv(process.env),
): Promise<DemoSandbox> {
  const previous = readPort(dataDir);
  let port = 0;
  if (previous !== null) {
    if (await portIsFree(previous)) port = previous;
    else
      log(
        `demo sandbox: port ${previous} is taken now; starting on another one (the cached pictures are fetched again)`,
      );
  }
  // The data folder is the user's alone, the demo's files too (SQLite gives -wal and -shm the database's mode).
  const dbFile = join(dataDir, 'demo-sandbox.sqlite');
  createPrivateFile(dbFile);
  const sandbox = await startSandbox({
    host: HOST,
    port,
    dbFile,
    demoMerchant: true,
    simulate: true,
    eventsPerSecond: 5,
    // A busy merchant: its last days seeded once (a data folder whose demo merchant traded already keeps its
    // trades), and its back end buying by itself.
    ...(options.busy
      ? {
          busyMerchant: {
            ...options.busy,
            onProgress: ({ written, total, elapsedMs }) =>
              log(`demo sandbox: seeding the busy merchant's history: ${written}/${total} trades (${elapsedMs} ms)`),
          },
          loadMode: { recipients: options.busy.recipients },
        }
      : {}),
    onInternalError: (error) =>
      log(`demo sandbox: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  });
  const demo = sandbox.demo;
  if (!demo) {
    await sandbox.close();
    throw new Error('the demo sandbox started without its demo merchant');
  }
  const bound = Number(new URL(sandbox.baseUrl).port);
  if (bound !== previous) writePort(dataDir, bound, log);
  log(`demo sandbox at ${sandbox.baseUrl}`);
  if (sandbox.busy) {
    log(
      sandbox.busy.seeded
        ? `demo sandbox: busy merchant with ${sandbox.busy.seeded.trades} trades, buying ${sandbox.load?.options.tradesPerDay} a day`
        : `demo sandbox: the demo merchant's trades are kept as they are (a new data folder gets a seeded history); buying ${sandbox.load?.options.tradesPerDay} a day`,
    );
  }
  return {
    credentials: { baseUrl: sandbox.baseUrl, wsUrl: sandbox.wsUrl, merchantId: demo.merchantId, apiKey: demo.apiKey },
    close: () => sandbox.close(),
  };
}

function readPort(dataDir: string): number | null {
  try {
    const value: unknown = JSON.parse(readFileSync(join(dataDir, PORT_FILE), 'utf8'));
    const port = typeof value === 'object' && value !== null ? (value as { port?: unknown }).port : undefined;
    return typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65_536 ? port : null;
  } catch {
    // None yet, or unreadable: any free port will do, and is written down.
    return null;
  }
}

function writePort(dataDir: string, port: number, log: (line: string) => void): void {
  const file = join(dataDir, PORT_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify({ port })}\n`, { mode: PRIVATE_FILE_MODE });
    renameSync(temp, file);
  } catch (error) {
    log(`demo sandbox: could not keep its port in ${file}: ${(error as Error).message}`);
  }
}

/** Whether nothing listens on the port now (the sandbox binds it a moment later). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: HOST, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
