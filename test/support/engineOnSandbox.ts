// An engine test's ground: for each test a sandbox, a merchant on it and an engine on a fresh folder, live on the
// feed with its balance; all closed after the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/server/sandbox';
import { type EngineHarness, startEngine, waitForFeedAndBalance } from './faults/harness';
import { adminApi, type MerchantCredentials } from './sandboxHttp';

export interface EngineOnSandbox {
  sb: Sandbox;
  merchant: MerchantCredentials;
  app: EngineHarness;
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
