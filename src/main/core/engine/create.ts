import { join } from 'node:path';
import { startSandbox } from '../../../server/sandbox';
import type { EngineService } from '../ipc/engineService';
import { EnvironmentSecretStore, MemorySecretStore, openSecretStore } from '../secrets';
import type { DemoAccount } from './engine';
import { Engine } from './engine';

export interface EngineLaunchOptions {
  /** A real (or outside) API; without it the embedded demo sandbox is used. */
  baseUrl?: string;
  wsUrl?: string;
  dataDir: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface LaunchedEngine {
  engine: EngineService & Engine;
  close(): Promise<void>;
  describe(): string;
}

/** The embedded demo: a persistent sandbox with a simulated market, on a free loopback port. */
export async function startDemoSandbox(dataDir: string, log: (line: string) => void): Promise<DemoAccount> {
  const sandbox = await startSandbox({
    dbFile: join(dataDir, 'demo-sandbox.sqlite'),
    demoMerchant: true,
    simulate: true,
    eventsPerSecond: 5,
    onInternalError: (error) => log(`demo sandbox: ${(error as Error).stack ?? String(error)}`),
  });
  const demo = sandbox.demo as { merchantId: string; apiKey: string };
  log(`demo sandbox at ${sandbox.baseUrl}`);
  return {
    credentials: { baseUrl: sandbox.baseUrl, wsUrl: sandbox.wsUrl, merchantId: demo.merchantId, apiKey: demo.apiKey },
    close: () => sandbox.close(),
  };
}

/**
 * Builds and starts the engine for a host (web host CLI or Electron shell).
 * With `baseUrl`, credentials come from the keychain or from MERCHANT_ID and
 * MERCHANT_API_KEY; without it, the demo sandbox starts.
 */
export async function createEngineFromOptions(options: EngineLaunchOptions): Promise<LaunchedEngine> {
  const env = options.env ?? process.env;
  const { store: secrets, warning } = await openSecretStore({ env });
  if (warning) options.log(warning);
  let override;
  if (options.baseUrl) {
    const merchantId = env.MERCHANT_ID;
    if (!merchantId) throw new Error('--base-url needs MERCHANT_ID in the environment (and the key in the keychain or MERCHANT_API_KEY)');
    const apiKey = (await secrets.get(merchantId)) ?? (EnvironmentSecretStore.isConfigured(env) ? env.MERCHANT_API_KEY ?? null : null);
    if (!apiKey) throw new Error(`No API key for merchant ${merchantId}: store it in the keychain (Settings) or set MERCHANT_API_KEY`);
    const wsUrl = options.wsUrl ?? `${options.baseUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/ws`;
    override = { baseUrl: options.baseUrl.replace(/\/+$/, ''), wsUrl, merchantId, apiKey };
  }
  const engine = new Engine({
    dataDir: options.dataDir,
    // The demo's key is no secret; a memory store keeps it out of the keychain.
    secrets: secrets.kind === 'memory' ? new MemorySecretStore() : secrets,
    log: options.log,
    startDemo: () => startDemoSandbox(options.dataDir, options.log),
    ...(override ? { override } : {}),
  });
  await engine.start();
  return { engine, close: () => engine.close(), describe: () => engine.describe() };
}
