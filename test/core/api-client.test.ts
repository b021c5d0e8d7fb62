import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantApiClient, type MerchantApiClientOptions } from '../../src/main/core/api/client';
import { nodeFetch } from '../../src/main/core/api/nodeFetch';
import { ApiRequestError, newPriceOf } from '../../src/main/core/api/errors';
import { ClientRateLimiter } from '../../src/main/core/api/rateLimiter';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { catalogEnvelopeSchema, type Item } from '../../src/shared/api';
import { TEST_TRADE_URL, adminApi, at, tradeUrlFor, type MerchantCredentials } from '../support/sandboxHttp';
import { FaultProxy } from '../support/faultProxy';
import { waitFor } from '../support/waitFor';

async function failure(promise: Promise<unknown>): Promise<ApiRequestError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiRequestError)) throw new Error(`expected an ApiRequestError, got ${String(error)}`);
  return error;
}

function pending(promise: Promise<unknown>) {
  const state = { settled: false };
  promise.then(
    () => (state.settled = true),
    () => (state.settled = true),
  );
  return state;
}

describe('MerchantApiClient against the sandbox', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;
  let nextItemId = 8_000_001;
  let generatedIds: number[];

  const clientFor = (credentials: MerchantCredentials, options: MerchantApiClientOptions = {}) =>
    new MerchantApiClient({ baseUrl: sb.baseUrl, ...credentials }, options);

  async function listItem(partial: Partial<Item>): Promise<Item> {
    const answer = await admin.post<{ items: Item[] }>('/admin/items', {
      items: [{ itemId: nextItemId++, ...partial }],
    });
    expect(answer.status).toBe(200);
    return at(answer.body.items);
  }

  /** Spends a merchant's whole budget of a bucket with plain fetch, outside any client. */
  async function exhaust(credentials: MerchantCredentials, path: string, count: number): Promise<void> {
    const headers = { 'x-api-key': credentials.apiKey, 'x-merchant-id': credentials.merchantId };
    const statuses = await Promise.all(
      Array.from({ length: count }, async () => {
        const response = await fetch(`${sb.baseUrl}${path}`, { headers });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
  }

  beforeAll(async () => {
    sb = await startSandbox({ items: 300, seed: 2 });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 1_000_000 });
    const catalog = await fetch(`${sb.baseUrl}/Items/GetAllItemsOnSale`, {
      headers: { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId },
    });
    generatedIds = ((await catalog.json()) as { items: Item[] }).items.map((item) => item.itemId);
  });
  afterAll(() => sb.close());

  it('returns parsed, typed data from every method', async () => {
    const client = clientFor(merchant);
    expect(await client.getBalance()).toEqual({ balance: 1_000_000, credit_limit: 0, total_available: 1_000_000 });

    const byId = await listItem({ price: 2_345, market_hash_name: 'AK-47 | Redline (Field-Tested)', phase: null });
    const byName = await listItem({
      price: 1_111,
      market_hash_name: 'Desk Test | Unique Name (Minimal Wear)',
      phase: null,
    });
    const search = await client.searchItems({ itemId: [byId.itemId, byName.itemId] });
    expect(search.items.map((item) => [item.itemId, item.price])).toEqual([
      [byId.itemId, 2_345],
      [byName.itemId, 1_111],
    ]);
    expect((await client.searchItems({ market_hash_name: [byName.market_hash_name] })).totalItems).toBe(1);

    const bought = await client.buy({
      itemId: byId.itemId,
      assetId: byId.assetId,
      price: 2_345,
      tradeUrl: TEST_TRADE_URL,
      externalId: 'desk-1',
    });
    expect(bought).toMatchObject({
      assetId: byId.assetId,
      price: 2_345,
      externalId: 'desk-1',
      market_hash_name: byId.market_hash_name,
    });
    const boughtByName = await client.buyByName({
      market_hash_name: byName.market_hash_name,
      maxPrice: 2_000,
      tradeUrl: tradeUrlFor(777),
    });
    expect(boughtByName).toMatchObject({ assetId: byName.assetId, price: 1_111, externalId: null });

    const active = await client.tradeHistory({ isActive: true });
    expect(active.trades.map((trade) => trade.tradeId).sort()).toEqual([bought.tradeId, boughtByName.tradeId].sort());
    expect(active.trades.every((trade) => trade.status === 'PENDING' && trade.stage === 1)).toBe(true);
    const one = await client.tradeHistory({ externalId: 'desk-1' });
    expect(one.trades.map((trade) => trade.tradeId)).toEqual([bought.tradeId]);
    const paged = await client.tradeHistory({ status: 'PENDING', limit: 1, page: 2 });
    expect([paged.total, paged.limit, paged.page, paged.trades.length]).toEqual([2, 1, 2, 1]);
    expect((await client.tradeHistory({ isActive: false, limit: 500 })).total).toBe(2);

    const freezes = await client.balanceHistory({ type: 'FREEZE' });
    expect(freezes.transactions.map((entry) => entry.amount).sort((a, b) => a - b)).toEqual([-2_345, -1_111]);
    const ledger = await client.balanceHistory({ tradeId: bought.tradeId, limit: 10 });
    expect(ledger.transactions).toEqual([
      expect.objectContaining({ type: 'FREEZE', tradeId: bought.tradeId, balanceAfter: expect.any(Number) }),
    ]);
    expect(await client.getBalance()).toMatchObject({ balance: 1_000_000 - 2_345 - 1_111 });

    const catalogRequest = await client.prepareCatalogRequest();
    const response = await fetch(catalogRequest.url, { headers: catalogRequest.headers });
    client.reportCatalogResponse(response.status, response.headers);
    const catalog = catalogEnvelopeSchema.parse(await response.json());
    expect(catalog.totalItems).toBe(300); // 300 generated + 2 listed − 2 bought
    expect(catalog.items.some((item) => item.itemId === byId.itemId)).toBe(false);
  });

  it('asks for gzip, and the sandbox answers gzip (seen by a recording loopback proxy)', async () => {
    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    try {
      const client = new MerchantApiClient(
        { baseUrl: proxy.baseUrl, ...merchant },
        { userAgent: 'merchant-desk-test' },
      );
      const found = await client.searchItems({ itemId: generatedIds.slice(0, 40) });
      expect(found.items).toHaveLength(40);
      const [exchange] = proxy.requests.map((seen) => ({ request: seen.headers, encoding: seen.encoding }));
      expect(exchange?.request).toMatchObject({
        'accept-encoding': 'gzip',
        accept: 'application/json',
        'content-type': 'application/json',
        'x-merchant-id': merchant.merchantId,
        'x-api-key': merchant.apiKey,
        'user-agent': 'merchant-desk-test',
      });
      expect(exchange?.encoding).toBe('gzip');
    } finally {
      await proxy.close();
    }
  });

  it('turns a bad key into a 401 unauthorized error that is not retryable', async () => {
    const error = await failure(clientFor({ ...merchant, apiKey: 'sk_wrong_key' }).getBalance());
    expect(error).toMatchObject({
      kind: 'http',
      status: 401,
      code: 'unauthorized',
      message: 'Invalid API key or Merchant ID',
      retryable: false,
      endpoint: '/Wallet/GetBalance',
    });
  });

  it('keeps business errors typed: price_changed with its new price, invalid_tradeurl, price_too_high, invalid_request', async () => {
    const client = clientFor(merchant);
    const item = await listItem({ price: 1_999, market_hash_name: 'M4A4 | Howl (Factory New)', phase: null });

    const changed = await failure(
      client.buy({ itemId: item.itemId, assetId: item.assetId, price: 1_500, tradeUrl: TEST_TRADE_URL }),
    );
    expect(changed).toMatchObject({
      kind: 'http',
      status: 400,
      code: 'price_changed',
      retryable: false,
      message: 'Price changed; new price: 1999 ($19.99)',
    });
    expect(newPriceOf(changed)).toBe(1_999);

    const badUrl = await failure(
      client.buy({ itemId: item.itemId, assetId: item.assetId, price: 1_999, tradeUrl: 'https://example.com/trade' }),
    );
    expect(badUrl).toMatchObject({ status: 400, code: 'invalid_tradeurl', retryable: false });

    const tooHigh = await failure(
      client.buyByName({ market_hash_name: item.market_hash_name, maxPrice: 100, tradeUrl: TEST_TRADE_URL }),
    );
    expect(tooHigh).toMatchObject({ status: 400, code: 'price_too_high' });
    expect(tooHigh.message).toContain('exceeds maxPrice 100');
    expect(newPriceOf(tooHigh)).toBeNull();

    const invalid = await failure(client.searchItems({ itemId: [1], market_hash_name: ['x'] }));
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', retryable: false });
  });

  it('reports maintenance as a retryable 503 and backs the whole account off for Retry-After (60 s)', async () => {
    const limiter = new ClientRateLimiter();
    const client = clientFor(merchant, { limiter });
    await admin.post('/admin/maintenance', { on: true });
    try {
      const before = Date.now();
      const error = await failure(client.getBalance());
      expect(error).toMatchObject({
        kind: 'http',
        status: 503,
        code: 'maintenance',
        retryable: true,
        retryAfterMs: 60_000,
      });
      const backoffEnd = Date.parse(limiter.status().backoffUntil ?? '');
      expect(backoffEnd).toBeGreaterThanOrEqual(before + 60_000);
      expect(backoffEnd).toBeLessThanOrEqual(Date.now() + 60_000);
    } finally {
      await admin.post('/admin/maintenance', { on: false });
    }
  });

  it('hands a request to the transport inside the call when a slot is free, and only after the grant when not', async () => {
    const sent: string[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return nodeFetch(input, init);
    };
    // Free slot: the request is on its way before the call returns (an auto-buy's request is written
    // before anything else its frame's task does).
    const client = clientFor(merchant, { fetch: recordingFetch });
    const balance = client.getBalance();
    expect(sent).toEqual(['GET /Wallet/GetBalance']);
    expect((await balance).balance).toBeGreaterThan(0);

    // No free slot: nothing goes until a grant; an abort meanwhile sends nothing.
    const full = new ClientRateLimiter({ limits: { catalog: 10, default: 1 } });
    await full.acquire('default');
    const waiting = clientFor(merchant, { fetch: recordingFetch, limiter: full });
    const controller = new AbortController();
    const held = waiting.getBalance({ signal: controller.signal });
    await waitFor(() => full.queued('default') === 1); // held in the limiter
    expect(sent).toHaveLength(1);
    controller.abort();
    expect(await failure(held)).toMatchObject({ kind: 'aborted' });
    expect(sent).toHaveLength(1);
  });

  it('lets 300 default requests through at once without a single 429, and holds the 301st', async () => {
    const fresh = await admin.createMerchant({ balance: 1_000 });
    const statuses: number[] = [];
    const remaining: number[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
      return response;
    };
    const client = clientFor(fresh, { fetch: recordingFetch });
    const balances = await Promise.all(Array.from({ length: 300 }, () => client.getBalance()));
    expect(balances.every((balance) => balance.balance === 1_000)).toBe(true);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(Math.min(...remaining)).toBe(0);
    expect(client.limiter.status().defaultRemaining).toBe(0);

    const controller = new AbortController();
    const extra = client.getBalance({ signal: controller.signal });
    const state = pending(extra);
    await waitFor(() => client.limiter.queued('default') === 1); // held in the limiter
    expect(state.settled).toBe(false);
    expect(statuses).toHaveLength(300);
    controller.abort();
    expect(await failure(extra)).toMatchObject({ kind: 'aborted', code: 'aborted', retryable: false });

    // The client's count matched the server's exactly: one more from outside is refused.
    const outside = await fetch(`${sb.baseUrl}/Wallet/GetBalance`, {
      headers: { 'x-api-key': fresh.apiKey, 'x-merchant-id': fresh.merchantId },
    });
    expect(outside.status).toBe(429);
  });

  it('backs off per Retry-After after a server 429 (budget spent outside the client) and shows it in status()', async () => {
    const fresh = await admin.createMerchant({});
    await exhaust(fresh, '/Wallet/GetBalance', 300);
    const client = clientFor(fresh);
    const before = Date.now();
    const error = await failure(client.tradeHistory({}));
    expect(error).toMatchObject({
      kind: 'http',
      status: 429,
      code: 'rate_limited',
      message: 'Rate limit exceeded',
      retryable: true,
    });
    expect(error.retryAfterMs).toBeGreaterThan(55_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
    const backoffEnd = Date.parse(client.limiter.status().backoffUntil ?? '');
    expect(backoffEnd).toBeGreaterThanOrEqual(before + (error.retryAfterMs ?? 0));
    expect(backoffEnd).toBeLessThanOrEqual(Date.now() + (error.retryAfterMs ?? 0));

    // Even with free client slots nothing is sent until then.
    const controller = new AbortController();
    const waiting = client.getBalance({ signal: controller.signal });
    const state = pending(waiting);
    await waitFor(() => client.limiter.queued('default') === 1); // held in the limiter by the backoff
    expect(state.settled).toBe(false);
    controller.abort();
    await failure(waiting);
  });

  it('feeds a 429 seen by the catalog worker into the backoff', async () => {
    const fresh = await admin.createMerchant({});
    await exhaust(fresh, '/Items/GetAllItemsOnSale', 10);
    const client = clientFor(fresh);
    const { url, headers } = await client.prepareCatalogRequest();
    const response = await fetch(url, { headers });
    expect(response.status).toBe(429);
    const retryAfterSeconds = Number(response.headers.get('retry-after'));
    expect(retryAfterSeconds).toBeGreaterThan(0);
    client.reportCatalogResponse(response.status, response.headers);
    const backoffEnd = Date.parse(client.limiter.status().backoffUntil ?? '');
    expect(backoffEnd - Date.now()).toBeGreaterThan((retryAfterSeconds - 2) * 1000);

    const controller = new AbortController();
    const next = client.prepareCatalogRequest(controller.signal);
    const state = pending(next);
    await waitFor(() => client.limiter.queued('catalog') === 1); // held in the limiter by the backoff
    expect(state.settled).toBe(false);
    controller.abort();
    expect(await failure(next)).toMatchObject({ kind: 'aborted', endpoint: '/Items/GetAllItemsOnSale' });
  });
});
