// An engine test's ground: for each test a sandbox, a merchant on it and an engine on a fresh folder, live on the
// feed with its balance; all closed after the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/server/sandbox';
import { FaultProxy } from './faultProxy';
import { type EngineHarness, startEngine, waitForFeedAndBalance } from './faults/harness';
import { adminApi, type MerchantCredentials } from './sandboxHttp';

export interface EngineOnSandbox {
  sb: Sandbox;
  merchant: MerchantCredentials;
  app: EngineHarness;
}

export interface EngineBehindProxy extends EngineOnSandbox {
  proxy: FaultProxy;
  /** Closes the engine, the proxy and the sandbox, and removes the engine's folder. */
  close(): Promise<void>;
}

/**
 * A sandbox started with `sandbox`, a merchant made with `merchant` and an engine on a `prefix` temporary folder that
 * reaches the sandbox through a fault proxy, live on the feed with its balance.
 */
export async function startEngineBehindProxy(
  prefix: string,
  sandbox: SandboxOptions,
  merchant: Record<string, unknown>,
): Promise<EngineBehindProxy> {
  const sb = await startSandbox(sandbox);
  const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
  await proxy.start();
  const credentials = await adminApi(sb).createMerchant(merchant);
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const app = await startEngine(dataDir, { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, ...credentials });
  await waitForFeedAndBalance(app);
  const close = async () => {
    await app.close();
    await proxy.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { sb, proxy, merchant: credentials, app, close };
}

/**
 * Registers the file's hooks: a sandbox started with `sandbox`, a merchant made with `merchant` (the admin API's
 * input) and an engine on a `prefix` temporary folder. The getter gives the running test's.
 */
export function useEngineOnSandbox(
  prefix: string,
  sandbox: SandboxOptions,
  merchant: Record<string, unknown>,
): () => EngineOnSandbox {
  let current: (EngineOnSandbox & { dataDir: string }) | null = null;
  beforeEach(async () => {
    const sb = await startSandbox(sandbox);
    const credentials = await adminApi(sb).createMerchant(merchant);
    const dataDir = mkdtempSync(join(tmpdir(), prefix));
    const app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...credentials });
    current = { sb, merchant: credentials, app, dataDir };
    await waitForFeedAndBalance(app);
  });
  afterEach(async () => {
    if (!current) return;
    const { sb, app, dataDir } = current;
    current = null;
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return () => {
    if (!current) throw new Error('the engine and its sandbox run only inside a test');
    return current;
  };
}
