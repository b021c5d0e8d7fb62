import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { startSandbox } from '../../src/server/sandbox';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { FaultProxy } from '../support/faultProxy';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, tradeUrlFor } from '../support/sandboxHttp';

/**
 * "Says so" for the two API faults that are not a connection state today: answers slower than
 * the client's time-out, and 200s whose JSON violates the schema. The user must see it (a
 * connection event and the snapshot's connection detail, which the status bar shows), not
 * only a log line.
 *
 * The engine shows them as the connection's detail (AccountSession `restProblem`) until REST
 * answers again, then goes back to what the feed says. Each scenario runs on a fake clock
 * (sandbox, proxy and engine), fast-forwarded through the fault and the recovery.
 */

async function scenario(seed: number, inject: (proxy: FaultProxy, untilMs: number) => void) {
  useFlowingFakeClock();
  const sb = await startSandbox({ items: 200, seed });
  const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
  await proxy.start();
  const merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
  const dataDir = mkdtempSync(join(tmpdir(), 'api-fault-state-'));
  let app: EngineHarness | null = null;
  try {
    app = await startEngine(dataDir, {
      baseUrl: proxy.baseUrl,
      wsUrl: proxy.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
    });
    const engine = app;
    await waitFor(() => engine.session().connection.state === 'connected', 15_000, 'feed connected');
    await waitFor(
      async () => (await engine.call('catalog.query', { limit: 1 })).total > 0 && engine.session().balance !== null,
      20_000,
      'first sync',
    );
    const [item] = (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 400 }] })).body
      .items as [Item];
    const outcome = await engine.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: 400,
      recipient: { tradeUrl: tradeUrlFor(73_000_000 + seed) },
    });
    if (!outcome.ok) throw new Error(outcome.failure.message);
    const start = Date.now();
    inject(proxy, start + 25_000);
    // The feed drops, the trade moves on the server: only REST can tell the engine, and REST is faulty.
    proxy.dropConnections();
    await adminApi(sb).transition(outcome.trade.tradeId, { status: 'SENT' });
    return {
      start,
      engine,
      async close() {
        await engine.close();
        await proxy.close();
        await sb.close();
        useRealClock();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await app?.close();
    await proxy.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** Live again (caught up after the fault), and the detail no longer says `words`. */
async function cleared(app: EngineHarness, words: RegExp): Promise<void> {
  await reach(async () => (await app.engine.snapshot()).connection.state === 'connected', 60_000, 'live again');
  expect((await app.engine.snapshot()).connection.detail).not.toMatch(words);
}

/** A connection event after `since` whose detail matches, and the snapshot saying the same. */
async function shown(app: EngineHarness, since: number, words: RegExp): Promise<void> {
  await reach(
    () =>
      app.batches.some(
        (b) => Date.parse(b.at) >= since && b.connection !== undefined && words.test(b.connection.detail),
      ),
    25_000,
    `a connection event saying ${words}`,
  );
  expect((await app.engine.snapshot()).connection.detail).toMatch(words);
}

describe('API faults the user must see (not only a log line)', () => {
  // A scenario that failed before its close() leaves no fake clock to the next.
  afterEach(() => useRealClock());

  it('answers held past the client time-out: a connection event says the marketplace is not answering in time', async () => {
    const s = await scenario(81, (proxy, untilMs) => {
      proxy.inject('/Wallet', { kind: 'delay', delayMs: 17_000, untilMs });
      proxy.inject('/Trades', { kind: 'delay', delayMs: 17_000, untilMs });
    });
    try {
      await reach(() => s.engine.logs.some((line) => /timeout/.test(line)), 25_000, 'a time-out logged');
      await shown(s.engine, s.start, /time.?out|not answer|slow/i);
      // The faults end 25 s in: the detail goes back to the feed's once REST answers again.
      await cleared(s.engine, /time.?out|not answer/i);
    } finally {
      await s.close();
    }
  }, 150_000);

  it('schema-violating JSON: a connection event says the marketplace answered something unexpected', async () => {
    const s = await scenario(82, (proxy, untilMs) => {
      proxy.inject('/Wallet/GetBalance', {
        kind: 'schema',
        untilMs,
        body: () => '{"balance":"a lot","credit_limit":null}',
      });
      proxy.inject('/Trades/History', {
        kind: 'schema',
        untilMs,
        body: () => '{"trades":[{"tradeId":7,"status":"DONE"}],"total":-1}',
      });
    });
    try {
      await reach(
        () => s.engine.logs.some((line) => /invalid_response|invalid response/.test(line)),
        25_000,
        'a schema error logged',
      );
      await shown(s.engine, s.start, /unexpected|invalid|malformed|not understood/i);
      await cleared(s.engine, /unexpected|not understood/i);
    } finally {
      await s.close();
    }
  }, 150_000);
});
