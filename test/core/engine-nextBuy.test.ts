import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item, Trade } from '../../src/shared/api';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { type EngineHarness, startEngine, waitForFeedAndBalance } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, tradeUrlFor } from '../support/sandboxHttp';
import { bought, newListings } from '../support/recipientBuys';

describe('buy the next one and order look-up, engine against the real sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;
  let nextItemId = 93_000_000;
  const recipient = tradeUrlFor(424_242);

  /** Trades the server holds for this merchant (with this order id). */
  const serverTrades = (externalId?: string) =>
    (
      sb.core.db
        .prepare(
          `SELECT count(*) AS n FROM trades WHERE merchant_id = ?${externalId === undefined ? '' : ' AND external_id = ?'}`,
        )
        .get(merchant.merchantId, ...(externalId === undefined ? [] : [externalId])) as { n: number }
    ).n;

  const listings = (specs: Partial<Item>[]) =>
    newListings(
      { sb, app },
      specs.map((spec) => ({ itemId: nextItemId++, phase: null, ...spec })),
    );

  /** Buys `item` by id with `externalId`, sends the offer, then sells the item elsewhere: the trade ends CANCELLED 505 in the cache. */
  async function soldElsewhere(item: Item, externalId: string): Promise<Trade> {
    const trade = bought(
      await app.call('buy.byId', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        recipient: { tradeUrl: recipient },
        externalId,
      }),
    );
    // Only an offer already sent ends 505 when its item sells elsewhere (before that it FAILS 500).
    await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
    expect((await adminApi(sb).delete(`/admin/items/${item.itemId}`)).status).toBe(200);
    return waitFor(
      async () => {
        const stored = (await app.call('trades.get', { tradeId: trade.tradeId }))?.trade;
        return stored?.status === 'CANCELLED' && stored.errorCode === 505 ? stored : null;
      },
      15_000,
      'the trade ended 505 in the cache',
    );
  }

  beforeEach(async () => {
    sb = await startSandbox({ items: 40, seed: 35 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-next-buy-'));
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    await waitForFeedAndBalance(app);
  });

  afterEach(async () => {
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('after a trade sold elsewhere, buys the cheapest listing under the original price as ORDER#2 for the same recipient, once', async () => {
    const name = 'M4A1-S | Next One Test (Field-Tested)';
    const [original] = await listings([{ market_hash_name: name, price: 1000 }]);
    const first = await soldElsewhere(original as Item, 'ORDER-7');
    await listings([
      { market_hash_name: name, price: 1500 },
      { market_hash_name: name, price: 980 },
      { market_hash_name: name, price: 950 },
      { market_hash_name: 'M4A1-S | Other Test (Field-Tested)', price: 10 },
    ]);

    const chain = await app.call('operations.orderChain', { tradeId: first.tradeId });
    expect(chain.unavailable).toBeNull();
    expect(chain.next).toMatchObject({
      root: 'ORDER-7',
      externalId: 'ORDER-7#2',
      market_hash_name: name,
      maxPrice: 1000,
      tradeUrl: recipient,
      cheapest: { price: 950 },
    });

    const from = { tradeId: first.tradeId };
    // Above the original's maximum: refused in the engine, nothing sent.
    const above = await dispatchIpc(app.engine, 'operations.buyNext', {
      from,
      externalId: 'ORDER-7#2',
      maxPrice: 1001,
    });
    expect(above).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(!above.ok && above.error.message).toMatch(/above the original maximum of \$10\.00/);
    expect(serverTrades()).toBe(1);

    // Two clicks at once: one buy, one answer.
    const input = { from, externalId: 'ORDER-7#2', maxPrice: 1000 };
    const [a, b] = await Promise.all([app.call('operations.buyNext', input), app.call('operations.buyNext', input)]);
    const next = bought(a);
    expect(bought(b).tradeId).toBe(next.tradeId);
    expect(next).toMatchObject({ externalId: 'ORDER-7#2', price: 950, tradeUrl: recipient, market_hash_name: name });
    expect(serverTrades('ORDER-7#2')).toBe(1);
    expect(serverTrades()).toBe(2);

    // A click after it succeeded: answered with that trade, nothing bought.
    expect(bought(await app.call('operations.buyNext', input)).tradeId).toBe(next.tradeId);
    expect(serverTrades()).toBe(2);

    // The chain shows both attempts, and no next one while ORDER-7#2 is being bought.
    const after = await app.call('operations.orderChain', { tradeId: next.tradeId });
    expect(after.attempts.map((x) => [x.externalId, x.trade?.status, x.trade?.errorCode])).toEqual([
      ['ORDER-7', 'CANCELLED', 505],
      ['ORDER-7#2', 'PENDING', null],
    ]);
    expect(after.next).toBeNull();
    expect(after.unavailable).toMatch(/ORDER-7#2 is PENDING/);
    const again = await dispatchIpc(app.engine, 'operations.buyNext', {
      from,
      externalId: 'ORDER-7#3',
      maxPrice: 1000,
    });
    expect(again).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(serverTrades()).toBe(2);
  }, 90_000);

  it('says so and buys nothing when no listing is under the cap; an order id at the length limit has no next one', async () => {
    const name = 'P250 | Capped Test (Minimal Wear)';
    const [original, long] = await listings([
      { market_hash_name: name, price: 700 },
      { market_hash_name: name, price: 800 },
    ]);
    const first = await soldElsewhere(original as Item, 'CAP-1');
    await listings([{ market_hash_name: name, price: 701 }]);

    const chain = await app.call('operations.orderChain', { tradeId: first.tradeId });
    expect(chain.next).toMatchObject({ externalId: 'CAP-1#2', maxPrice: 700, cheapest: null });
    const outcome = await app.call('operations.buyNext', {
      from: { tradeId: first.tradeId },
      externalId: 'CAP-1#2',
      maxPrice: 700,
    });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.failure).toMatchObject({ code: 'no_listing_under_max' });
    expect(!outcome.ok && outcome.failure.message).toMatch(/No listing of .* at or under \$7\.00.*nothing was bought/);
    expect(serverTrades()).toBe(1);

    const longId = 'L'.repeat(127);
    const second = await soldElsewhere(long as Item, longId);
    const limited = await app.call('operations.orderChain', { tradeId: second.tradeId });
    expect(limited.next).toBeNull();
    expect(limited.unavailable).toMatch(/127 characters.*128/);
    const refused = await dispatchIpc(app.engine, 'operations.buyNext', {
      from: { tradeId: second.tradeId },
      externalId: `${'L'.repeat(126)}#2`,
      maxPrice: 800,
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(serverTrades()).toBe(2);
  }, 90_000);

  it('after a buy by name refused price_too_high, buys the next one under the same maxPrice once a listing is under it', async () => {
    const name = 'Glock-18 | Refused Test (Field-Tested)';
    await listings([{ market_hash_name: name, price: 2500 }]);
    const refused = await app.call('buy.byName', {
      market_hash_name: name,
      maxPrice: 2000,
      recipient: { tradeUrl: recipient },
      externalId: 'REF-9',
    });
    expect(!refused.ok && refused.failure.code).toBe('price_too_high');

    const from = { refusedExternalId: 'REF-9' };
    const before = await app.call('operations.orderChain', from);
    expect(before.attempts).toMatchObject([{ externalId: 'REF-9', trade: null, refusal: { code: 'price_too_high' } }]);
    expect(before.next).toMatchObject({ externalId: 'REF-9#2', maxPrice: 2000, tradeUrl: recipient, cheapest: null });

    await listings([{ market_hash_name: name, price: 1900 }]);
    const plan = (await app.call('operations.orderChain', from)).next;
    expect(plan?.cheapest?.price).toBe(1900);
    const next = bought(await app.call('operations.buyNext', { from, externalId: 'REF-9#2', maxPrice: 2000 }));
    expect(next).toMatchObject({ externalId: 'REF-9#2', price: 1900, tradeUrl: recipient });
    expect(serverTrades()).toBe(1);
    const chain = await app.call('operations.orderChain', { tradeId: next.tradeId });
    expect(chain.attempts.map((x) => [x.externalId, x.refusal?.code ?? x.trade?.status])).toEqual([
      ['REF-9', 'price_too_high'],
      ['REF-9#2', 'PENDING'],
    ]);
  }, 90_000);

  it('a buy by name refused item_unavailable is continued after a restart: ORDER#2 under the same maxPrice', async () => {
    const name = 'USP-S | Restart Test (Field-Tested)';
    const [gone] = await listings([{ market_hash_name: name, price: 1200 }]);
    // Sold before the buy: the marketplace has no listing of the name left.
    expect((await adminApi(sb).delete(`/admin/items/${(gone as Item).itemId}`)).status).toBe(200);
    const refused = await app.call('buy.byName', {
      market_hash_name: name,
      maxPrice: 1500,
      recipient: { tradeUrl: recipient },
      externalId: 'RST-1',
    });
    expect(!refused.ok && refused.failure.code).toBe('item_unavailable');

    // The app is closed and opened again on the same files.
    await app.close();
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    await waitFor(() => app.session().connection.state === 'connected', 15_000, 'the feed after the restart');

    const from = { refusedExternalId: 'RST-1' };
    const before = await app.call('operations.orderChain', from);
    expect(before.attempts).toMatchObject([
      { externalId: 'RST-1', trade: null, refusal: { code: 'item_unavailable' } },
    ]);
    expect(before.next).toMatchObject({
      externalId: 'RST-1#2',
      market_hash_name: name,
      maxPrice: 1500,
      tradeUrl: recipient,
    });

    await listings([
      { market_hash_name: name, price: 1600 },
      { market_hash_name: name, price: 1400 },
    ]);
    const above = await dispatchIpc(app.engine, 'operations.buyNext', { from, externalId: 'RST-1#2', maxPrice: 1501 });
    expect(above).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const next = bought(await app.call('operations.buyNext', { from, externalId: 'RST-1#2', maxPrice: 1500 }));
    expect(next).toMatchObject({ externalId: 'RST-1#2', price: 1400, tradeUrl: recipient, market_hash_name: name });
    expect(serverTrades()).toBe(1);
    const chain = await app.call('operations.orderChain', { tradeId: next.tradeId });
    expect(chain.attempts.map((x) => [x.externalId, x.refusal?.code ?? x.trade?.status])).toEqual([
      ['RST-1', 'item_unavailable'],
      ['RST-1#2', 'PENDING'],
    ]);
  }, 90_000);

  it('looks a trade up by order id, trade id, trade URL, partner id, offer id and item name; refuses a look-up too long', async () => {
    const name = 'Five-SeveN | Lookup Test (Well-Worn)';
    const [item, other] = await listings([
      { market_hash_name: name, price: 300 },
      { market_hash_name: 'Tec-9 | Elsewhere (Well-Worn)', price: 300 },
    ]);
    const trade = bought(
      await app.call('buy.byId', {
        itemId: (item as Item).itemId,
        assetId: (item as Item).assetId,
        price: 300,
        recipient: { tradeUrl: recipient },
        externalId: 'SUP-123',
      }),
    );
    bought(
      await app.call('buy.byId', {
        itemId: (other as Item).itemId,
        assetId: (other as Item).assetId,
        price: 300,
        recipient: { tradeUrl: tradeUrlFor(99) },
        externalId: 'SUP-124',
      }),
    );
    await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
    const sent = await waitFor(
      async () => {
        const stored = (await app.call('trades.get', { tradeId: trade.tradeId }))?.trade;
        return stored?.offerId ? stored : null;
      },
      15_000,
      'the offer id in the cache',
    );
    const found = async (query: string) => {
      const result = await app.call('operations.lookup', { query });
      return result.hits.map((hit) => [hit.trade.externalId, hit.matchedBy]);
    };
    expect(await found('SUP-123')).toEqual([['SUP-123', 'externalId']]);
    expect(await found(` ${trade.tradeId} `)).toEqual([['SUP-123', 'tradeId']]);
    expect(await found(recipient)).toEqual([['SUP-123', 'partner']]);
    expect(await found('424242')).toEqual([['SUP-123', 'partner']]);
    expect(await found(sent.offerId as string)).toEqual([['SUP-123', 'offerId']]);
    expect(await found(`https://steamcommunity.com/tradeoffer/${sent.offerId}/`)).toEqual([['SUP-123', 'offerId']]);
    expect(await found('lookup test')).toEqual([['SUP-123', 'name']]);
    expect(await found('no such thing')).toEqual([]);

    const tooLong = await dispatchIpc(app.engine, 'operations.lookup', { query: 'x'.repeat(513) });
    expect(tooLong).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: 'operations.lookup: query: A look-up is at most 512 characters' },
    });
    const empty = await dispatchIpc(app.engine, 'operations.lookup', { query: '   ' });
    expect(empty).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  }, 90_000);
});
