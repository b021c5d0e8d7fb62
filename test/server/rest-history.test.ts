import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuyResult, CatalogEnvelope, Item, Trade, TradeHistoryPage } from '../../src/shared/api';
import { balanceHistoryPageSchema, catalogEnvelopeSchema, tradeHistoryPageSchema } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, merchantApi } from '../support/sandboxHttp';

type Api = ReturnType<typeof merchantApi>;

describe('sandbox REST: catalog, history, wallet, isolation', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let alice: MerchantCredentials;
  let bob: MerchantCredentials;
  let aliceApi: Api;
  let bobApi: Api;
  const aliceTrades: BuyResult[] = [];

  async function buyOne(api: Api, externalId: string | null): Promise<BuyResult> {
    const [item] = (await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 500 }] })).body.items;
    const answer = await api.post<BuyResult>('/Items/Buy', {
      itemId: item?.itemId,
      assetId: item?.assetId,
      price: 500,
      tradeUrl: TEST_TRADE_URL,
      ...(externalId ? { externalId } : {}),
    });
    expect(answer.status).toBe(200);
    return answer.body;
  }

  beforeAll(async () => {
    sb = await startSandbox({ items: 400, seed: 21 });
    admin = adminApi(sb);
    alice = await admin.createMerchant({
      balance: 1_000_000,
      reveal: { steamId: true, inspectInGame: true, tradeUrl: true },
    });
    bob = await admin.createMerchant({ balance: 1_000_000 });
    aliceApi = merchantApi(sb, alice);
    bobApi = merchantApi(sb, bob);
    // Seven trades over 20 days of clock time, one a day apart at the start.
    for (let i = 0; i < 7; i++) {
      aliceTrades.push(await buyOne(aliceApi, `order-${i}`));
      await admin.advance(i < 3 ? 6 * 24 * 3600 : 60);
    }
    await buyOne(bobApi, 'order-0');
  });
  afterAll(() => sb.close());

  it('lists the catalog with correct totals, valid items and lastUpdate', async () => {
    const answer = await aliceApi.get<CatalogEnvelope>('/Items/GetAllItemsOnSale');
    const envelope = catalogEnvelopeSchema.parse(answer.body);
    expect(envelope.totalItems).toBe(envelope.items.length);
    expect(envelope.totalValue).toBe(envelope.items.reduce((sum, item) => sum + item.price, 0));
    expect(new Set(envelope.items.map((i) => i.itemId)).size).toBe(envelope.items.length);
    // Alice has every holder field enabled, Bob none.
    expect(envelope.items.every((i) => i.steamId !== null && i.tradeUrl !== null && i.inspectInGame !== null)).toBe(
      true,
    );
    const bobs = catalogEnvelopeSchema.parse((await bobApi.get<CatalogEnvelope>('/Items/GetAllItemsOnSale')).body);
    expect(bobs.items.every((i) => i.steamId === null && i.tradeUrl === null && i.inspectInGame === null)).toBe(true);
    expect(bobs.totalItems).toBe(envelope.totalItems);
  });

  it('searches by ids and by names', async () => {
    const all = catalogEnvelopeSchema.parse((await bobApi.get('/Items/GetAllItemsOnSale')).body).items;
    const picked = all.slice(0, 3);
    const byId = catalogEnvelopeSchema.parse(
      (await bobApi.post('/Items/SearchItems', { itemId: [...picked.map((i) => i.itemId), 1] })).body,
    );
    expect(byId.items.map((i) => i.itemId).sort()).toEqual(picked.map((i) => i.itemId).sort());
    const name = picked[0]?.market_hash_name as string;
    const byName = catalogEnvelopeSchema.parse(
      (await bobApi.post('/Items/SearchItems', { market_hash_name: [name] })).body,
    );
    expect(byName.items.length).toBe(all.filter((i) => i.market_hash_name === name).length);
    expect(byName.items.every((i) => i.market_hash_name === name)).toBe(true);
    const tenNames = Array.from({ length: 10 }, (_, i) => (i === 0 ? name : `Nothing ${i}`));
    const ten = catalogEnvelopeSchema.parse(
      (await bobApi.post('/Items/SearchItems', { market_hash_name: tenNames })).body,
    );
    expect(ten.totalItems).toBe(byName.totalItems);
    const elevenNames = await bobApi.post<{ error: string; message: string }>('/Items/SearchItems', {
      market_hash_name: [...tenNames, 'Nothing 10'],
    });
    expect([elevenNames.status, elevenNames.body.error]).toEqual([400, 'invalid_request']);
    expect(elevenNames.body.message).toMatch(/market_hash_name/);
    const exactly500 = await bobApi.post('/Items/SearchItems', {
      itemId: Array.from({ length: 500 }, (_, i) => i + 1),
    });
    expect(exactly500.status).toBe(200);
    const both = await bobApi.post<{ error: string }>('/Items/SearchItems', { itemId: [1], market_hash_name: [name] });
    expect([both.status, both.body.error]).toEqual([400, 'invalid_request']);
    const tooMany = await bobApi.post<{ error: string }>('/Items/SearchItems', {
      itemId: Array.from({ length: 501 }, (_, i) => i + 1),
    });
    expect([tooMany.status, tooMany.body.error]).toEqual([400, 'invalid_request']);
  });

  it('returns the 50 most recent by default, newest first, and pages', async () => {
    const page = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History')).body);
    expect(page).toMatchObject({ total: 7, limit: 50, page: 1 });
    const created = page.trades.map((t) => Date.parse(t.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(page.trades[0]?.tradeId).toBe(aliceTrades[6]?.tradeId);

    const second = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History?limit=3&page=2')).body);
    expect(second).toMatchObject({ total: 7, limit: 3, page: 2 });
    expect(second.trades.map((t) => t.tradeId)).toEqual(page.trades.slice(3, 6).map((t) => t.tradeId));
    const beyond = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History?limit=3&page=9')).body);
    expect(beyond.trades).toEqual([]);
  });

  it('filters by tradeId, externalId, status, webhookStatus and time', async () => {
    const target = aliceTrades[2] as BuyResult;
    const byId = tradeHistoryPageSchema.parse((await aliceApi.get(`/Trades/History?tradeId=${target.tradeId}`)).body);
    expect(byId.trades.map((t) => t.tradeId)).toEqual([target.tradeId]);
    const byExternal = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History?externalId=order-4')).body);
    expect(byExternal.trades.map((t) => t.tradeId)).toEqual([aliceTrades[4]?.tradeId]);

    await admin.transition(target.tradeId, { status: 'SENT' });
    const sent = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History?status=SENT')).body);
    expect(sent.trades.map((t) => t.tradeId)).toEqual([target.tradeId]);
    const failedHooks = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History?webhookStatus=failed')).body);
    expect(failedHooks.total).toBe(0);

    const all = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History')).body).trades;
    const pivot = all.find((t) => t.tradeId === aliceTrades[3]?.tradeId) as Trade;
    const from = tradeHistoryPageSchema.parse((await aliceApi.get(`/Trades/History?from=${pivot.createdAt}`)).body);
    expect(from.trades.map((t) => t.tradeId).sort()).toEqual(
      aliceTrades
        .slice(3)
        .map((t) => t.tradeId)
        .sort(),
    );
    const to = tradeHistoryPageSchema.parse((await aliceApi.get(`/Trades/History?to=${pivot.createdAt}`)).body);
    expect(to.trades.map((t) => t.tradeId).sort()).toEqual(
      aliceTrades
        .slice(0, 4)
        .map((t) => t.tradeId)
        .sort(),
    );
    const window = tradeHistoryPageSchema.parse(
      (await aliceApi.get(`/Trades/History?from=${pivot.createdAt}&to=${pivot.createdAt}`)).body,
    );
    expect(window.trades.map((t) => t.tradeId)).toEqual([pivot.tradeId]);
  });

  it('isActive=true returns the last 14 days unpaged and refuses from/to', async () => {
    const active = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History?isActive=true&limit=1')).body);
    // Trades 0 and 1 are 18 and 12+ days old: 0 falls outside the window.
    const ids = active.trades.map((t) => t.tradeId);
    expect(ids).not.toContain(aliceTrades[0]?.tradeId);
    expect(ids).toContain(aliceTrades[6]?.tradeId);
    expect(active.trades.length).toBe(active.total);
    expect(active.trades.length).toBeGreaterThan(1);
    const refused = await aliceApi.get<{ error: string }>('/Trades/History?isActive=true&from=2026-01-01T00:00:00Z');
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
    const refusedTo = await aliceApi.get<{ error: string; message: string }>(
      `/Trades/History?isActive=true&to=${new Date().toISOString()}`,
    );
    expect([refusedTo.status, refusedTo.body.error]).toEqual([400, 'invalid_request']);
    expect(refusedTo.body.message).toContain('isActive cannot be combined with from or to');
    // isActive=false is no filter: from/to are fine with it.
    expect(
      (await aliceApi.get(`/Trades/History?isActive=false&to=${new Date(Date.now() + 30 * 86_400_000).toISOString()}`))
        .status,
    ).toBe(200);
  });

  it('isActive=true ignores limit and page, whatever they hold (spec: "Ignored when isActive=true")', async () => {
    const reference = tradeHistoryPageSchema.parse((await aliceApi.get('/Trades/History?isActive=true')).body);
    expect(reference.trades.length).toBe(reference.total);
    for (const paging of ['limit=1000', 'page=0', 'limit=0&page=0', 'limit=abc&page=-1', 'limit=1&page=2']) {
      const answer = await aliceApi.get(`/Trades/History?isActive=true&${paging}`);
      expect(answer.status, paging).toBe(200);
      expect(tradeHistoryPageSchema.parse(answer.body), paging).toEqual(reference);
    }
    // Without isActive they are checked as before.
    for (const paging of ['limit=1000', 'page=0'])
      expect((await aliceApi.get(`/Trades/History?${paging}`)).status, paging).toBe(400);
  });

  it('filters by webhookStatus sent and failed (null until a delivery settled)', async () => {
    // A receiver that answers 200 to every webhook but those of the order `hook-fail`.
    const server = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      request.on('end', () => {
        const body = JSON.parse(raw) as { externalId?: string | null };
        response.writeHead(body.externalId === 'hook-fail' ? 500 : 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const hooked = await admin.createMerchant({
        balance: 100_000,
        webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      });
      const api = merchantApi(sb, hooked);
      const delivered = await buyOne(api, 'hook-ok');
      const failing = await buyOne(api, 'hook-fail');
      const count = async (query: string) =>
        tradeHistoryPageSchema.parse((await api.get(`/Trades/History?${query}`)).body).total;
      for (let i = 0; i < 200 && (await count('webhookStatus=sent')) === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      // The refused PENDING webhook is retried 10 s, 60 s and 300 s of clock time apart, then it has failed.
      expect(await count('webhookStatus=failed')).toBe(0);
      for (const seconds of [11, 61, 301]) await admin.advance(seconds);
      const sent = tradeHistoryPageSchema.parse((await api.get('/Trades/History?webhookStatus=sent')).body);
      const failed = tradeHistoryPageSchema.parse((await api.get('/Trades/History?webhookStatus=failed')).body);
      expect(sent.trades.map((t) => [t.tradeId, t.webhookStatus])).toEqual([[delivered.tradeId, 'sent']]);
      expect(failed.trades.map((t) => [t.tradeId, t.webhookStatus])).toEqual([[failing.tradeId, 'failed']]);
      expect(await count('')).toBe(2);
      // Combined with another filter.
      expect(await count('webhookStatus=sent&externalId=hook-fail')).toBe(0);
      expect(await count('webhookStatus=failed&externalId=hook-fail')).toBe(1);
      // A merchant without a webhook URL: null, in neither list.
      expect(tradeHistoryPageSchema.parse((await bobApi.get('/Trades/History?webhookStatus=sent')).body).total).toBe(0);
      expect(
        tradeHistoryPageSchema
          .parse((await bobApi.get('/Trades/History')).body)
          .trades.every((t) => t.webhookStatus === null),
      ).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('rejects bad history queries with invalid_request', async () => {
    for (const query of [
      'limit=501',
      'page=0',
      'status=DONE',
      'webhookStatus=x',
      'from=yesterday',
      'status=SENT&status=PENDING',
      'sort=asc',
    ]) {
      const answer = await aliceApi.get<{ error: string }>(`/Trades/History?${query}`);
      expect([answer.status, answer.body.error], query).toEqual([400, 'invalid_request']);
    }
    const ledger = await aliceApi.get<{ error: string }>('/Wallet/BalanceHistory?type=REFUND');
    expect([ledger.status, ledger.body.error]).toEqual([400, 'invalid_request']);
  });

  it('keeps the ledger consistent: balanceAfter = balanceBefore + amount, balance = sum of the ledger', async () => {
    const target = aliceTrades[5] as BuyResult;
    await admin.transition(target.tradeId, { status: 'SENT' });
    await admin.transition(target.tradeId, { status: 'COMPLETED' });
    const ledger = balanceHistoryPageSchema.parse((await aliceApi.get('/Wallet/BalanceHistory?limit=500')).body);
    const balance = (
      await aliceApi.get<{ balance: number; credit_limit: number; total_available: number }>('/Wallet/GetBalance')
    ).body;
    for (const entry of ledger.transactions) expect(entry.balanceAfter).toBe(entry.balanceBefore + entry.amount);
    expect(ledger.transactions.reduce((sum, e) => sum + e.amount, 0)).toBe(balance.balance);
    expect(balance.total_available).toBe(balance.balance + balance.credit_limit);
    // Newest first, and consecutive entries chain.
    const chronological = [...ledger.transactions].reverse();
    for (let i = 1; i < chronological.length; i++)
      expect(chronological[i]?.balanceBefore).toBe(chronological[i - 1]?.balanceAfter);
    expect(chronological[0]).toMatchObject({
      type: 'ADMIN TOP UP',
      amount: 1_000_000,
      tradeId: null,
      market_hash_name: null,
    });

    const completed = balanceHistoryPageSchema.parse(
      (await aliceApi.get('/Wallet/BalanceHistory?type=BUY%20COMPLETED')).body,
    );
    expect(completed.transactions).toHaveLength(1);
    expect(completed.transactions[0]).toMatchObject({ amount: 0, tradeId: target.tradeId });
    const paged = balanceHistoryPageSchema.parse((await aliceApi.get('/Wallet/BalanceHistory?limit=2&page=2')).body);
    expect(paged.transactions.map((t) => t.id)).toEqual(ledger.transactions.slice(2, 4).map((t) => t.id));
    const since = ledger.transactions[1]?.createdAt as string;
    const fromFilter = balanceHistoryPageSchema.parse(
      (await aliceApi.get(`/Wallet/BalanceHistory?from=${since}`)).body,
    );
    expect(fromFilter.transactions.every((t) => t.createdAt >= since)).toBe(true);
    // `to` is inclusive, and with `from` gives a window; entries are newest first either way.
    const pivot = chronological[3] as (typeof chronological)[number];
    const toFilter = balanceHistoryPageSchema.parse(
      (await aliceApi.get(`/Wallet/BalanceHistory?to=${pivot.createdAt}&limit=500`)).body,
    );
    const upToPivot = ledger.transactions.filter((t) => t.createdAt <= pivot.createdAt);
    expect(toFilter.transactions.map((t) => t.id)).toEqual(upToPivot.map((t) => t.id));
    expect(toFilter.total).toBe(upToPivot.length);
    expect(toFilter.transactions.map((t) => t.id)).toContain(pivot.id);
    expect(toFilter.transactions.some((t) => t.createdAt > pivot.createdAt)).toBe(false);
    expect(toFilter.total).toBeLessThan(ledger.total);
    const window = balanceHistoryPageSchema.parse(
      (await aliceApi.get(`/Wallet/BalanceHistory?from=${pivot.createdAt}&to=${pivot.createdAt}`)).body,
    );
    expect(window.transactions.map((t) => t.id)).toEqual(
      ledger.transactions.filter((t) => t.createdAt === pivot.createdAt).map((t) => t.id),
    );
    const inverted = await aliceApi.get<{ error: string }>(
      `/Wallet/BalanceHistory?from=${since}&to=${chronological[0]?.createdAt}`,
    );
    expect([inverted.status, inverted.body.error]).toEqual([400, 'invalid_request']);
  });

  it('shows a merchant only its own trades and ledger', async () => {
    const bobTrades = tradeHistoryPageSchema.parse((await bobApi.get('/Trades/History')).body);
    expect(bobTrades.total).toBe(1);
    const aliceIds = new Set(aliceTrades.map((t) => t.tradeId));
    expect(bobTrades.trades.some((t) => aliceIds.has(t.tradeId))).toBe(false);
    const peek = tradeHistoryPageSchema.parse(
      (await bobApi.get(`/Trades/History?tradeId=${aliceTrades[0]?.tradeId}`)).body,
    );
    expect(peek.total).toBe(0);
    const peekLedger = balanceHistoryPageSchema.parse(
      (await bobApi.get(`/Wallet/BalanceHistory?tradeId=${aliceTrades[0]?.tradeId}`)).body,
    );
    expect(peekLedger.total).toBe(0);
    // Both used externalId order-0: unique per merchant, not globally.
    const bobsOrder = tradeHistoryPageSchema.parse((await bobApi.get('/Trades/History?externalId=order-0')).body);
    expect(bobsOrder.total).toBe(1);
  });

  it('validates live answers against its own OpenAPI document', async () => {
    const { default: Ajv2020 } = await import('ajv/dist/2020.js');
    const doc = (await (await fetch(`${sb.baseUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, object> };
    };
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema, name);
    const check = (name: string, body: unknown) => {
      const validate = ajv.getSchema(name);
      expect(validate, name).toBeDefined();
      const ok = validate?.(body);
      expect(ok, `${name}: ${JSON.stringify(validate?.errors)}`).toBe(true);
    };
    check('GetAllItemsOnSaleResponse', (await bobApi.get('/Items/GetAllItemsOnSale')).body);
    check('TradeHistoryResponse', (await aliceApi.get('/Trades/History')).body);
    check('GetBalanceResponse', (await aliceApi.get('/Wallet/GetBalance')).body);
    check('BalanceHistoryResponse', (await aliceApi.get('/Wallet/BalanceHistory')).body);
    check('Error', (await aliceApi.get('/Trades/History?limit=999')).body);
    const bought = await buyOne(aliceApi, null);
    check('BuyResponse', bought);
    const broken = { ...(await aliceApi.get<TradeHistoryPage>('/Trades/History')).body, total: 'many' };
    expect(ajv.getSchema('TradeHistoryResponse')?.(broken)).toBe(false);
  });
});

describe('sandbox REST: the on-sale list follows every change between downloads', () => {
  let sb: Sandbox;
  afterAll(() => sb?.close());

  it('has totals, first and last items that match its items after a reprice, a sale elsewhere, a new item and a reset', async () => {
    sb = await startSandbox({ items: 300, seed: 9 });
    const admin = adminApi(sb);
    const creds = await admin.createMerchant({ balance: 1_000_000 });
    let api = merchantApi(sb, creds);
    const list = async () => {
      // fetch asks for gzip: this is the list assembled from cached segments, with its cached head.
      const answer = await api.get<CatalogEnvelope>('/Items/GetAllItemsOnSale');
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const envelope = catalogEnvelopeSchema.parse(answer.body);
      expect(envelope.totalItems).toBe(envelope.items.length);
      expect(envelope.totalValue).toBe(envelope.items.reduce((sum, item) => sum + item.price, 0));
      return envelope;
    };
    const before = await list();
    expect(await list()).toEqual(before);
    const [first, second] = before.items;
    const last = before.items.at(-1) as Item;

    expect((await admin.patch(`/admin/items/${second?.itemId}`, { price: (second?.price ?? 0) + 77 })).status).toBe(
      200,
    );
    const repriced = await list();
    expect(repriced.totalValue).toBe(before.totalValue + 77);
    // The text too: an integer as the spec has it ("price":1234, never 1234.0), and only the price changed.
    const rawList = await (
      await fetch(`${sb.baseUrl}/Items/GetAllItemsOnSale`, {
        headers: { 'x-api-key': creds.apiKey, 'x-merchant-id': creds.merchantId },
      })
    ).text();
    const textOf = (item: Item) => JSON.stringify(item);
    expect(rawList).toContain(textOf({ ...(second as Item), price: (second?.price ?? 0) + 77 }));

    // The lowest and the highest id leave: the list's first and last segments move.
    expect((await admin.delete(`/admin/items/${first?.itemId}`)).status).toBe(200);
    expect((await admin.delete(`/admin/items/${last.itemId}`)).status).toBe(200);
    const shrunk = await list();
    expect(shrunk.totalItems).toBe(before.totalItems - 2);
    expect(shrunk.items[0]?.itemId).toBe(second?.itemId);

    const added = (await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 4321 }] })).body
      .items[0] as Item;
    const grown = await list();
    expect(grown.items.at(-1)?.itemId).toBe(added.itemId);
    expect(grown.totalValue).toBe(shrunk.totalValue + 4321);

    expect((await admin.post('/admin/reset')).status).toBe(200);
    api = merchantApi(sb, await admin.createMerchant()); // a reset forgets the merchants too
    const reset = await list();
    expect([reset.totalItems, reset.totalValue]).toEqual([before.totalItems, before.totalValue]);
  });
});
