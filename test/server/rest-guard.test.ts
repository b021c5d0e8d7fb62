import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi } from '../support/sandboxHttp';

const UNAUTHORIZED = { error: 'unauthorized', message: 'Invalid API key or Merchant ID' };

/** A raw request, so compression is visible (fetch would decompress silently). */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sandbox REST: authentication, allowlist, maintenance, limits, envelopes', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;

  beforeAll(async () => {
    sb = await startSandbox({ items: 300, seed: 5 });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 100_000 });
  });
  afterAll(() => sb.close());

  it('answers /health and serves the OpenAPI document without credentials', async () => {
    expect((await fetch(`${sb.baseUrl}/health`)).status).toBe(200);
    const doc = (await (await fetch(`${sb.baseUrl}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/Items/Buy',
        '/Items/BuyByName',
        '/Items/GetAllItemsOnSale',
        '/Items/SearchItems',
        '/Trades/History',
        '/Wallet/BalanceHistory',
        '/Wallet/GetBalance',
      ].sort(),
    );
  });

  it.each([
    ['no headers', {}],
    ['only the key', { 'x-api-key': 'k' }],
    ['an unknown merchant', { 'x-api-key': 'sk_sandbox_nope', 'x-merchant-id': 'nobody' }],
  ])('refuses %s with 401 unauthorized', async (_what, headers) => {
    const response = await fetch(`${sb.baseUrl}/Wallet/GetBalance`, { headers });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual(UNAUTHORIZED);
  });

  it('refuses a wrong key for a real merchant with 401', async () => {
    const api = merchantApi(sb, { ...merchant, apiKey: `${merchant.apiKey}x` });
    const answer = await api.get('/Wallet/GetBalance');
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(UNAUTHORIZED);
  });

  it('applies the IP allowlist: addresses and domains', async () => {
    const restricted = await admin.createMerchant({ ipAllowlist: ['10.1.2.3', 'example.invalid'] });
    const api = merchantApi(sb, restricted);
    const refused = await api.get('/Wallet/GetBalance');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'ip_not_allowed', message: 'Request IP is not allowed' });

    await admin.patch(`/admin/merchants/${restricted.merchantId}`, { ipAllowlist: ['10.1.2.3', 'localhost'] });
    expect((await api.get('/Wallet/GetBalance')).status).toBe(200);
    await admin.patch(`/admin/merchants/${restricted.merchantId}`, { ipAllowlist: ['127.0.0.1'] });
    expect((await api.get('/Wallet/GetBalance')).status).toBe(200);
  });

  it('refuses an allowlist over 20 entries', async () => {
    const answer = await admin.post('/admin/merchants', {
      ipAllowlist: Array.from({ length: 21 }, (_, i) => `10.0.0.${i}`),
    });
    expect(answer.status).toBe(400);
    expect((answer.body as { error: string }).error).toBe('invalid_request');
  });

  it('answers 503 maintenance with Retry-After while the switch is on', async () => {
    await admin.post('/admin/maintenance', { on: true });
    const answer = await merchantApi(sb, merchant).get('/Wallet/GetBalance');
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({
      error: 'maintenance',
      message: 'System is under maintenance. Please try again later.',
    });
    expect(answer.headers.get('retry-after')).toBe('60');
    await admin.post('/admin/maintenance', { on: false });
    expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).status).toBe(200);
  });

  it('limits GetAllItemsOnSale to 10 a minute with a JSON 429 and Retry-After, then lets the window slide', async () => {
    const own = await admin.createMerchant();
    const api = merchantApi(sb, own);
    for (let i = 0; i < 10; i++) expect((await api.get('/Items/GetAllItemsOnSale')).status).toBe(200);
    const limited = await api.get('/Items/GetAllItemsOnSale');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'rate_limited', message: 'Rate limit exceeded' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    // The catalog bucket is separate from the rest.
    expect((await api.get('/Wallet/GetBalance')).status).toBe(200);
    await admin.advance(retryAfter);
    expect((await api.get('/Items/GetAllItemsOnSale')).status).toBe(200);
  });

  it('admits exactly 300 other requests a minute per merchant; the 301st is a 429', async () => {
    const own = await admin.createMerchant();
    const other = await admin.createMerchant();
    const api = merchantApi(sb, own);
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => api.get('/Wallet/GetBalance')));
      statuses.push(...answers.map((a) => a.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(300);
    const limited = await api.get('/Trades/History');
    expect(limited.status).toBe(429);
    expect((limited.body as { error: string }).error).toBe('rate_limited');
    // Limits are per merchant.
    expect((await merchantApi(sb, other).get('/Wallet/GetBalance')).status).toBe(200);
  });

  it('gzips responses when the client accepts gzip, and not otherwise', async () => {
    const headers = { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId };
    const zipped = await rawGet(`${sb.baseUrl}/Items/GetAllItemsOnSale`, { ...headers, 'accept-encoding': 'gzip' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const envelope = JSON.parse(gunzipSync(zipped.body).toString('utf8')) as { totalItems: number };
    expect(envelope.totalItems).toBeGreaterThan(0);
    const plain = await rawGet(`${sb.baseUrl}/Items/GetAllItemsOnSale`, headers);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect((JSON.parse(plain.body.toString('utf8')) as { totalItems: number }).totalItems).toBe(envelope.totalItems);
  });

  it.each([
    [
      'GetBalance (a 60-byte body)',
      '/Wallet/GetBalance',
      {},
      200,
      { balance: 100_000, credit_limit: 0, total_available: 100_000 },
    ],
    ['an empty Trades/History', '/Trades/History', {}, 200, { trades: [], total: 0, limit: 50, page: 1 }],
    ['a 400 envelope', '/Trades/History?limit=0', {}, 400, { error: 'invalid_request' }],
    ['a 401 envelope', '/Wallet/GetBalance', { 'x-api-key': 'wrong' }, 401, UNAUTHORIZED],
    ['a 404 envelope', '/Wallet/Nope', {}, 404, { error: 'not_found', message: 'No endpoint GET /Wallet/Nope' }],
  ])('gzips every answer, however small: %s', async (_what, path, extra, status, expected) => {
    const headers = { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId, ...extra };
    const zipped = await rawGet(`${sb.baseUrl}${path}`, { ...headers, 'accept-encoding': 'gzip' });
    expect(zipped.status).toBe(status);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = JSON.parse(gunzipSync(zipped.body).toString('utf8')) as Record<string, unknown>;
    expect(body).toMatchObject(expected);
    if (status >= 400) expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    // Without Accept-Encoding: gzip the same answer, uncompressed.
    const plain = await rawGet(`${sb.baseUrl}${path}`, headers);
    expect(plain.status).toBe(status);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(plain.body.toString('utf8'))).toEqual(body);
    // gzip refused by q=0 is not used.
    const refused = await rawGet(`${sb.baseUrl}${path}`, { ...headers, 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('answers unknown paths, bad JSON, wrong content type and oversized bodies with the envelope', async () => {
    const api = merchantApi(sb, merchant);
    const missing = await api.get('/Items/Nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'not_found' });

    const badJson = await api.raw('/Items/Buy', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"itemId":',
    });
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject({ error: 'invalid_request' });

    const textBody = await api.raw('/Items/Buy', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(textBody.status).toBe(400);
    expect(textBody.body).toMatchObject({ error: 'invalid_request' });

    const huge = await api.raw('/Items/SearchItems', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ market_hash_name: ['x'.repeat(2 * 1024 * 1024)] }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ error: 'payload_too_large' });

    const proto = await api.raw('/Items/SearchItems', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"itemId":[1],"__proto__":{"polluted":true}}',
    });
    expect(proto.status).toBe(400);
    expect(proto.body).toMatchObject({ error: 'invalid_request' });
  });

  it('serves item images with a silhouette per weapon class', async () => {
    const shapes = new Map<string, string>();
    for (const slug of [
      'glock-18-fade',
      'usp-s-kill-confirmed',
      'mp9-hydra',
      'ak-47-redline',
      'awp-dragon-lore',
      'nova-koi',
      'negev-power-loader',
    ]) {
      const response = await fetch(`${sb.baseUrl}/img/weapon/${slug}.svg`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/svg+xml');
      const svg = await response.text();
      shapes.set(slug, /<g [^>]*>(.*)<\/g><\/svg>$/.exec(svg)?.[1] ?? '');
    }
    expect(shapes.get('glock-18-fade')).toBe(shapes.get('usp-s-kill-confirmed'));
    expect(new Set(shapes.values()).size).toBe(6);
    expect((await fetch(`${sb.baseUrl}/img/weapon/Not_A_Slug.svg`)).status).toBe(404);
  });

  it('keeps the admin helpers behind x-admin-token', async () => {
    const refused = await fetch(`${sb.baseUrl}/admin/merchants`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(refused.status).toBe(401);
    const wrong = await fetch(`${sb.baseUrl}/admin/reset`, { method: 'POST', headers: { 'x-admin-token': 'nope' } });
    expect(wrong.status).toBe(401);
  });
});
