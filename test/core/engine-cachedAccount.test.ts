// A saved account whose API key no store holds after a restart (no keychain: keys were in memory only).
// Its cache (catalog, trades, ledger, balance) is on disk: the engine opens it read-only and offline, says
// how to go live, and goes live once the key is entered. Real sandbox over loopback, real SQLite files.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IpcMethod, IpcParsedInput, IpcResult } from '../../src/shared/ipc';
import { IPC_METHODS } from '../../src/shared/ipc';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';
import { createEngineFromOptions, type LaunchedEngine } from '../../src/main/core/engine/create';
import { Engine } from '../../src/main/core/engine/engine';
import { MemorySecretStore } from '../../src/main/core/secrets';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi } from '../support/sandboxHttp';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { waitFor } from '../support/waitFor';

describe('a saved account whose key no store holds', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let engine: Engine | null = null;
  let launched: LaunchedEngine | null = null;
  let requests: string[];

  async function call<M extends IpcMethod>(method: M, input: unknown = {}): Promise<IpcResult<M>> {
    const parsed = IPC_METHODS[method].input.parse(input) as IpcParsedInput<M>;
    return (engine as Engine).handle(method, parsed);
  }

  const noDemo = () => Promise.reject(new Error('no demo in this test'));

  /** The account live with its key: a catalog, a trade and its ledger entry, the balance, all cached. */
  async function cacheAnAccount(): Promise<{ tradeId: string; itemPrice: number; balanceAt: string }> {
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        version: 1,
        account: { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId: merchant.merchantId },
        settings: { demoSandbox: false },
      }),
    );
    const keys = new MemorySecretStore();
    await keys.set(merchant.merchantId, merchant.apiKey);
    engine = new Engine({ dataDir, secrets: keys, log: () => {}, startDemo: noDemo });
    await engine.start();
    await waitFor(async () => (await call('catalog.query', { limit: 1 })).total === 300, 20_000, 'catalog sync');
    const [cheapest] = (await call('catalog.query', { sort: 'price', direction: 'asc', limit: 1 })).rows;
    if (!cheapest) throw new Error('empty catalog');
    const bought = await call('buy.byId', {
      itemId: cheapest.itemId,
      assetId: cheapest.assetId,
      price: cheapest.price,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });
    if (!bought.ok) throw new Error(bought.failure.message);
    // The ledger sync is debounced: fast-forwarded.
    await reach(
      async () => (await call('wallet.ledger', { tradeId: bought.trade.tradeId })).total > 0,
      20_000,
      'ledger cached',
    );
    await waitFor(
      () => engine?.accountSession?.balance?.balance === 200_000 - cheapest.price,
      20_000,
      'balance cached',
    );
    if (!(await call('app.snapshot')).balanceAt) throw new Error('a live balance without the time the server gave it');
    await engine.close();
    engine = null;
    // What the cache holds once closed (a balance read after a trade's frames can land just before the close).
    const db = new Database(accountStoreFile(dataDir, merchant.merchantId), { readonly: true });
    const stored = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get('balance_at');
    db.close();
    const balanceAt = stored === undefined ? null : (JSON.parse(stored) as string);
    if (!balanceAt) throw new Error('no balance time in the cache');
    return { tradeId: bought.trade.tradeId, itemPrice: cheapest.price, balanceAt };
  }

  // The sandbox and the engines run on a fake clock that flows with real time (see cacheAnAccount).
  beforeEach(async () => {
    useFlowingFakeClock();
    sb = await startSandbox({ items: 300, seed: 23 });
    requests = [];
    sb.app.server.on('request', (request: { method?: string; url?: string }) => {
      requests.push(`${request.method} ${(request.url ?? '').split('?')[0]}`);
    });
    merchant = await adminApi(sb).createMerchant({ balance: 200_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-cached-account-'));
  });

  afterEach(async () => {
    await engine?.close();
    await launched?.close();
    engine = null;
    launched = null;
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
    useRealClock();
  });

  it('opens it from its cache, read-only and offline, says to enter the key, and goes live once it is entered', async () => {
    const { tradeId, itemPrice, balanceAt } = await cacheAnAccount();

    // Restart: the keys were in memory only, so no store holds this one now.
    const startedAt = Date.now();
    engine = new Engine({ dataDir, secrets: new MemorySecretStore(), log: () => {}, startDemo: noDemo });
    await engine.start();
    const before = requests.length;
    const snapshot = await call('app.snapshot');
    expect(snapshot.account).toMatchObject({
      merchantId: merchant.merchantId,
      baseUrl: sb.baseUrl,
      demo: false,
      apiKeyConfigured: false,
      cacheOnly: true,
    });
    expect(snapshot.connection.state).toBe('offline');
    expect(snapshot.connection.detail).toMatch(/Enter your API key .* to go live/);
    expect(snapshot.catalog.totalItems).toBe(299);
    expect(snapshot.balance?.balance).toBe(200_000 - itemPrice);
    // The cached balance carries the time the server gave it, not the time it was read back after the restart.
    expect(snapshot.balanceAt).toBe(balanceAt);
    expect(Date.parse(balanceAt)).toBeLessThan(startedAt);
    expect((await call('catalog.query', { limit: 50 })).total).toBe(299);
    expect((await call('trades.get', { tradeId }))?.trade).toMatchObject({ tradeId, price: itemPrice });
    expect((await call('trades.query', { limit: 10 })).total).toBe(1);
    expect((await call('wallet.ledger', { tradeId })).total).toBeGreaterThan(0);

    // What needs the key says so up front, and nothing is sent.
    const [row] = (await call('catalog.query', { limit: 1 })).rows;
    await expect(
      call('buy.byId', {
        itemId: row?.itemId,
        assetId: row?.assetId,
        price: row?.price,
        recipient: { tradeUrl: TEST_TRADE_URL },
      }),
    ).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/Enter your API key/),
    });
    expect(await call('catalog.refresh')).toEqual({
      started: false,
      reason: expect.stringMatching(/Enter your API key/),
    });
    expect(requests.slice(before)).toEqual([]);

    // The key entered in Settings: the same account goes live on the same cache.
    const result = await call('account.configure', {
      baseUrl: sb.baseUrl,
      wsUrl: sb.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
    });
    expect(result.ok).toBe(true);
    await waitFor(() => engine?.accountSession?.connection.state === 'connected', 20_000, 'the feed');
    expect((await call('app.snapshot')).account).toMatchObject({ apiKeyConfigured: true, cacheOnly: false });
    expect((await call('trades.get', { tradeId }))?.trade.tradeId).toBe(tradeId);
  }, 60_000);

  it('does the same for an account given on the command line with no key anywhere', async () => {
    const { tradeId } = await cacheAnAccount();
    const lines: string[] = [];
    launched = await createEngineFromOptions({
      baseUrl: sb.baseUrl,
      wsUrl: sb.wsUrl,
      dataDir,
      log: (line) => lines.push(line),
      env: { MERCHANT_ID: merchant.merchantId },
      startDemo: noDemo,
    });
    engine = launched.engine;
    // A keychain slow to answer (a busy machine) is waited for first; it holds no key for this merchant.
    let snapshot = await call('app.snapshot');
    await waitFor(
      async () => !(snapshot = await call('app.snapshot')).account.awaitingKeyStore,
      60_000,
      "the key store's answer",
    );
    expect(snapshot.account).toMatchObject({
      merchantId: merchant.merchantId,
      apiKeyConfigured: false,
      cacheOnly: true,
    });
    expect(snapshot.connection.detail).toMatch(/Enter your API key .* to go live/);
    expect((await call('trades.get', { tradeId }))?.trade.tradeId).toBe(tradeId);
    expect(lines.join('\n')).toMatch(new RegExp(`No API key for merchant ${merchant.merchantId}`));
    engine = null;
  }, 60_000);
});
