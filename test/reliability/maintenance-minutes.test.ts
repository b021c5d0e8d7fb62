import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Item } from '../../src/shared/api';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { fastForward } from '../support/faults/fakeClock';
import { FaultProxy } from '../support/faultProxy';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { adminApi, tradeUrlFor } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

/**
 * 503 maintenance that lasts minutes, without waiting minutes: the whole process (sandbox,
 * proxy, engine) runs on vitest's fake timers and Date, which flow with real time while the
 * stage is set and are then fast-forwarded a second at a time through 4 minutes of
 * maintenance and what follows. Every timer the engine uses (its recovery backoff, polling,
 * the feed's reconnects, the rate limiter's Retry-After waits) is on that clock, so the
 * counts below are what minutes of real maintenance would cost: the engine says so, sends a
 * handful of requests a minute (no spin), and is current again shortly after the end.
 */

const MAINTENANCE_MS = 4 * 60_000;
const RETRY_AFTER_SECONDS = 30;
const LAST_LOOK_BEFORE_END_MS = 5_000;

describe('503 maintenance for minutes (fake clock)', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let app: EngineHarness;
  let dataDir: string;
  const balanceOf = () =>
    sb.core.db.prepare<[string], number>('SELECT balance FROM merchants WHERE merchant_id = ?').pluck();
  let merchantId = '';

  const current = async (): Promise<boolean> => {
    const local = await app.call('trades.query', { limit: 500 });
    const byId = new Map(local.rows.map((t) => [t.tradeId, t.status]));
    const trades = sb.core.db
      .prepare<[string], { trade_id: string; status: string }>(
        'SELECT trade_id, status FROM trades WHERE merchant_id = ?',
      )
      .all(merchantId);
    return (
      app.session().balance?.balance === balanceOf().get(merchantId) &&
      trades.every((t) => byId.get(t.trade_id) === t.status)
    );
  };

  beforeAll(async () => {
    // Fake setTimeout/setInterval/Date for everything created from here on; they advance with real time
    // (shouldAdvanceTime) until the test fast-forwards them.
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
      shouldAdvanceTime: true,
      advanceTimeDelta: 10,
    });
    sb = await startSandbox({ items: 300, seed: 41 });
    proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    const merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    merchantId = merchant.merchantId;
    dataDir = mkdtempSync(join(tmpdir(), 'maintenance-minutes-'));
    app = await startEngine(dataDir, {
      baseUrl: proxy.baseUrl,
      wsUrl: proxy.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
    });
    await waitFor(
      async () =>
        app.session().connection.state === 'connected' &&
        (await app.call('catalog.query', { limit: 1 })).total > 0 &&
        app.session().balance !== null,
      30_000,
      'feed connected and first sync',
    );
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await sb?.close();
    vi.useRealTimers();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('says so, sends a few requests a minute (no spin), and is current again soon after it ends', async () => {
    // A trade held by the engine, current before the fault.
    const [item] = (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 800 }] })).body
      .items as [Item];
    const outcome = await app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: 800,
      recipient: { tradeUrl: tradeUrlFor(71_000_001) },
    });
    if (!outcome.ok) throw new Error(outcome.failure.message);
    await waitFor(current, 30_000, 'current after the buy');

    const start = Date.now();
    proxy.inject('/', { kind: 'maintenance', untilMs: start + MAINTENANCE_MS, retryAfterSeconds: RETRY_AFTER_SECONDS });
    // The feed drops (it meets the 503 on its way back) and the trade ends on the server meanwhile.
    proxy.dropConnections();
    await adminApi(sb).transition(outcome.trade.tradeId, { status: 'SENT' });
    await adminApi(sb).transition(outcome.trade.tradeId, { status: 'CANCELLED', errorCode: 504 });

    await fastForward(60_000, () => app.session().connection.state === 'maintenance');
    expect(app.session().connection.state).toBe('maintenance');
    expect(app.batches.some((b) => b.connection?.state === 'maintenance')).toBe(true);
    expect((await app.engine.snapshot()).connection.detail).toMatch(/maintenance/i);

    // Up to a few seconds before the end (a 1 s step that crossed it could already see the feed back).
    await fastForward(start + MAINTENANCE_MS - LAST_LOOK_BEFORE_END_MS - Date.now());
    expect(Date.now()).toBeLessThan(start + MAINTENANCE_MS);
    expect(Date.now() - start).toBeGreaterThanOrEqual(MAINTENANCE_MS - LAST_LOOK_BEFORE_END_MS);
    // Still saying so at the end of minutes of maintenance.
    expect(app.session().connection.state).toBe('maintenance');

    // After the end: current again (trades and balance), feed back, without anyone asking.
    await fastForward(
      5 * 60_000 + LAST_LOOK_BEFORE_END_MS,
      async () =>
        Date.now() >= start + MAINTENANCE_MS && (await current()) && app.session().connection.state === 'connected',
    );
    const recoveredIn = Date.now() - (start + MAINTENANCE_MS);
    const during = proxy.requests.filter((r) => r.at >= start && r.at < start + MAINTENANCE_MS);
    const perMinute = Array.from(
      { length: MAINTENANCE_MS / 60_000 },
      (_, m) => during.filter((r) => r.at >= start + m * 60_000 && r.at < start + (m + 1) * 60_000).length,
    );
    // Everything sent during it met the 503 (but a balance read already on its way when it began).
    expect(during.filter((r) => r.status !== 503 && r.at > start + 1_000)).toEqual([]);
    expect(await current()).toBe(true);
    expect(app.session().connection.state).toBe('connected');
    process.stdout.write(
      `maintenance-minutes: 503 (Retry-After ${RETRY_AFTER_SECONDS} s) for ${MAINTENANCE_MS / 60_000} min of fake time: requests per minute ${perMinute.join(', ')} ` +
        `(REST ${during.filter((r) => !r.upgrade).length}, feed upgrades ${during.filter((r) => r.upgrade).length}); current and connected ${(recoveredIn / 1000).toFixed(0)} s after it ended\n`,
    );
    // No spin: a few requests a minute (recovery backoff up to 2 min, 15 s polls waiting out Retry-After, feed retries).
    expect(Math.max(...perMinute)).toBeLessThanOrEqual(12);
    expect(during.length).toBeLessThanOrEqual(40);
    expect(during.length).toBeGreaterThanOrEqual(MAINTENANCE_MS / 60_000); // it kept trying
    // Back within the longest backoff (2 min) plus the server's Retry-After and a poll.
    expect(recoveredIn).toBeLessThanOrEqual(120_000 + RETRY_AFTER_SECONDS * 1000 + 30_000);
  }, 120_000);
});
