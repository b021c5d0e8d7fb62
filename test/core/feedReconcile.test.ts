import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import type { EngineEventBatch } from '../../src/shared/ipc';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { TEST_TRADE_URL, adminApi, merchantApi, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * The feed comes back after an outage: the app reconciles at once (balance, active trades) and says "Live"
 * (state `connected`) only once it has, whatever Retry-After a 503 of the outage asked for.
 */
describe('after an outage the app catches up at once and only then says Live', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    useRealClock();
  });

  async function setUp(): Promise<{ sb: Sandbox; dbFile: string; merchant: MerchantCredentials; app: EngineHarness }> {
    const dir = mkdtempSync(join(tmpdir(), 'feed-reconcile-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dbFile = join(dir, 'sandbox.db');
    const sb = await startSandbox({ items: 100, seed: 3, dbFile });
    cleanups.push(() => sb.close());
    const merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    const app = await startEngine(join(dir, 'app'), { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    cleanups.push(() => app.close());
    await waitFor(
      () => app.session().connection.state === 'connected' && app.session().balance !== null,
      15_000,
      'live',
    );
    return { sb, dbFile, merchant, app };
  }

  /** Index of the first batch from `from` on that matches. */
  const firstFrom = (batches: EngineEventBatch[], from: number, match: (batch: EngineEventBatch) => boolean) =>
    batches.findIndex((batch, index) => index >= from && match(batch));

  it('maintenance ends: the feed is back, the 503 backoff (Retry-After 60) no longer holds the reconcile, Live after it', async () => {
    const { sb, merchant, app } = await setUp();
    const admin = adminApi(sb);
    const [item] = (await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 900 }] })).body.items as [
      Item,
    ];
    const bought = await merchantApi(sb, merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: TEST_TRADE_URL,
    });
    expect(bought.status).toBe(200);
    await waitFor(() => app.session().activeTrades === 1, 10_000, 'the trade');

    await admin.post('/admin/maintenance', { on: true });
    await app.session().refreshBalance(); // meets the 503: every request now waits Retry-After (60 s)
    expect(app.session().limiter.status().backoffUntil).not.toBeNull();
    await app.session().feed.restart(); // the feed meets it too
    await waitFor(() => app.session().connection.state === 'maintenance', 10_000, 'maintenance');

    // While it lasts the trade ends and the balance changes.
    await admin.transition(bought.body.tradeId, { status: 'SENT' });
    await admin.transition(bought.body.tradeId, { status: 'COMPLETED' });
    expect(
      (await admin.post(`/admin/merchants/${merchant.merchantId}/balance`, { type: 'ADMIN TOP UP', amount: 12_345 }))
        .status,
    ).toBe(201);

    const mark = app.batches.length;
    await admin.post('/admin/maintenance', { on: false });
    const serverBalance = (await merchantApi(sb, merchant).get<{ balance: number }>('/Wallet/GetBalance')).body;
    expect(serverBalance.balance).toBe(1_000_000 - 900 + 12_345);
    await app.session().feed.restart(); // what its retry timer does when it comes due
    // Current within seconds (not after the 60 s Retry-After), and no batch says Live before the batch that makes it current.
    const batchesSay = () => ({
      current: firstFrom(app.batches, mark, (b) => b.balance?.balance === serverBalance.balance),
      live: firstFrom(app.batches, mark, (b) => b.connection?.state === 'connected'),
    });
    await waitFor(() => batchesSay().current >= 0 && batchesSay().live >= 0, 10_000, 'live and current');
    expect(batchesSay().live).toBeGreaterThanOrEqual(batchesSay().current);
    expect(app.session().activeTrades).toBe(0);
  });

  it('a plain outage: "Retry now" reconnects and reconciles at once instead of at the next backed-off attempt', async () => {
    // The feed's backoff grows on a fake clock (the sandbox's and the engine's), fast-forwarded; "at once" is then
    // real time, the fake clock flowing with it.
    useFlowingFakeClock();
    const { sb, dbFile, merchant, app } = await setUp();
    const port = Number(new URL(sb.baseUrl).port);
    await sb.close();
    await reach(
      () =>
        app.session().feed.state.attempt >= 3 &&
        Date.parse(app.session().connection.nextAttemptAt ?? '') - Date.now() > 1_500,
      20_000,
      'a backed-off retry',
    );
    expect(app.session().connection.state).toBe('offline');

    const back = await startSandbox({ port, dbFile });
    cleanups.push(() => back.close());
    expect(
      (
        await adminApi(back).post(`/admin/merchants/${merchant.merchantId}/balance`, {
          type: 'ADMIN TOP UP',
          amount: 777,
        })
      ).status,
    ).toBe(201);
    const serverBalance = (await merchantApi(back, merchant).get<{ balance: number }>('/Wallet/GetBalance')).body
      .balance;
    const nextAttempt = Date.parse(app.session().connection.nextAttemptAt ?? '');

    expect(await app.call('connection.retryNow', {})).toEqual({ started: true });
    await waitFor(
      () => app.session().connection.state === 'connected' && app.session().balance?.balance === serverBalance,
      10_000,
      'live',
    );
    expect(Date.now()).toBeLessThan(nextAttempt);
  });
});
