import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../src/main/core/api';
import { pooledSockets } from '../../src/main/core/api/nodeFetch';
import { describeBuyFailure } from '../../src/main/core/buy/failures';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import type { BuyOutcome } from '../../src/shared/ipc';
import { settle, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, at, merchantApi, tradeUrlFor } from '../support/sandboxHttp';
import { FaultProxy } from '../support/faultProxy';
import { newListings } from '../support/recipientBuys';
import { startEngineBehindProxy } from '../support/engineOnSandbox';

/** The failure of an outcome that must have failed. */
function failed(outcome: BuyOutcome) {
  if (outcome.ok) throw new Error(`expected a refusal, got trade ${outcome.trade.tradeId}`);
  return outcome.failure;
}

function bought(outcome: BuyOutcome) {
  if (!outcome.ok) throw new Error(`expected a trade, got ${outcome.failure.code}: ${outcome.failure.message}`);
  return outcome.trade;
}

/** A Steam id of a holding account, distinct per `n`. */
const holder = (n: number) => `7656119${String(n).padStart(10, '0')}`;

describe('buying through the engine against the real sandbox', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let merchant: MerchantCredentials;
  let app: EngineHarness;
  let close: () => Promise<void>;
  let nextItemId = 91_000_000;

  const serverTrades = (where = '1 = 1', ...params: unknown[]) =>
    (
      sb.core.db
        .prepare(`SELECT count(*) AS n FROM trades WHERE merchant_id = ? AND ${where}`)
        .get(merchant.merchantId, ...params) as { n: number }
    ).n;

  /** New listings, on sale at the server and in the engine's cache. */
  const listings = (specs: Partial<Item>[]) =>
    newListings(
      { sb, app },
      specs.map((spec) => ({ itemId: nextItemId++, ...spec })),
    );

  const byId = (item: Item, patch: Record<string, unknown> = {}) =>
    app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      recipient: { tradeUrl: TEST_TRADE_URL },
      ...patch,
    });

  // The sandbox, the proxy and the engine run on a fake clock that flows with real time: a buy whose answer was lost
  // looks its order id up, retrying with pauses, fast-forwarded (settle).
  beforeEach(async () => {
    useFlowingFakeClock();
    ({ sb, proxy, merchant, app, close } = await startEngineBehindProxy(
      'engine-buy-',
      { items: 200, seed: 23 },
      { balance: 5_000_000, reveal: { steamId: true } },
    ));
  });

  afterEach(async () => {
    await close();
    useRealClock();
  });

  it('buysInFlight() counts a buy from its start until its answer (the desktop installs no update meanwhile)', async () => {
    const [item] = (await listings([{ price: 900 }])) as [Item];
    expect(app.engine.buysInFlight()).toBe(0);
    proxy.holdRequests();
    const buying = byId(item);
    await waitFor(() => proxy.count('/Items/Buy') === 1, 10_000, 'the buy at the proxy');
    expect(app.engine.buysInFlight()).toBe(1);
    proxy.releaseRequests();
    bought(await buying);
    expect(app.engine.buysInFlight()).toBe(0);
  });

  it('a retry without the order id, after a lost answer and failed look-ups, never makes a second trade (by id)', async () => {
    const [item] = (await listings([{ price: 1200 }])) as [Item];
    proxy.inject((_method, path) => path === '/Items/Buy', { kind: 'swallow', times: 1 });
    // Every history read fails: the look-ups by order id, and the feed's fetch of the trade it announces.
    const lookupsWork = proxy.inject('/Trades/History', { kind: 'drop' });
    const first = await settle(byId(item), 60_000, 'the first buy, its look-ups failed');
    const unknown = failed(first);
    expect(unknown).toMatchObject({ code: 'outcome_unknown', retryable: true });
    expect(first.externalId).toMatch(/^md-/);
    expect(unknown.message).toContain(first.externalId);
    expect(serverTrades('external_id = ?', first.externalId)).toBe(1);

    // "Try again" sends the same input without the order id: the engine reuses it, so the server refuses a second trade.
    const second = await settle(byId(item), 60_000, 'the retry, its look-ups failed');
    expect(second.externalId).toBe(first.externalId);
    expect(failed(second).code).toBe('outcome_unknown');
    expect(serverTrades()).toBe(1);

    lookupsWork();
    const third = await byId(item);
    expect(third.externalId).toBe(first.externalId);
    expect(bought(third).externalId).toBe(first.externalId);
    expect(serverTrades()).toBe(1);
    expect(proxy.count('/Items/Buy')).toBe(2);

    // Settled: the same buy later is a new order (it is refused by the server: the item is sold).
    const later = await byId(item);
    expect(later.externalId).not.toBe(first.externalId);
    expect(failed(later).code).toBe('item_unavailable');
    expect(serverTrades()).toBe(1);
  }, 60_000);

  it('a retry without the order id, after a lost answer and failed look-ups, never makes a second trade (by name)', async () => {
    const name = 'Glock-18 | Retry Test (Field-Tested)';
    await listings([
      { market_hash_name: name, price: 1500, phase: null },
      { market_hash_name: name, price: 1500, phase: null },
    ]);
    proxy.inject((_method, path) => path === '/Items/BuyByName', { kind: 'swallow', times: 1 });
    const lookupsWork = proxy.inject('/Trades/History', { kind: 'drop' });
    const input = { market_hash_name: name, maxPrice: 1500, recipient: { tradeUrl: TEST_TRADE_URL } };
    const first = await settle(app.call('buy.byName', input), 60_000, 'the first buy, its look-ups failed');
    expect(failed(first).code).toBe('outcome_unknown');
    // The second listing is still there: with a fresh order id this retry would buy it.
    const second = await settle(app.call('buy.byName', input), 60_000, 'the retry, its look-ups failed');
    expect(second.externalId).toBe(first.externalId);
    expect(failed(second).code).toBe('outcome_unknown');
    expect(serverTrades()).toBe(1);

    lookupsWork();
    const third = await app.call('buy.byName', input);
    expect(bought(third).externalId).toBe(first.externalId);
    expect(serverTrades()).toBe(1);
    // A different buy (another max price) is another order.
    const other = await app.call('buy.byName', { ...input, maxPrice: 1600 });
    expect(other.externalId).not.toBe(first.externalId);
    expect(bought(other).market_hash_name).toBe(name);
    expect(serverTrades()).toBe(2);
  }, 60_000);

  it('an order id already used by another order is a duplicate_external_id, from the cache or from the server', async () => {
    const [a, b, c] = (await listings([{ price: 1000 }, { price: 1100 }, { price: 1200 }])) as [Item, Item, Item];
    const first = bought(await byId(a, { externalId: 'order-7' }));
    // The same order again is answered with its trade, nothing is sent.
    const buysBefore = proxy.count('/Items/Buy');
    expect(bought(await byId(a, { externalId: 'order-7' })).tradeId).toBe(first.tradeId);
    expect(proxy.count('/Items/Buy')).toBe(buysBefore);

    // Another item under the same order id: refused, with that trade named and a next step.
    const reused = failed(await byId(b, { externalId: 'order-7' }));
    expect(reused).toMatchObject({
      code: 'duplicate_external_id',
      retryable: false,
      nextStep: 'This order id was used before: open that trade, or use a new order id.',
    });
    expect(reused.message).toContain(first.tradeId);
    expect(reused.message).toContain('order-7');
    // Same item, another recipient: not the same order either.
    expect(failed(await byId(a, { externalId: 'order-7', recipient: { tradeUrl: tradeUrlFor(555) } })).code).toBe(
      'duplicate_external_id',
    );

    // An order id the merchant's own system used (the cache never saw it: history reads other than by order id fail).
    proxy.inject((_method, path) => path.startsWith('/Trades/History') && !path.includes('externalId='), {
      kind: 'drop',
    });
    const outside = await merchantApi(sb, merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: c.itemId,
      assetId: c.assetId,
      price: c.price,
      tradeUrl: TEST_TRADE_URL,
      externalId: 'erp-9',
    });
    expect(outside.status).toBe(200);
    const [d] = (await listings([{ price: 1300 }])) as [Item];
    const clash = failed(await byId(d, { externalId: 'erp-9' }));
    expect(clash.code).toBe('duplicate_external_id');
    expect(clash.message).toContain(outside.body.tradeId);
    expect(serverTrades()).toBe(2);
  }, 60_000);

  it('maps partner_blocked (until when) and warns before the block', async () => {
    const owner = tradeUrlFor(4242);
    const items = await listings(Array.from({ length: 11 }, (_, i) => ({ price: 500 + i, steamId: holder(100 + i) })));
    const declined: string[] = [];
    for (const item of items.slice(0, 10)) {
      const trade = bought(await byId(item, { recipient: { tradeUrl: owner } }));
      await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
      await adminApi(sb).transition(trade.tradeId, { status: 'CANCELLED', errorCode: 504 });
      declined.push(trade.tradeId);
      if (declined.length === 7) {
        await waitFor(
          async () => (await app.call('trades.query', { statuses: ['CANCELLED'] })).total === 7,
          10_000,
          '7 declines in the cache',
        );
        const warnings = await app.call('buy.check', {
          itemId: at(items, 10).itemId,
          assetId: at(items, 10).assetId,
          price: at(items, 10).price,
          recipient: { tradeUrl: owner },
        });
        expect(warnings.map((w) => w.code)).toContain('owner-near-block');
        expect(warnings.find((w) => w.code === 'owner-near-block')?.message).toMatch(
          /^7 of your offers to this recipient were declined or expired in 24 h/,
        );
      }
    }
    const last = at(items, 10);
    const blocked = failed(await byId(last, { recipient: { tradeUrl: owner } }));
    expect(blocked.code).toBe('partner_blocked');
    expect(blocked.blockedUntil).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(blocked.blockedUntil as string)).toBeGreaterThan(Date.now());
    expect(blocked.message).toBe(
      `The recipient is blocked until ${blocked.blockedUntil} after repeated declined or expired offers.`,
    );
    expect(blocked.nextStep).toBe('Wait until the block ends, or ask the recipient to accept their offers.');
  }, 90_000);

  it('maps too_many_active_trades for the holding account (5) and the owner (30), warning before each', async () => {
    const sameHolder = await listings(Array.from({ length: 6 }, (_, i) => ({ price: 300 + i, steamId: holder(1) })));
    const check = (item: Item, tradeUrl = TEST_TRADE_URL) =>
      app.call('buy.check', { itemId: item.itemId, assetId: item.assetId, price: item.price, recipient: { tradeUrl } });
    for (const [i, item] of sameHolder.slice(0, 4).entries())
      bought(await byId(item, { recipient: { tradeUrl: tradeUrlFor(7000 + i) } }));
    // The bought items left sale (the feed's item_removed): the warning still finds their holder.
    await waitFor(
      async () => (await app.call('catalog.item', { itemId: at(sameHolder, 3).itemId }))?.onSale === false,
      10_000,
      'the 4th item off sale',
    );
    const holderWarning = (await check(at(sameHolder, 4))).find((w) => w.code === 'holder-near-limit');
    expect(holderWarning?.message).toBe('The account holding this item has at least 4 of 5 active offers.');
    bought(await byId(at(sameHolder, 4)));
    const busyHolder = failed(await byId(at(sameHolder, 5)));
    expect(busyHolder.code).toBe('too_many_active_trades');
    expect(busyHolder.nextStep).toBe('Buy a listing of the same item held by another account.');
    expect(busyHolder.message).toMatch(/account holding this item/);

    const owner = tradeUrlFor(31_337);
    const forOwner = await listings(
      Array.from({ length: 31 }, (_, i) => ({ price: 200 + i, steamId: holder(500 + i) })),
    );
    for (const item of forOwner.slice(0, 27)) bought(await byId(item, { recipient: { tradeUrl: owner } }));
    const ownerWarning = (await check(at(forOwner, 27), owner)).find((w) => w.code === 'owner-near-limit');
    expect(ownerWarning?.message).toBe('This recipient already has 27 of 30 active offers from you.');
    for (const item of forOwner.slice(27, 30)) bought(await byId(item, { recipient: { tradeUrl: owner } }));
    const busyOwner = failed(await byId(at(forOwner, 30), { recipient: { tradeUrl: owner } }));
    expect(busyOwner.code).toBe('too_many_active_trades');
    expect(busyOwner.nextStep).toBe("Wait for the recipient's open offers to finish.");
  }, 120_000);

  it('maps price_too_high and insufficient_balance (with what is available) from the server', async () => {
    const name = 'MP9 | Mapping Test (Minimal Wear)';
    const [cheap] = (await listings([{ market_hash_name: name, price: 2500, phase: null }])) as [Item];
    const tooHigh = failed(
      await app.call('buy.byName', { market_hash_name: name, maxPrice: 2000, recipient: { tradeUrl: TEST_TRADE_URL } }),
    );
    expect(tooHigh).toMatchObject({
      code: 'price_too_high',
      nextStep: 'Raise the max price, or wait for a cheaper listing.',
      retryable: false,
    });
    expect(tooHigh.message).toContain('exceeds maxPrice');
    expect(serverTrades()).toBe(0);

    const rich = 'AWP | Mapping Test (Factory New)';
    await listings([{ market_hash_name: rich, price: 9_000_000, phase: null }]);
    const poor = failed(
      await app.call('buy.byName', {
        market_hash_name: rich,
        maxPrice: 9_000_000,
        recipient: { tradeUrl: TEST_TRADE_URL },
      }),
    );
    expect(poor).toMatchObject({
      code: 'insufficient_balance',
      available: 5_000_000,
      nextStep: 'Top up the balance or ask for a higher credit limit.',
    });
    expect(poor.message).toBe('Not enough funds: $50,000.00 available, $90,000.00 needed.');
    expect(cheap.price).toBe(2500);
  }, 60_000);

  it('buy by name matches a name typed without ★ or ™ and in another case; an unknown name is not "pick another listing"', async () => {
    const knife = '★ StatTrak™ Karambit | Name Match Test (Factory New)';
    await listings([{ market_hash_name: knife, price: 4000, phase: null }]);
    const typed = 'stattrak karambit | name match test (factory new)';
    const trade = bought(
      await app.call('buy.byName', {
        market_hash_name: typed,
        maxPrice: 4000,
        recipient: { tradeUrl: TEST_TRADE_URL },
      }),
    );
    expect(trade.market_hash_name).toBe(knife);
    expect(serverTrades()).toBe(1);

    const unknown = failed(
      await app.call('buy.byName', {
        market_hash_name: 'Karambit | No Such Skin (Factory New)',
        maxPrice: 4000,
        recipient: { tradeUrl: TEST_TRADE_URL },
      }),
    );
    expect(unknown.code).toBe('item_unavailable');
    expect(unknown.nextStep).not.toMatch(/another listing/);
    expect(unknown.nextStep).toMatch(/name/);
    expect(serverTrades()).toBe(1);
  }, 60_000);

  it('refuses invalid_price and invalid_trade_duration before sending, with the words the server would answer', async () => {
    const [item] = (await listings([{ price: 800 }])) as [Item];
    const buysBefore = proxy.count('/Items/Buy');
    // Past the IPC schema (a host that skips it): the engine's own checks.
    const zero = await app.engine.handle('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: 0,
      recipient: { tradeUrl: TEST_TRADE_URL },
    } as never);
    const short = await app.engine.handle('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: 800,
      recipient: { tradeUrl: TEST_TRADE_URL },
      tradeDurationSeconds: 60,
    } as never);
    const zeroMax = await app.engine.handle('buy.byName', {
      market_hash_name: item.market_hash_name,
      maxPrice: 0,
      recipient: { tradeUrl: TEST_TRADE_URL },
    } as never);
    expect(failed(zero)).toMatchObject({ code: 'invalid_price', nextStep: 'Enter a price above $0.00.' });
    expect(failed(zeroMax)).toMatchObject({ code: 'invalid_price', nextStep: 'Enter a price above $0.00.' });
    expect(failed(short)).toMatchObject({
      code: 'invalid_trade_duration',
      nextStep: 'Choose a trade duration between 10 minutes and 12 hours.',
    });
    expect(proxy.count('/Items/Buy')).toBe(buysBefore);

    // The sandbox answers the same bodies with the same codes, which map to the same next steps.
    const client = app.session().client;
    for (const [body, outcome] of [
      [{ itemId: item.itemId, assetId: item.assetId, price: 0, tradeUrl: TEST_TRADE_URL }, zero],
      [
        { itemId: item.itemId, assetId: item.assetId, price: 800, tradeUrl: TEST_TRADE_URL, tradeDurationSeconds: 60 },
        short,
      ],
    ] as const) {
      const error = await client.buy(body).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(ApiRequestError);
      const server = describeBuyFailure({
        code: (error as ApiRequestError).code,
        message: (error as ApiRequestError).message,
        retryable: false,
      });
      expect(server.code).toBe(failed(outcome).code);
      expect(server.nextStep).toBe(failed(outcome).nextStep);
    }
    expect(serverTrades()).toBe(0);
  }, 60_000);
});

describe('a buy during a server back-off', () => {
  it('fails at once with a retryable rate_limited failure instead of waiting silently', async () => {
    const sb = await startSandbox({ items: 100, seed: 29 });
    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    const merchant = await adminApi(sb).createMerchant({ balance: 100_000 });
    const dataDir = mkdtempSync(join(tmpdir(), 'engine-backoff-'));
    const app = await startEngine(dataDir, { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, ...merchant });
    try {
      await waitFor(() => app.session().balance !== null, 15_000, 'balance');
      const [item] = (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 700 }] })).body
        .items as [Item];
      proxy.inject('/Wallet/GetBalance', { kind: 'rate-limit', times: 1, retryAfterSeconds: 120 });
      await app.session().refreshBalance();
      expect(app.session().limiter.status().backoffUntil).not.toBeNull();
      const started = Date.now();
      const outcome = await app.call('buy.byId', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: 700,
        recipient: { tradeUrl: TEST_TRADE_URL },
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      const failure = failed(outcome);
      expect(failure).toMatchObject({
        code: 'rate_limited',
        retryable: true,
        nextStep: 'The app waits for the rate limit to reset; try again in a moment.',
      });
      expect(failure.message).toContain('nothing was sent');
      expect(failure.message).toContain(outcome.externalId);
      expect(proxy.count('/Items/Buy')).toBe(0);
      await expectRefusalOnBoard(app, 'rate_limited', 700);
    } finally {
      await app.close();
      await proxy.close();
      await sb.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a buy when the marketplace is unreachable or in maintenance', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let app: EngineHarness;
  let close: () => Promise<void>;
  let item: Item;

  beforeEach(async () => {
    ({ sb, proxy, app, close } = await startEngineBehindProxy(
      'engine-unreachable-',
      { items: 100, seed: 31 },
      { balance: 100_000 },
    ));
    [item] = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ itemId: 92_000_001, price: 700 }] })
    ).body.items as [Item];
  });

  afterEach(async () => {
    await close();
  });

  const buy = () =>
    app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: 700,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });

  it('a refused connection is "not sent", named as such, and the retry is a new order', async () => {
    // Nothing listens on the app's address any more: every connection is refused before a byte is sent (once the
    // client has seen its kept-alive sockets close: a request written on one of those has an unknown outcome).
    await proxy.close();
    await waitFor(() => pooledSockets(proxy.baseUrl) === 0, 10_000, 'the kept-alive sockets closed');
    const outcome = await buy();
    const failure = failed(outcome);
    expect(failure).toMatchObject({ code: 'not_sent', retryable: true });
    expect(failure.message).toContain('nothing was sent');
    expect(failure.message).toContain('connection refused');
    expect(failure.message).not.toContain('ECONNREFUSED');
    expect(failure.nextStep).toMatch(/no trade was made/);
    expect(serverTradeCount()).toBe(0);
    // Not an unknown outcome: a later buy of the same thing is a new order id.
    expect(failed(await buy()).code).toBe('not_sent');
    expect((await buy()).externalId).not.toBe(outcome.externalId);
  }, 60_000);

  it('during maintenance a buy fails at once as "maintenance", not "rate limited", and nothing is sent', async () => {
    await adminApi(sb).post('/admin/maintenance', { on: true });
    await waitFor(() => app.session().connection.state === 'maintenance', 15_000, 'maintenance state');
    // A REST call meets the 503 and its Retry-After (the call itself then waits it out: not awaited).
    void app
      .session()
      .refreshBalance()
      .catch(() => undefined);
    await waitFor(() => app.session().limiter.status().backoffUntil !== null, 15_000, 'the back-off of the 503');
    const buysBefore = proxy.count('/Items/Buy');
    const failure = failed(await buy());
    expect(failure).toMatchObject({
      code: 'maintenance',
      retryable: true,
      nextStep: 'The marketplace is under maintenance; try again later.',
    });
    expect(failure.message).toContain('under maintenance');
    expect(failure.message).toContain('nothing was sent');
    expect(proxy.count('/Items/Buy')).toBe(buysBefore);
    await expectRefusalOnBoard(app, 'maintenance');
  }, 60_000);

  function serverTradeCount(): number {
    return (sb.core.db.prepare('SELECT count(*) AS n FROM trades').get() as { n: number }).n;
  }
});

/** Operations → Failures shows one refusal of `code` today (at `value` cents when given), and lists it. */
async function expectRefusalOnBoard(app: EngineHarness, code: string, value?: number): Promise<void> {
  const today = new Date().toISOString().slice(0, 10);
  const board = await waitFor(
    async () => {
      const read = await app.call('operations.failures', { from: today, to: today });
      return read.days.find((d) => d.at === today)?.cells[`refusal:${code}`] ? read : null;
    },
    10_000,
    `the ${code} refusal on the board`,
  );
  expect(board.days.find((d) => d.at === today)?.cells[`refusal:${code}`]).toMatchObject({
    count: 1,
    ...(value === undefined ? {} : { value }),
  });
  const listed = await app.call('operations.refusals', { from: today, to: today, code });
  expect(listed.map((refusal) => refusal.code)).toEqual([code]);
}
