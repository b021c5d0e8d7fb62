import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantApiClient } from '../../src/main/core/api/client';
import { ApiRequestError } from '../../src/main/core/api/errors';
import { ClientRateLimiter, type LimiterTimers } from '../../src/main/core/api/rateLimiter';
import { startSandbox } from '../../src/server/sandbox';

/**
 * Servers that misbehave in ways the sandbox never does: wrong types, HTML from
 * a proxy, silence, an error body that echoes our headers.
 */
function misbehavingServer(): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const json = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    switch (path) {
      case '/Wallet/GetBalance':
        return json(200, '{"balance":"12","credit_limit":0,"total_available":12}');
      case '/Wallet/BalanceHistory':
        return json(200, '{"transactions":[],"total":0,"limit":50,"page":1,"nextCursor":"abc"}');
      case '/Items/SearchItems':
        res.writeHead(502, { 'content-type': 'text/html' });
        return res.end(
          '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
        );
      case '/Items/Buy':
        return json(200, 'OK');
      case '/Items/BuyByName':
        return json(
          400,
          JSON.stringify({ error: 'invalid_request', message: `bad request headers ${JSON.stringify(req.headers)}` }),
        );
      case '/Trades/History':
        return; // never answers
      default:
        res.writeHead(500);
        return res.end();
    }
  });
}

async function failure(promise: Promise<unknown>): Promise<ApiRequestError> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiRequestError)) throw new Error(`expected an ApiRequestError, got ${String(error)}`);
  return error;
}

const API_KEY = 'sk_live_DO_NOT_LEAK_7f3a9c1e5b';

describe('MerchantApiClient against misbehaving servers', () => {
  let server: Server;
  let baseUrl: string;
  const client = () => new MerchantApiClient({ baseUrl, merchantId: 'acme', apiKey: API_KEY }, { timeoutMs: 300 });

  beforeAll(async () => {
    server = misbehavingServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('names the mistyped field of a schema-violating answer', async () => {
    const error = await failure(client().getBalance());
    expect(error).toMatchObject({
      kind: 'schema',
      code: 'invalid_response',
      status: null,
      retryable: false,
      endpoint: '/Wallet/GetBalance',
    });
    expect(error.message).toMatch(
      /^invalid response from \/Wallet\/GetBalance: balance: expected (int|number), received string$/,
    );
  });

  it('tolerates unknown extra fields (stripped)', async () => {
    expect(await client().balanceHistory({})).toEqual({ transactions: [], total: 0, limit: 50, page: 1 });
  });

  it('reports a 200 whose body is not JSON as a schema error', async () => {
    const error = await failure(client().buy({ itemId: 1, assetId: 'a', price: 1, tradeUrl: 'x' }));
    expect(error).toMatchObject({
      kind: 'schema',
      code: 'invalid_response',
      message: 'invalid response from /Items/Buy: body is not JSON',
    });
  });

  it("explains a proxy's HTML 502 instead of failing to parse it", async () => {
    const error = await failure(client().searchItems({ itemId: [1] }));
    expect(error).toMatchObject({ kind: 'http', status: 502, code: 'http_502', retryable: true, retryAfterMs: null });
    expect(error.message).toBe(
      'HTTP 502 from /Items/SearchItems with a text/html body: "502 Bad Gateway 502 Bad Gateway nginx" (not the API\'s error envelope)',
    );
  });

  it('gives up after timeoutMs on a server that never answers', async () => {
    const started = Date.now();
    const error = await failure(client().tradeHistory({ isActive: true }));
    expect(error).toMatchObject({
      kind: 'timeout',
      code: 'timeout',
      retryable: true,
      message: 'no answer from /Trades/History within 300 ms',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('tells a cancellation by the caller from a time-out', async () => {
    const controller = new AbortController();
    const call = new MerchantApiClient({ baseUrl, merchantId: 'acme', apiKey: API_KEY }).tradeHistory(
      {},
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    expect(await failure(call)).toMatchObject({ kind: 'aborted', code: 'aborted', retryable: false });
  });

  it('reports a refused connection as a retryable network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(
      new MerchantApiClient({ baseUrl: `http://127.0.0.1:${port}`, merchantId: 'acme', apiKey: API_KEY }).getBalance(),
    );
    expect(error).toMatchObject({ kind: 'network', code: 'network_error', retryable: true, status: null });
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('never shows the API key in errors or in the client itself', async () => {
    const sb = await startSandbox({ items: 10, seed: 2 });
    try {
      const unauthorized = new MerchantApiClient({
        baseUrl: sb.baseUrl,
        merchantId: 'acme',
        apiKey: API_KEY,
      }).getBalance();
      const offline = new MerchantApiClient({
        baseUrl: 'http://127.0.0.1:9',
        merchantId: 'acme',
        apiKey: API_KEY,
      }).getBalance();
      const errors = await Promise.all([
        failure(unauthorized),
        failure(offline),
        failure(client().getBalance()),
        failure(client().searchItems({ itemId: [1] })),
        failure(client().tradeHistory({})),
        failure(client().buyByName({ market_hash_name: 'x', maxPrice: 1, tradeUrl: 'x' })),
      ]);
      const echoed = errors.at(-1);
      expect(echoed?.message).toContain('[redacted]');
      expect(echoed?.message).toContain('"x-merchant-id":"acme"');
      const subject = client();
      const texts = [
        ...errors.flatMap((error) => [
          JSON.stringify(error),
          String(error),
          error.stack ?? '',
          inspect(error, { showHidden: true, depth: 10 }),
        ]),
        JSON.stringify(subject),
        String(subject),
        `${subject}`,
        inspect(subject, { showHidden: true, depth: 10 }),
      ];
      for (const text of texts) expect(text).not.toContain(API_KEY);
      expect(String(subject)).toBe(`MerchantApiClient(acme @ ${baseUrl})`);
    } finally {
      await sb.close();
    }
  });
});

describe('MerchantApiClient catalog slots on a fake clock', () => {
  it('hands out 10 catalog requests per window, each timed from its reported answer; the 11th waits until the window slides', async () => {
    let time = Date.parse('2026-03-01T12:00:00.000Z');
    const timers: { at: number; callback: () => void }[] = [];
    const fakeTimers: LimiterTimers = {
      setTimeout: (callback, ms) => {
        const timer = { at: time + ms, callback };
        timers.push(timer);
        return timer;
      },
      clearTimeout: (handle) => {
        const index = timers.indexOf(handle as (typeof timers)[number]);
        if (index >= 0) timers.splice(index, 1);
      },
    };
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
    async function advance(ms: number) {
      const target = time + ms;
      for (
        let next = timers.sort((a, b) => a.at - b.at)[0];
        next && next.at <= target;
        next = timers.sort((a, b) => a.at - b.at)[0]
      ) {
        timers.splice(timers.indexOf(next), 1);
        time = next.at;
        next.callback();
        await settle();
      }
      time = target;
      await settle();
    }

    const limiter = new ClientRateLimiter({ now: () => time, timers: fakeTimers });
    const client = new MerchantApiClient(
      { baseUrl: 'http://127.0.0.1:1/', merchantId: 'acme', apiKey: API_KEY },
      { limiter },
    );
    const granted: number[] = [];
    const requests = Array.from({ length: 12 }, (_, i) =>
      client.prepareCatalogRequest().then((request) => (granted.push(i), request)),
    );
    await settle();
    expect(granted).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(limiter.status()).toMatchObject({
      catalogRemaining: 0,
      catalogLimit: 10,
      defaultRemaining: 300,
      backoffUntil: null,
    });

    // The downloads answer 5 s later (a worker reports each answer): the window runs from then.
    await advance(5_000);
    for (let i = 0; i < 10; i++) client.reportCatalogResponse(200, {});
    await advance(60_249);
    expect(granted).toHaveLength(10);
    await advance(1);
    expect(granted).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);

    const request = await requests[10];
    expect(request).toEqual({
      url: 'http://127.0.0.1:1/Items/GetAllItemsOnSale',
      headers: expect.objectContaining({
        'x-api-key': API_KEY,
        'x-merchant-id': 'acme',
        'Accept-Encoding': 'gzip',
        Accept: 'application/json',
      }),
    });

    // A 503 the worker saw (with Retry-After) holds every bucket.
    client.reportCatalogResponse(503, { 'Retry-After': '60' });
    expect(limiter.status().backoffUntil).toBe(new Date(time + 60_000).toISOString());
    client.reportCatalogResponse(200, {});
    expect(limiter.status().backoffUntil).toBe(new Date(time + 60_000).toISOString());
  });
});
