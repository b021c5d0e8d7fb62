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

export type StartEngineOptions = NonNullable<Parameters<typeof startEngine>[2]>;

/** A sandbox's busy merchant behind a fault proxy, with an empty data folder for the engines a test launches on it. */
export interface BusyMerchantBehindProxy {
  sb: Sandbox;
  proxy: FaultProxy;
  merchant: MerchantCredentials;
  dataDir: string;
  /** An engine on the data folder; `settings` applied before it starts. */
  launch(options?: StartEngineOptions & { settings?: Record<string, unknown> }): Promise<EngineHarness>;
}

/**
 * A sandbox started with `sandbox` (its `busyMerchant` seeded), a fault proxy in front and a `prefix` temporary
 * folder; each part's clean-up (and each launched engine's close) pushed on `cleanups`, for the file's afterEach to
 * run in reverse.
 */
export async function busyMerchantBehindProxy(
  prefix: string,
  sandbox: SandboxOptions,
  cleanups: (() => Promise<void> | void)[],
): Promise<BusyMerchantBehindProxy> {
  const sb = await startSandbox(sandbox);
  cleanups.push(() => sb.close());
  const busy = sb.busy;
  if (!busy) throw new Error('the sandbox has no busy merchant: give it sandbox.busyMerchant');
  const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
  await proxy.start();
  cleanups.push(() => proxy.close());
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const merchant = { merchantId: busy.merchantId, apiKey: busy.apiKey };
  return {
    sb,
    proxy,
    merchant,
    dataDir,
    async launch({ settings, ...options } = {}) {
      const account = { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, ...merchant };
      const app = await startEngine(dataDir, account, settings ? { ...options, start: false } : options);
      cleanups.push(() => app.close());
      if (settings) {
        await app.call('settings.update', settings);
        if (options.start !== false) await app.engine.start();
      }
      return app;
    },
  };
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
