import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClientRateLimiter, SlotKind } from '../../src/main/core/api/rateLimiter';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import type { Item, Trade } from '../../src/shared/api';
import { FaultProxy } from '../support/faultProxy';
import { fastForward, reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { adminApi, TEST_TRADE_URL, tradeUrlFor, type MerchantCredentials } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

/**
 * A busy merchant's own back end buys on the same key: the feed names trades the desk does not hold, many a second in
 * a burst. The desk reads them together (not a request each), in its bulk share (a buy never waits behind them),
 * and every trade ends with the server's record. With the feed down, a poll costs the same whatever the history's
 * size, and still finds a reversal (the ledger's rollbacks since the last look).
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  useRealClock();
});

interface Stack {
  sb: Sandbox;
  proxy: FaultProxy;
  merchant: MerchantCredentials;
  dataDir: string;
}

async function stack(options: Parameters<typeof startSandbox>[0]): Promise<Stack> {
  const sb = await startSandbox(options);
  cleanups.push(() => sb.close());
  const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
  await proxy.start();
  cleanups.push(() => proxy.close());
  const busy = sb.busy;
  const merchant = busy
    ? { merchantId: busy.merchantId, apiKey: busy.apiKey }
    : await adminApi(sb).createMerchant({ balance: 10_000_000 });
  const dataDir = mkdtempSync(join(tmpdir(), 'engine-busy-flow-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return { sb, proxy, merchant, dataDir };
}

async function launch(s: Stack, wsUrl = s.proxy.wsUrl): Promise<EngineHarness> {
  const app = await startEngine(s.dataDir, { baseUrl: s.proxy.baseUrl, wsUrl, ...s.merchant });
  cleanups.push(() => app.close());
  return app;
}

/** The server's record of a trade, as the API shows it. */
const serverTrade = (sb: Sandbox, tradeId: string): Trade => sb.core.trades.toWire(sb.core.trades.get(tradeId));

/** Takes every slot of `kind` the limiter grants now, each answered at once: held for a window from now. */
function fillShare(limiter: ClientRateLimiter, kind: SlotKind): void {
  for (let slot = limiter.tryAcquire('default', kind); slot; slot = limiter.tryAcquire('default', kind)) slot.settle();
}

/** The fields a final status's record brings that a frame does not. */
const record = (trade: Trade) => ({
  tradeId: trade.tradeId,
  status: trade.status,
  price: trade.price,
  createdAt: trade.createdAt,
  completedAt: trade.completedAt,
  cancelledAt: trade.cancelledAt,
  endProtection: trade.endProtection,
  stage: trade.stage,
});

describe('a burst of trades the desk does not know', () => {
  it('reads them together in the bulk share, a buy goes first, and every trade ends with the server record', async () => {
    const s = await stack({ items: 40, seed: 34 });
    const admin = adminApi(s.sb);
    const items = (
      await admin.post<{ items: Item[] }>('/admin/items', {
        items: Array.from({ length: 41 }, (_, i) => ({ itemId: 96_100_000 + i, price: 400 + i, steamId: null })),
      })
    ).body.items;
    const mine = items.pop() as Item;
    const app = await launch(s);
    await waitFor(() => app.session().connection.state === 'connected', 20_000, 'Live');
    await waitFor(async () => (await app.session().store.getMeta('trades_history_mark')) !== null, 20_000, 'mark');
    await waitFor(async () => (await app.call('catalog.item', { itemId: mine.itemId })) !== null, 20_000, 'item');
    // A 1 % share (3 a minute; below what Settings offer), filled here: how much of it the start-up's own requests
    // still hold depends on how long the start-up took, and a look-up must find no room.
    const limiter = app.session().limiter;
    limiter.setBulkShare(0.01);
    fillShare(limiter, 'live');
    const from = s.proxy.requests.length;

    // The back end buys 40 at once, and moves some on: frames for trades the desk does not hold.
    const ids = items.map(
      (item, i) =>
        s.sb.core.buying.buy(s.merchant.merchantId, {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          tradeUrl: tradeUrlFor(61_000 + i),
        }).tradeId,
    );
    for (const id of ids.slice(0, 10)) {
      s.sb.core.trades.transition(id, { status: 'SENT' });
      s.sb.core.trades.transition(id, { status: 'COMPLETED' });
    }
    for (const id of ids.slice(10, 15)) {
      s.sb.core.trades.transition(id, { status: 'SENT' });
      s.sb.core.trades.transition(id, { status: 'CANCELLED' });
    }
    await waitFor(() => limiter.queued('default') > 0, 10_000, 'the look-up waiting for the bulk share');

    // A buy meanwhile is answered while the look-up still waits: it never queues behind it.
    const bought = await app.call('buy.byId', {
      itemId: mine.itemId,
      assetId: mine.assetId,
      price: mine.price,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });
    if (!bought.ok) throw new Error(bought.failure.message);
    expect(limiter.queued('default')).toBeGreaterThan(0);
    // (The buy's own look-up by its order id is not one of them.)
    const lookUps = (since: number) =>
      s.proxy
        .lines()
        .slice(since)
        .filter((line) => line.startsWith('GET /Trades/History?') && !line.includes('externalId='));
    expect(lookUps(from)).toEqual([]);

    limiter.setBulkShare(0.5);
    await waitFor(
      async () => {
        for (const id of ids)
          if ((await app.call('trades.get', { tradeId: id }))?.trade.status !== serverTrade(s.sb, id).status)
            return false;
        return true;
      },
      20_000,
      'every trade of the burst stored at its status',
    );
    // Held now: ten more finish, each shown from its frame; their records (completion, protection) follow.
    for (const id of ids.slice(15, 25)) {
      s.sb.core.trades.transition(id, { status: 'SENT' });
      s.sb.core.trades.transition(id, { status: 'COMPLETED' });
    }
    await waitFor(
      async () => (await app.call('trades.get', { tradeId: ids[24] ?? '' }))?.trade.status === 'COMPLETED',
      5_000,
      'the frame shown',
    );
    const stored = await waitFor(
      async () => {
        const rows = await Promise.all(ids.map(async (id) => (await app.call('trades.get', { tradeId: id }))?.trade));
        const same = rows.every(
          (row, i) => row && JSON.stringify(record(row)) === JSON.stringify(record(serverTrade(s.sb, ids[i] ?? ''))),
        );
        return same ? rows : null;
      },
      30_000,
      'every trade with the server record',
    );
    expect(stored.map((row) => row && record(row))).toEqual(ids.map((id) => record(serverTrade(s.sb, id))));

    // 40 new trades and 25 final statuses: a handful of reads, not one each; no 429.
    const reads = lookUps(from);
    expect(reads.length, reads.join('\n')).toBeLessThanOrEqual(8);
    expect(s.proxy.requests.slice(from).filter((r) => r.status === 429)).toEqual([]);
  }, 90_000);
});

describe('a trade the desk does not know while paging fills the bulk share', () => {
  it('is read at once in the live reserve, not after the window frees', async () => {
    useFlowingFakeClock();
    const s = await stack({ items: 40, seed: 34 });
    const item = (
      await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', {
        items: [{ itemId: 96_200_000, price: 500, steamId: null }],
      })
    ).body.items[0] as Item;
    const app = await launch(s);
    await reach(() => app.session().connection.state === 'connected', 20_000, 'Live');
    await reach(async () => (await app.session().store.getMeta('trades_history_mark')) !== null, 20_000, 'mark');
    await reach(() => app.session().progressList().length === 0, 60_000, 'the start-up done');
    // A long paging job (a new cache's ledger, a resumed back-fill): its pages hold all paging may, and more wait.
    const limiter = app.session().limiter;
    fillShare(limiter, 'bulk');
    const stop = new AbortController();
    cleanups.push(() => stop.abort());
    let pagesGranted = 0;
    for (let i = 0; i < 5; i++)
      limiter.acquire('default', stop.signal, undefined, 'bulk').then(
        () => pagesGranted++,
        () => undefined,
      );
    expect(limiter.queued('default')).toBeGreaterThanOrEqual(5);
    const from = s.proxy.requests.length;

    // The merchant's back end buys on the same key: the desk holds the trade after one look-up, without waiting for
    // the paging's slots to leave the window (a minute).
    const startedAt = Date.now();
    const { tradeId } = s.sb.core.buying.buy(s.merchant.merchantId, {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(62_000),
    });
    await reach(async () => (await app.call('trades.get', { tradeId })) !== null, 90_000, 'the trade stored');
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    const lookUps = s.proxy
      .lines()
      .slice(from)
      .filter((line) => line.startsWith('GET /Trades/History?'));
    expect(lookUps).toHaveLength(1);
    expect(pagesGranted).toBe(0); // the pages still wait
  }, 120_000);
});

describe('polling with the feed down', () => {
  /** A feed that refuses every upgrade (403): the engine polls every 15 s. */
  async function refusingFeed(): Promise<string> {
    const refusing: Server = createServer((_request, response) => response.writeHead(404).end());
    refusing.on('upgrade', (_request, socket) => {
      const body = JSON.stringify({ error: 'forbidden', message: 'Blocked by the corporate proxy' });
      socket.end(
        `HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => refusing.close(() => resolve())));
    return `ws://127.0.0.1:${(refusing.address() as AddressInfo).port}/ws`;
  }

  /** A minute of polls once the history is held: the requests and bytes at the proxy (the catalog's own left out). */
  async function minuteOfPolls(
    days: number,
  ): Promise<{ requests: number; bytes: number; paths: string[]; s: Stack; app: EngineHarness }> {
    const s = await stack({ items: 40, seed: 34, busyMerchant: { days, tradesPerDay: 1_000, recipients: 300 } });
    const app = await launch(s, await refusingFeed());
    await reach(() => app.session().connection.state === 'polling', 20_000, 'polling');
    await reach(async () => (await app.session().store.getMeta('trades_history_mark')) !== null, 60_000, 'the history');
    // The start-up's work ends first (the ledger's pages, a catalog sync), then a poll.
    await reach(() => app.session().progressList().length === 0, 120_000, 'the start-up done');
    await fastForward(20_000);
    const from = s.proxy.requests.length;
    await fastForward(60_000);
    const seen = s.proxy.requests.slice(from).filter((r) => !r.path.startsWith('/Items/') && !r.upgrade);
    const paths = seen.map((r) => `${r.path.replace(/\?.*/, '')} ${r.bytes}`);
    return { requests: seen.length, bytes: seen.reduce((sum, r) => sum + r.bytes, 0), paths, s, app };
  }

  it('costs the same whatever the history size, and still finds a reversal', async () => {
    useFlowingFakeClock();
    // The same rate (1,000 trades a day), one day of history against twelve.
    const small = await minuteOfPolls(1);
    const large = await minuteOfPolls(12);
    expect(
      large.s.sb.core.db.prepare("SELECT count(*) FROM trades WHERE status = 'REVERSED'").pluck().get(),
    ).toBeGreaterThan(
      10 *
        (small.s.sb.core.db.prepare("SELECT count(*) FROM trades WHERE status = 'REVERSED'").pluck().get() as number),
    );
    const both = JSON.stringify({ small: small.paths, large: large.paths });
    expect(large.requests, both).toBeLessThanOrEqual(small.requests + 2);
    expect(large.bytes, both).toBeLessThan(small.bytes * 1.5 + 4_000);

    // A delivered trade is reversed with the feed down: the next polls find it, without reading every reversal.
    const { s, app } = large;
    const completed = s.sb.core.db
      .prepare(
        "SELECT trade_id FROM trades WHERE merchant_id = ? AND status = 'COMPLETED' ORDER BY created_at DESC LIMIT 1",
      )
      .pluck()
      .get(s.merchant.merchantId) as string;
    expect((await app.call('trades.get', { tradeId: completed }))?.trade.status).toBe('COMPLETED');
    const from = s.proxy.requests.length;
    s.sb.core.trades.transition(completed, { status: 'REVERSED' });
    await reach(
      async () => (await app.call('trades.get', { tradeId: completed }))?.trade.status === 'REVERSED',
      30_000,
      'the reversal found by a poll',
    );
    expect(
      s.proxy
        .lines()
        .slice(from)
        .filter((line) => line.includes('status=REVERSED')),
    ).toEqual([]);
  }, 180_000);
});
