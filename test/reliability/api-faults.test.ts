import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { ClientRateLimiter, MerchantApiClient } from '../../src/main/core/api';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { FaultProxy } from '../support/faultProxy';
import { fastForward, reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, tradeUrlFor, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * The API misbehaves, the engine copes: a 429 storm, 503 maintenance (the
 * proxy's, and the sandbox's own POST /admin/maintenance), answers held past
 * the client's time-out, and 200s whose JSON violates the schema. In each case
 * the engine backs off (the proxy counts its requests: no spin), says so
 * (rate-limit backoff or connection state in snapshot and event batches), and
 * recovers by itself once the fault ends (trades and balance current again).
 *
 * The scenarios are independent (own sandbox, proxy, merchant and engine), each on
 * a fake clock (setTimeout, setInterval, Date of the sandbox, the proxy and the
 * engine) that flows with real time while the stage is set and is fast-forwarded
 * through the fault and the recovery: the seconds the engine waits are its own
 * timers' seconds, not the test's. They run one after another (the clock is global).
 */

interface Scenario {
  sb: Sandbox;
  proxy: FaultProxy;
  merchant: MerchantCredentials;
  app: EngineHarness;
  /** Buys an item through the engine (before a fault) and returns the trade id. */
  buy(price: number): Promise<string>;
  /**
   * While the fault is on: the feed drops (so what happens next is only learnt over REST, on reconnect) and the trade
   * ends CANCELLED on the server (its refund changes the balance).
   */
  disturb(tradeId: string): Promise<void>;
  /** The engine's balance and trades equal the server's. */
  current(): Promise<boolean>;
  close(): Promise<void>;
}

async function scenario(seed: number): Promise<Scenario> {
  useFlowingFakeClock();
  const sb = await startSandbox({ items: 300, seed });
  const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
  await proxy.start();
  const merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
  const dataDir = mkdtempSync(join(tmpdir(), 'api-faults-'));
  const app = await startEngine(dataDir, {
    baseUrl: proxy.baseUrl,
    wsUrl: proxy.wsUrl,
    merchantId: merchant.merchantId,
    apiKey: merchant.apiKey,
  });
  await waitFor(() => app.session().connection.state === 'connected', 15_000, 'feed connected');
  await waitFor(
    async () => (await app.call('catalog.query', { limit: 1 })).total > 0 && app.session().balance !== null,
    20_000,
    'first sync',
  );
  let partner = 50_000_000 + seed * 1000;
  // The server's truth read in-process: over HTTP these checks would spend the merchant's own rate budget.
  const balanceOf = sb.core.db.prepare<[string], number>('SELECT balance FROM merchants WHERE merchant_id = ?').pluck();
  const tradesOf = sb.core.db.prepare<[string], { trade_id: string; status: string }>(
    'SELECT trade_id, status FROM trades WHERE merchant_id = ?',
  );
  const current = async (): Promise<boolean> => {
    const local = await app.call('trades.query', { limit: 500 });
    const byId = new Map(local.rows.map((t) => [t.tradeId, t.status]));
    const trades = tradesOf.all(merchant.merchantId);
    return (
      app.session().balance?.balance === balanceOf.get(merchant.merchantId) &&
      trades.every((t) => byId.get(t.trade_id) === t.status)
    );
  };
  return {
    sb,
    proxy,
    merchant,
    app,
    async buy(price) {
      const [item] = (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ price }] })).body
        .items as [Item];
      const outcome = await app.call('buy.byId', {
        itemId: item.itemId,
        assetId: item.assetId,
        price,
        recipient: { tradeUrl: tradeUrlFor(partner++) },
      });
      if (!outcome.ok) throw new Error(outcome.failure.message);
      // Start every fault from a current cache (the buy's own balance refresh is debounced).
      await waitFor(() => current(), 15_000, 'current after the buy');
      return outcome.trade.tradeId;
    },
    async disturb(tradeId) {
      proxy.dropConnections();
      await adminApi(sb).transition(tradeId, { status: 'SENT' });
      await adminApi(sb).transition(tradeId, { status: 'CANCELLED', errorCode: 504 });
    },
    current,
    async close() {
      if (process.env.API_FAULTS_DEBUG === '1') {
        process.stdout.write(
          `--- seed ${seed} state ${JSON.stringify(app.session().connection)}\n${app.logs.slice(-40).join('\n')}\n`,
        );
        process.stdout.write(
          proxy.requests
            .map(
              (r) =>
                `${new Date(r.at).toISOString().slice(11, 23)} ${r.method} ${r.path.slice(0, 60)} ${r.status} ${r.fault ?? ''}`,
            )
            .join('\n') + '\n',
        );
      }
      await app.close();
      await proxy.close();
      await sb.close();
      useRealClock();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The most requests the proxy saw in any `windowMs` window between `from` and `to`. */
function busiestWindow(proxy: FaultProxy, from: number, to: number, windowMs = 10_000): number {
  const times = proxy.requests.filter((r) => r.at >= from && r.at <= to).map((r) => r.at);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while ((times[i] as number) - (times[j] as number) >= windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

const figures: string[] = [];
function report(line: string): void {
  figures.push(line);
  process.stdout.write(`api-faults: ${line}\n`);
}

describe('API faults: the engine backs off, says so, and recovers by itself', () => {
  // A scenario that failed before its close() leaves no fake clock to the next.
  afterEach(() => useRealClock());

  it('a session signal shared by 5,000 requests keeps nothing per request (no AbortSignal.any leak)', async () => {
    const session = new AbortController();
    const ok = () => new Response(JSON.stringify({ balance: 1, credit_limit: 0, total_available: 1 }), { status: 200 });
    const client = new MerchantApiClient(
      { baseUrl: 'http://127.0.0.1:1', merchantId: 'm', apiKey: 'k'.repeat(32) },
      { fetch: async () => ok(), limiter: new ClientRateLimiter({ limits: { catalog: 1e9, default: 1e9 } }) },
    );
    for (let i = 0; i < 5_000; i++) await client.getBalance({ signal: session.signal });
    // What Node keeps on a source signal for each AbortSignal.any() made from it (nodejs/node#55351).
    const dependants = Object.getOwnPropertySymbols(session.signal).find(
      (symbol) => String(symbol) === 'Symbol(kDependantSignals)',
    );
    const kept = dependants
      ? ((session.signal as unknown as Record<symbol, Set<unknown> | undefined>)[dependants]?.size ?? 0)
      : 0;
    expect(kept).toBe(0);
    // Still wired: the session's abort cancels a request in flight.
    const slow = new MerchantApiClient(
      { baseUrl: 'http://127.0.0.1:1', merchantId: 'm', apiKey: 'k'.repeat(32) },
      {
        fetch: (_url, init) =>
          new Promise<Response>((_resolve, reject) => {
            if (init?.signal?.aborted) reject(new Error('aborted'));
            init?.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          }),
      },
    );
    const pending = slow.getBalance({ signal: session.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    session.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
  });

  it('429 storm with Retry-After: waits it out, shows the backoff, then catches up', async () => {
    const s = await scenario(31);
    try {
      const tradeId = await s.buy(700);
      const start = Date.now();
      // Every REST path answers 429 (Retry-After: 2) for the next 6 requests; meanwhile the trade moves on the server.
      s.proxy.inject('/', { kind: 'rate-limit', times: 6, retryAfterSeconds: 2 });
      await s.disturb(tradeId);
      void s.app.call('catalog.refresh').catch(() => {});
      const shown = await waitFor(
        async () => (await s.app.engine.snapshot()).rateLimit.backoffUntil,
        10_000,
        'backoff in the snapshot',
      );
      expect(Date.parse(shown)).toBeGreaterThan(Date.now());
      await waitFor(() => s.app.batches.some((b) => b.rateLimit?.backoffUntil), 2_000, 'backoff in an event batch');
      await reach(() => s.proxy.requests.filter((r) => r.fault === 'rate-limit').length === 6, 60_000, 'storm spent');
      const stormEnd = Date.now();
      await reach(() => s.current(), 30_000, 'balance and trades current');
      await reach(
        async () => (await s.app.engine.snapshot()).rateLimit.backoffUntil === null,
        10_000,
        'backoff cleared',
      );
      const busiest = busiestWindow(s.proxy, start, stormEnd);
      report(
        `429 storm: 6 refusals spread over ${((stormEnd - start) / 1000).toFixed(1)} s, at most ${busiest} requests in any 10 s, recovered ${((Date.now() - stormEnd) / 1000).toFixed(1)} s after`,
      );
      // Retry-After 2 s honoured: 6 refusals cannot be spent in under ~2 backoff periods, and no spinning.
      expect(stormEnd - start).toBeGreaterThanOrEqual(3_000);
      expect(busiest).toBeLessThan(30);
    } finally {
      await s.close();
    }
  }, 90_000);

  it('503 maintenance at the proxy for 20 s (REST and feed): maintenance state, slow retries, back by itself', async () => {
    const s = await scenario(32);
    try {
      const tradeId = await s.buy(800);
      const start = Date.now();
      s.proxy.inject('/', { kind: 'maintenance', untilMs: start + 20_000, retryAfterSeconds: 5 });
      await s.disturb(tradeId); // the feed meets the 503 on its way back
      await reach(() => s.app.session().connection.state === 'maintenance', 15_000, 'maintenance state');
      await waitFor(
        () => s.app.batches.some((b) => b.connection?.state === 'maintenance'),
        2_000,
        'maintenance in a batch',
      );
      expect((await s.app.engine.snapshot()).connection.detail).toMatch(/maintenance/i);
      await fastForward(start + 20_000 - Date.now());
      const end = Date.now();
      const during = s.proxy.count('/', start, end);
      const busiest = busiestWindow(s.proxy, start, end);
      await reach(() => s.current(), 45_000, 'balance and trades current');
      await reach(() => s.app.session().connection.state === 'connected', 45_000, 'feed back');
      report(
        `proxy 503 for 20 s: ${during} requests during it (busiest 10 s: ${busiest}), recovered ${((Date.now() - end) / 1000).toFixed(1)} s after`,
      );
      expect(busiest).toBeLessThan(20);
    } finally {
      await s.close();
    }
  }, 90_000);

  it("the sandbox's own maintenance (POST /admin/maintenance) for 20 s: refuses the buy clearly, waits out Retry-After, recovers", async () => {
    const s = await scenario(33);
    try {
      const tradeId = await s.buy(900);
      const [item] = (await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 300 }] })).body
        .items as [Item];
      const start = Date.now();
      await adminApi(s.sb).post('/admin/maintenance', { on: true });
      const refused = await s.app.call('buy.byId', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: 300,
        recipient: { tradeUrl: tradeUrlFor(61_000_001) },
      });
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.failure.message).toMatch(/maintenance/i);
      await reach(() => s.app.session().connection.state === 'maintenance', 20_000, 'maintenance state');
      expect((await s.app.engine.snapshot()).rateLimit.backoffUntil).not.toBeNull();
      // Meanwhile the trade ends on the server (admin helpers work during maintenance).
      await s.disturb(tradeId);
      await fastForward(start + 20_000 - Date.now());
      await adminApi(s.sb).post('/admin/maintenance', { on: false });
      const end = Date.now();
      const busiest = busiestWindow(s.proxy, start, end);
      const during = s.proxy.count('/', start, end);
      // The sandbox said Retry-After: 60: the engine may wait that long from its last refusal.
      await reach(() => s.current(), 65_000, 'balance and trades current');
      await reach(() => s.app.session().connection.state === 'connected', 30_000, 'feed back');
      report(
        `sandbox maintenance for 20 s: ${during} requests during it (busiest 10 s: ${busiest}), recovered ${((Date.now() - end) / 1000).toFixed(1)} s after it ended`,
      );
      expect(busiest).toBeLessThan(20);
    } finally {
      await s.close();
    }
  }, 120_000);

  it('answers held past the client time-out for 20 s: time-outs logged, no pile-up, current again after', async () => {
    const s = await scenario(34);
    try {
      const tradeId = await s.buy(600);
      const start = Date.now();
      // Balance and history answers arrive 17 s late (the client gives up at 15 s).
      s.proxy.inject('/Wallet', { kind: 'delay', delayMs: 17_000, untilMs: start + 20_000 });
      s.proxy.inject('/Trades', { kind: 'delay', delayMs: 17_000, untilMs: start + 20_000 });
      await s.disturb(tradeId);
      await reach(() => s.app.logs.some((line) => /timeout/.test(line)), 25_000, 'a time-out logged');
      await fastForward(start + 20_000 - Date.now());
      const end = Date.now();
      const busiest = busiestWindow(s.proxy, start, end);
      await reach(() => s.current(), 45_000, 'balance and trades current');
      report(
        `slow answers (17 s > 15 s time-out) for 20 s: busiest 10 s had ${busiest} requests, recovered ${((Date.now() - end) / 1000).toFixed(1)} s after`,
      );
      expect(busiest).toBeLessThan(20);
    } finally {
      await s.close();
    }
  }, 90_000);

  it('schema-violating JSON for 15 s: reported, not applied, no spin, current again after', async () => {
    const s = await scenario(35);
    try {
      const tradeId = await s.buy(650);
      const balanceBefore = s.app.session().balance;
      const start = Date.now();
      s.proxy.inject('/Wallet/GetBalance', {
        kind: 'schema',
        untilMs: start + 15_000,
        body: () => '{"balance":"a lot","credit_limit":null}',
      });
      s.proxy.inject('/Trades/History', {
        kind: 'schema',
        untilMs: start + 15_000,
        body: () => '{"trades":[{"tradeId":7,"status":"DONE"}],"total":-1}',
      });
      s.proxy.inject('/Wallet/BalanceHistory', {
        kind: 'schema',
        untilMs: start + 15_000,
        body: (text) => text.replace(/"amount":/g, '"amount":"x","_":'),
      });
      await s.disturb(tradeId);
      await reach(
        () => s.app.logs.some((line) => /invalid_response|invalid response/.test(line)),
        15_000,
        'a schema error logged',
      );
      // Nothing of the bad answers reached the cache.
      expect(s.app.session().balance).toEqual(balanceBefore);
      expect(
        (await s.app.call('trades.query', { limit: 50 })).rows.every(
          (t) => typeof t.tradeId === 'string' && t.status !== ('DONE' as never),
        ),
      ).toBe(true);
      await fastForward(start + 15_000 - Date.now());
      const end = Date.now();
      const busiest = busiestWindow(s.proxy, start, end);
      await reach(() => s.current(), 45_000, 'balance and trades current');
      report(
        `schema-violating JSON for 15 s: busiest 10 s had ${busiest} requests, recovered ${((Date.now() - end) / 1000).toFixed(1)} s after`,
      );
      expect(busiest).toBeLessThan(20);
    } finally {
      await s.close();
    }
  }, 90_000);
});
