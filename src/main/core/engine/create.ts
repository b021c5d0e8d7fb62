import { join } from 'node:path';
import type { EngineService } from '../ipc/engineService';
import {
  API_KEY_VARIABLE,
  MERCHANT_ID_VARIABLE,
  MemorySecretStore,
  openSecretStore,
  type SafeStorageBackend,
} from '../secrets';
import { sameEndpoint } from '../../../shared/endpoints';
import { AppConfigFile } from './appConfig';
import type { DemoAccount, EngineOptions } from './engine';
import { Engine } from './engine';

export interface EngineLaunchOptions {
  /** A real (or outside) API; without it the embedded demo sandbox is used. */
  baseUrl?: string;
  /** Starts the embedded demo sandbox: the host owns it (the engine never loads the sandbox's code). */
  startDemo: () => Promise<DemoAccount>;
  wsUrl?: string;
  dataDir: string;
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The Electron app's fallback key store where keytar is missing: Electron's safeStorage. */
  safeStorage?: SafeStorageBackend;
  /**
   * Return before the engine has started (opened the account's cache, reconciled):
   * `started` settles then. A host can serve its UI meanwhile; calls wait for the start.
   */
  startInBackground?: boolean;
  /** Chat forwarding may post to loopback and private networks (the host's command line only). */
  forwardToPrivateNetworks?: boolean;
  /** Benchmarks only (EngineOptions.testRateLimitScale): the host's `--test-rate-limit-scale`. */
  testRateLimitScale?: number;
  /** Where CSV exports go and how one is shown (EngineOptions.exportTarget); the desktop shell's. */
  exportTarget?: EngineOptions['exportTarget'];
}

export interface LaunchedEngine {
  engine: EngineService & Engine;
  /** Settles when the engine has started (at once unless startInBackground). */
  started: Promise<void>;
  close(): Promise<void>;
  describe(): string;
}

/**
 * Builds and starts the engine for a host (web host CLI or Electron shell).
 * With `baseUrl`, the merchant is MERCHANT_ID, else the account saved in the
 * data directory's config.json; its key comes from the keychain (waited for
 * while it is slow to answer), else from MERCHANT_API_KEY. Without `baseUrl`,
 * the host's demo sandbox starts (`startDemo`).
 */
export async function createEngineFromOptions(options: EngineLaunchOptions): Promise<LaunchedEngine> {
  const env = options.env ?? process.env;
  const { store: secrets, warning } = await openSecretStore({
    env,
    ...(options.safeStorage
      ? { safeStorage: { backend: options.safeStorage, file: join(options.dataDir, 'api-keys.json') } }
      : {}),
  });
  options.log(warning ?? 'API keys are kept in the OS keychain (service merchant-desk).');
  let override;
  if (options.baseUrl) {
    const saved = savedAccount(options.dataDir, options.log);
    const merchantId = env[MERCHANT_ID_VARIABLE] || saved?.merchantId;
    if (!merchantId) {
      throw new Error(
        `--base-url needs a merchant: set ${MERCHANT_ID_VARIABLE} (and the key in the keychain or ${API_KEY_VARIABLE}), or configure the account once in Settings so ${join(options.dataDir, 'config.json')} names it`,
      );
    }
    const envKey = env[API_KEY_VARIABLE];
    const envKeyFits = Boolean(envKey) && (!env[MERCHANT_ID_VARIABLE] || env[MERCHANT_ID_VARIABLE] === merchantId);
    // A stored key goes only to the saved account's own address; the environment's key is given for this run.
    const storedKeyFits =
      secrets.kind === 'environment' ||
      (saved?.merchantId === merchantId && sameEndpoint(saved.baseUrl, options.baseUrl));
    if (!storedKeyFits && !envKeyFits) {
      options.log(
        `The stored API key of ${merchantId} is only sent to the saved account's address${saved?.merchantId === merchantId ? ` (${saved.baseUrl})` : ''}; for ${options.baseUrl} set ${API_KEY_VARIABLE}`,
      );
    }
    // The engine reads the stored key as it starts (waiting for a keychain slow to answer); the environment's serves without one.
    const apiKey = envKeyFits ? (envKey as string) : null;
    const wsUrl = options.wsUrl ?? `${options.baseUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/ws`;
    override = { baseUrl: options.baseUrl.replace(/\/+$/, ''), wsUrl, merchantId, apiKey, useStoredKey: storedKeyFits };
  }
  const engine = new Engine({
    dataDir: options.dataDir,
    // The demo's key is no secret; a memory store keeps it out of the keychain.
    secrets: secrets.kind === 'memory' ? new MemorySecretStore() : secrets,
    log: options.log,
    startDemo: options.startDemo,
    ...(override ? { override } : {}),
    ...(options.forwardToPrivateNetworks ? { forwardToPrivateAddresses: true } : {}),
    ...(options.exportTarget ? { exportTarget: options.exportTarget } : {}),
    ...(options.testRateLimitScale !== undefined ? { testRateLimitScale: options.testRateLimitScale } : {}),
  });
  const started = engine.start();
  if (!options.startInBackground) await started;
  return { engine, started, close: () => engine.close(), describe: () => engine.describe() };
}

/** The account saved in `config.json`, if any (keychain-only headless runs name no merchant in the environment). */
function savedAccount(dataDir: string, log: (line: string) => void): { merchantId: string; baseUrl: string } | null {
  const config = new AppConfigFile(dataDir);
  if (config.problem) log(config.problem);
  return config.get().account ?? null;
}
