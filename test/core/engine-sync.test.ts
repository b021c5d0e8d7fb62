import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppConfigFile } from '../../src/main/core/engine/appConfig';
import { Engine } from '../../src/main/core/engine/engine';
import type { SecretStore } from '../../src/main/core/secrets';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item, Trade } from '../../src/shared/api';
import type { EngineEventBatch, ProgressStatus } from '../../src/shared/ipc';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, merchantApi, tradeUrlFor } from '../support/sandboxHttp';
import { FaultProxy } from '../support/faultProxy';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';

const DAY_SECONDS = 24 * 3600;

interface Stack {
  sb: Sandbox;
  proxy: FaultProxy;
  merchant: MerchantCredentials;
  dataDir: string;
  app: EngineHarness | null;
  launch(wsUrl?: string): Promise<EngineHarness>;
}

const stacks: Stack[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

async function stack(items = 200, seed = 37): Promise<Stack> {
  const sb = await startSandbox({ items, seed });
  const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
  await proxy.start();
  const merchant = await adminApi(sb).createMerchant({ balance: 10_000_000 });
  const dataDir = mkdtempSync(join(tmpdir(), 'engine-sync-'));
  const s: Stack = {
    sb,
    proxy,
    merchant,
    dataDir,
    app: null,
    async launch(wsUrl = proxy.wsUrl) {
      await s.app?.close();
      s.app = await startEngine(dataDir, { baseUrl: proxy.baseUrl, wsUrl, ...merchant });
      return s.app;
    },
  };
  stacks.push(s);
  return s;
}

afterEach(async () => {
  for (const s of stacks.splice(0)) {
    await s.app?.close();
    await s.proxy.close();
    await s.sb.close();
    rmSync(s.dataDir, { recursive: true, force: true });
  }
  for (const cleanup of cleanups.splice(0)) await cleanup();
  useRealClock();
});

/** Trades made at the server directly (no HTTP, no rate limit), each to its own recipient. */
function seedTrades(s: Stack, items: Item[]): string[] {
  return items.map(
    (item, i) =>
      s.sb.core.buying.buy(s.merchant.merchantId, {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: tradeUrlFor(20_000 + i),
      }).tradeId,
  );
}

describe('the reconcile reads what can still change, never the 14-day window', () => {
  it('finds a reversal and a trade finished while the feed was away from the active statuses and the reversals', async () => {
    const s = await stack();
    const admin = adminApi(s.sb);
    const items = (
      await admin.post<{ items: Item[] }>('/admin/items', {
        items: Array.from({ length: 43 }, (_, i) => ({ itemId: 94_500_000 + i, price: 200 + i, steamId: null })),
      })
    ).body.items;
    const ids = seedTrades(s, items);
    for (const id of ids.slice(0, 40)) {
      await admin.transition(id, { status: 'SENT' });
      await admin.transition(id, { status: 'COMPLETED' });
    }
    const app = await s.launch();
    await waitFor(async () => (await app.session().store.getMeta('trades_history_mark')) !== null, 20_000, 'mark');
    await waitFor(() => app.session().activeTrades === 3, 10_000, 'three active');

    // While the marketplace is under maintenance (no feed), one delivered trade is reversed and an active one ends.
    await admin.post('/admin/maintenance', { on: true });
    await app.session().feed.restart();
    await waitFor(() => app.session().connection.state === 'maintenance', 10_000, 'maintenance');
    const [reversed, finished] = [ids[0] ?? '', ids[40] ?? ''];
    await admin.transition(reversed, { status: 'REVERSED' });
    await admin.transition(finished, { status: 'SENT' });
    await admin.transition(finished, { status: 'COMPLETED' });
    await admin.post('/admin/maintenance', { on: false });
    const from = s.proxy.requests.length;
    await app.session().feed.restart(); // the feed is back: the maintenance back-off ends, and it reconciles
    await app.session().reconcile('test');

    expect((await app.call('trades.get', { tradeId: reversed }))?.trade.status).toBe('REVERSED');
    expect((await app.call('trades.get', { tradeId: finished }))?.trade.status).toBe('COMPLETED');
    expect(app.session().activeTrades).toBe(2);
    const asked = s.proxy
      .lines()
      .slice(from)
      .filter((line) => line.startsWith('GET /Trades/History?'));
    expect(asked.some((line) => line.includes('status=REVERSED'))).toBe(true);
    // The trades in flight by status (the finished one is read by id, unless the back-fill of the reconnect has it).
    for (const status of ['PENDING', 'SENT', 'CREATING']) {
      expect(asked.some((line) => line.includes(`status=${status}`))).toBe(true);
    }
    // Only the new cache's first fill asked the window (once, before its mark), never the reconcile: the window
    // holds every trade of 14 days, however many.
    expect(s.proxy.lines().filter((line) => line.includes('isActive'))).toHaveLength(1);
    expect(
      s.proxy
        .lines()
        .slice(from)
        .filter((line) => line.includes('isActive')),
    ).toEqual([]);
  });
});

describe('history back-fill', () => {
  it('pages the whole history on a new cache with progress events, then only from the high-water mark', async () => {
    const s = await stack(3000, 41);
    const items = (
      await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', {
        items: Array.from({ length: 520 }, (_, i) => ({ itemId: 94_000_000 + i, price: 100 + i, steamId: null })),
      })
    ).body.items;
    seedTrades(s, items);
    // 15 days on: the new cache's one `isActive=true` request finds none of them, so they are paged.
    await adminApi(s.sb).advance(15 * DAY_SECONDS);
    // Each history page answers after 120 ms: longer than the event batcher's window, so every page's
    // progress reaches a batch of its own however fast the machine is.
    s.proxy.inject((_method, path) => path.startsWith('/Trades/History?') && path.includes('to='), {
      kind: 'delay',
      delayMs: 120,
    });

    const app = await s.launch();
    await waitFor(
      async () => (await app.call('trades.query', { limit: 1 })).total === 520,
      30_000,
      '520 trades back-filled',
    );
    await waitFor(async () => (await app.session().store.getMeta('trades_history_mark')) !== null, 10_000, 'the mark');
    // Two pages of 500 with one fixed `to`, no `from` on a new cache (a run from the mark may follow the feed's connect).
    const pages = s.proxy
      .lines()
      .filter((line) => line.startsWith('GET /Trades/History?') && /[?&]to=/.test(line) && !line.includes('from='));
    expect(pages).toHaveLength(2);
    expect(pages.map((line) => /page=(\d+)/.exec(line)?.[1])).toEqual(['1', '2']);
    expect(new Set(pages.map((line) => /to=([^&]+)/.exec(line)?.[1])).size).toBe(1);

    // Progress: the back-fill in pages, the catalog sync; both gone at the end. History is shown, not notified.
    await waitFor(async () => (await app.call('catalog.query', { limit: 1 })).total > 0, 20_000, 'catalog');
    await waitFor(() => (app.session().progressList().length === 0 ? true : null), 20_000, 'progress cleared');
    const progress = app.batches.flatMap((b) => b.progress ?? []);
    const backfill = progress.filter((p: ProgressStatus) => p.kind === 'history-backfill');
    expect(
      backfill.some((p) => p.total === 2 && p.phase === 'page 2 of 2'),
      JSON.stringify(backfill),
    ).toBe(true);
    expect(progress.some((p) => p.kind === 'catalog-sync')).toBe(true);
    await waitFor(
      () => app.batches.filter((b) => b.progress !== undefined).at(-1)?.progress?.length === 0,
      2_000,
      'an empty progress list sent',
    );
    expect(app.batches.flatMap((b) => b.notifications ?? []).filter((n) => n.target?.type === 'trade')).toEqual([]);

    // The next start pages from the mark (less the overlap) to a new fixed `to`.
    const mark = (await app.session().store.getMeta('trades_history_mark')) as string;
    const before = s.proxy.requests.length;
    await s.launch();
    await waitFor(
      () =>
        s.proxy
          .lines()
          .slice(before)
          .some((line) => line.includes('from=')),
      10_000,
      'an incremental back-fill',
    );
    const incremental = s.proxy
      .lines()
      .slice(before)
      .find((line) => line.includes('from=')) as string;
    const from = decodeURIComponent(/from=([^&]+)/.exec(incremental)?.[1] ?? '');
    expect(Date.parse(mark) - Date.parse(from)).toBe(10 * 60_000);
  }, 90_000);

  it('notifies a status a back-fill brings when the trade changed after the app started (only older history is old news)', async () => {
    const s = await stack();
    const app = await s.launch();
    await waitFor(
      async () => (await app.session().store.getMeta('trades_history_mark')) !== null,
      15_000,
      'first back-fill',
    );
    const [item] = (await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 777 }] })).body
      .items as [Item];
    const buy = await merchantApi(s.sb, s.merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(30_001),
    });
    expect(buy.status).toBe(200);
    const history = await merchantApi(s.sb, s.merchant).get<{ trades: Trade[] }>(
      `/Trades/History?tradeId=${buy.body.tradeId}`,
    );
    const made = history.body.trades[0] as Trade;
    // Two trades the feed never announced, brought by a back-fill: one changed now, one before the app started.
    const fresh: Trade = { ...made, tradeId: 'backfill-fresh', status: 'SENT', updatedAt: new Date().toISOString() };
    const old: Trade = {
      ...made,
      tradeId: 'backfill-old',
      status: 'SENT',
      updatedAt: new Date(Date.now() - 3_600_000).toISOString(),
    };
    await app.session().upsertTrades([fresh, old], 'backfill');
    const notified = await waitFor(
      () => {
        const ids = app.batches.flatMap((b) => b.notifications ?? []).map((n) => n.id);
        return ids.includes('trade:backfill-fresh:SENT') ? ids : null;
      },
      5_000,
      'the fresh trade notified',
    );
    expect(notified).not.toContain('trade:backfill-old:SENT');
  }, 60_000);

  it('notifies a trade sent while the app opens the account (the host shows the app before the session starts); older history stays old news', async () => {
    const s = await stack();
    // A feed that never completes its handshake: until its 25 s time-out, the start-up back-fill is the only way in.
    const silentFeed: Server = createServer();
    const held = new Set<{ destroy(): void }>();
    silentFeed.on('upgrade', (_request, socket) => held.add(socket));
    await new Promise<void>((resolve) => silentFeed.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of held) socket.destroy();
      return new Promise<void>((resolve) => silentFeed.close(() => resolve()));
    });
    const wsUrl = `ws://127.0.0.1:${(silentFeed.address() as AddressInfo).port}/ws`;
    new AppConfigFile(s.dataDir).update((config) => ({
      ...config,
      account: { baseUrl: s.proxy.baseUrl, wsUrl, merchantId: s.merchant.merchantId },
      settings: { ...config.settings, demoSandbox: false },
    }));
    const items = (
      await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 501 }, { price: 502 }] })
    ).body.items;
    const [before, during] = seedTrades(s, items);
    if (!before || !during) throw new Error('two trades expected');
    const sentBefore = s.sb.core.trades.transition(before, { status: 'SENT' }).updated_at;
    await waitFor(() => Date.now() > sentBefore, 1_000, 'the clock past the first sending');

    // The keychain answers when the test says: the app is opening the account meanwhile.
    let answerKeychain!: () => void;
    const keychainAnswers = new Promise<void>((resolve) => (answerKeychain = resolve));
    const secrets: SecretStore = {
      kind: 'memory',
      get: async (merchantId) => {
        await keychainAnswers;
        return merchantId === s.merchant.merchantId ? s.merchant.apiKey : null;
      },
      set: () => Promise.reject(new Error('read only here')),
      delete: () => Promise.resolve(false),
    };
    const batches: EngineEventBatch[] = [];
    const engine = new Engine({
      dataDir: s.dataDir,
      secrets,
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo here')),
    });
    cleanups.push(() => engine.close());
    engine.subscribe((batch) => batches.push(batch));
    const started = engine.start();
    s.sb.core.trades.transition(during, { status: 'SENT' });
    answerKeychain();
    await started;

    // One back-fill stores both: the one sent while the app opened is news, the one sent before is history.
    await waitFor(
      async () => (await engine.handle('trades.get', { tradeId: during }))?.trade.status === 'SENT',
      15_000,
      'the back-fill storing the trade',
    );
    const notified = await waitFor(
      () => {
        const ids = batches.flatMap((b) => b.notifications ?? []).map((n) => n.id);
        return ids.includes(`trade:${during}:SENT`) ? ids : null;
      },
      15_000,
      'the trade sent while the app opened notified',
    );
    expect(notified).not.toContain(`trade:${before}:SENT`);
    expect(engine.accountSession?.connection.state).toBe('connecting');
  }, 60_000);

  it('finds a trade made and finished while the app was closed for longer than the 14-day isActive window', async () => {
    const s = await stack();
    let app = await s.launch();
    await waitFor(
      async () => (await app.session().store.getMeta('trades_history_mark')) !== null,
      15_000,
      'first back-fill',
    );
    await app.close();
    s.app = null;

    // Away: the merchant's own system buys, the trade completes, and 15 days pass (the sandbox's test clock).
    const [item] = (await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 4321 }] })).body
      .items as [Item];
    const buy = await merchantApi(s.sb, s.merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: TEST_TRADE_URL,
    });
    expect(buy.status).toBe(200);
    await adminApi(s.sb).transition(buy.body.tradeId, { status: 'SENT' });
    await adminApi(s.sb).transition(buy.body.tradeId, { status: 'COMPLETED' });
    await adminApi(s.sb).advance(15 * DAY_SECONDS);
    const active = await merchantApi(s.sb, s.merchant).get<{ trades: { tradeId: string }[] }>(
      '/Trades/History?isActive=true',
    );
    expect(active.body.trades.map((t) => t.tradeId)).not.toContain(buy.body.tradeId);

    app = await s.launch();
    const found = await waitFor(
      async () => app.call('trades.get', { tradeId: buy.body.tradeId }),
      15_000,
      'the trade made while away',
    );
    expect(found.trade).toMatchObject({ status: 'COMPLETED', price: 4321 });
  }, 60_000);
});

describe('failed webhooks', () => {
  it('filtering for failed webhooks asks the server (webhookStatus=failed), at most once a minute', async () => {
    const s = await stack();
    const app = await s.launch();
    await waitFor(() => app.session().connection.state === 'connected', 15_000, 'feed');
    const [item] = (await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 900 }] })).body
      .items as [Item];
    await waitFor(async () => (await app.call('catalog.item', { itemId: item.itemId })) !== null, 10_000, 'item');
    const outcome = await app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: 900,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });
    if (!outcome.ok) throw new Error(outcome.failure.message);
    // The delivery failed at the server: no frame says so. (A fetch of the trade that races ahead of the filter,
    // e.g. for a feed frame the buy's answer had not stored yet, may bring the status first: either way the filter
    // asks the server once.)
    s.sb.core.trades.setWebhookStatus(outcome.trade.tradeId, 'failed');
    const page = await waitFor(
      async () => {
        const answer = await app.call('trades.query', { webhookFailed: true });
        return answer.total === 1 ? answer : null;
      },
      10_000,
      'the failed webhook listed',
    );
    expect(page.rows[0]).toMatchObject({ tradeId: outcome.trade.tradeId, webhookStatus: 'failed' });
    // Each poll above asked again; whatever request that started has been answered (so counted by the proxy) once the limiter holds none.
    const limiter = app.session().limiter;
    await waitFor(
      () => limiter.queued('default') === 0 && limiter.unanswered('default') === 0,
      5000,
      'every request answered',
    );
    expect(s.proxy.count('/Trades/History?webhookStatus=failed')).toBe(1);
  }, 60_000);
});

describe('the rate budget is per account', () => {
  it('is shared by sessions across account switches and by Test connection; a switch closes the old feed before the new one opens', async () => {
    const s = await stack();
    const app = await s.launch(s.sb.wsUrl);
    await waitFor(() => app.session().connection.state === 'connected', 15_000, 'feed');
    const limiter = app.session().limiter;
    expect(app.engine.limiterFor(s.merchant.merchantId)).toBe(limiter);

    const credentials = {
      baseUrl: s.proxy.baseUrl,
      wsUrl: s.sb.wsUrl,
      merchantId: s.merchant.merchantId,
      apiKey: s.merchant.apiKey,
    };
    // Test connection takes its slots from this limiter (counted as granted; the remaining budget itself may rise
    // meanwhile, as older requests leave the window or the server's own count corrects it).
    const acquire = vi.spyOn(limiter, 'acquire');
    const tryAcquire = vi.spyOn(limiter, 'tryAcquire');
    const tested = await app.call('account.test', credentials);
    expect(tested.ok).toBe(true);
    expect(
      acquire.mock.calls.length +
        tryAcquire.mock.calls.filter((_call, i) => tryAcquire.mock.results[i]?.value !== null).length,
    ).toBeGreaterThanOrEqual(1);
    acquire.mockRestore();
    tryAcquire.mockRestore();

    let most = 0;
    const sampler = setInterval(() => {
      most = Math.max(most, s.sb.feed.connectionCount(s.merchant.merchantId));
    }, 2);
    try {
      const first = app.session();
      const configured = await app.call('account.configure', credentials);
      expect(configured.ok).toBe(true);
      expect(app.session()).not.toBe(first);
      expect(app.session().limiter).toBe(limiter);
      await waitFor(() => app.session().connection.state === 'connected', 15_000, 'feed after the switch');
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBe(1);
    expect(s.sb.feed.connectionCount(s.merchant.merchantId)).toBe(1);
  }, 60_000);
});

describe('a feed refused with a 403 that is not ip_not_allowed', () => {
  it('polls trades while the refused feed is retried with backoff', async () => {
    // The 15 s poll on a fake clock (the sandbox's, the proxy's and the engine's), fast-forwarded.
    useFlowingFakeClock();
    const s = await stack();
    const refusing: Server = createServer((_request, response) => response.writeHead(404).end());
    let upgrades = 0;
    refusing.on('upgrade', (_request, socket) => {
      upgrades++;
      const body = JSON.stringify({ error: 'forbidden', message: 'Blocked by the corporate proxy' });
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => refusing.close(() => resolve())));
    const app = await s.launch(`ws://127.0.0.1:${(refusing.address() as AddressInfo).port}/ws`);

    await waitFor(() => app.session().connection.state === 'polling', 10_000, 'polling');
    expect(app.session().connection.detail).toMatch(
      /^Feed refused \(http 403 forbidden\); polling every 15 s, retrying the feed in [1-5] s$/,
    );
    const [item] = (await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 650 }] })).body
      .items as [Item];
    const outcome = await app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: 650,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });
    if (!outcome.ok) throw new Error(outcome.failure.message);
    await adminApi(s.sb).transition(outcome.trade.tradeId, { status: 'SENT' });
    await reach(
      async () => (await app.call('trades.get', { tradeId: outcome.trade.tradeId }))?.trade.status === 'SENT',
      25_000,
      'the poll to pick up SENT',
    );
    expect(upgrades).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
