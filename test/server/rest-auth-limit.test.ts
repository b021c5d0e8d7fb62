import { request as httpRequest } from 'node:http';
import { WebSocket } from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_CHOICES } from '../../src/server/config';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi } from '../support/sandboxHttp';

const UNAUTHORIZED = { error: 'unauthorized', message: 'Invalid API key or Merchant ID' };
const LIMITED = { error: 'rate_limited', message: 'Rate limit exceeded: too many failed authentications from this address' };
const LIMIT = SANDBOX_CHOICES.authFailuresPerMinute;

/** GetBalance from a chosen loopback source address (all of 127/8 is loopback on Linux). */
function getBalanceFrom(baseUrl: string, localAddress: string, credentials: MerchantCredentials) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = httpRequest(
      `${baseUrl}/Wallet/GetBalance`,
      { localAddress, headers: { 'x-api-key': credentials.apiKey, 'x-merchant-id': credentials.merchantId } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The status and body of a WebSocket upgrade, accepted (101) or refused. */
function upgrade(url: string, credentials: MerchantCredentials): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { 'x-api-key': credentials.apiKey, 'x-merchant-id': credentials.merchantId } });
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, body: null });
    });
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.once('error', () => {});
  });
}

describe('sandbox: failed authentications are limited per source address', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;
  let wrong: MerchantCredentials;

  beforeEach(async () => {
    sb = await startSandbox({ items: 20, seed: 8 });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 100_000 });
    wrong = { ...merchant, apiKey: `${merchant.apiKey.slice(0, -1)}x` };
  });
  afterEach(() => sb.close());

  it(`answers ${LIMIT} wrong keys a minute with 401, then 429 for every request from that address until the window slides`, async () => {
    for (let i = 0; i < LIMIT; i++) {
      const answer = await merchantApi(sb, wrong).get('/Wallet/GetBalance');
      expect(answer.status, `guess ${i + 1}`).toBe(401);
      expect(answer.body).toEqual(UNAUTHORIZED);
    }
    const limited = await merchantApi(sb, wrong).get('/Wallet/GetBalance');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(LIMITED);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The right key is no way around it (else a correct guess would still stand out), nor is the feed.
    const right = await merchantApi(sb, merchant).get('/Wallet/GetBalance');
    expect(right.status).toBe(429);
    expect(right.body).toEqual(LIMITED);
    expect(await upgrade(sb.wsUrl, merchant)).toEqual({ status: 429, body: LIMITED });
    expect(sb.feed.connectionCount(merchant.merchantId)).toBe(0);

    // Another address is not concerned.
    expect(await getBalanceFrom(sb.baseUrl, '127.0.0.2', merchant)).toEqual({ status: 200, body: { balance: 100_000, credit_limit: 0, total_available: 100_000 } });

    await admin.advance(retryAfter);
    expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).status).toBe(200);
  });

  it('counts wrong keys at the WebSocket upgrade too', async () => {
    for (let i = 0; i < LIMIT; i++) expect(await upgrade(sb.wsUrl, wrong)).toEqual({ status: 401, body: UNAUTHORIZED });
    expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).body).toEqual(LIMITED);
  });

  it('counts only failures: good requests in between neither count nor clear them', async () => {
    for (let i = 0; i < 3 * LIMIT; i++) expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).status).toBe(200);
    for (let i = 0; i < LIMIT - 1; i++) expect((await merchantApi(sb, wrong).get('/Wallet/GetBalance')).status).toBe(401);
    expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).status).toBe(200);
    expect((await merchantApi(sb, wrong).get('/Wallet/GetBalance')).status).toBe(401);
    expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).status).toBe(429);
  });

  it('forgets the failures on an admin reset', async () => {
    for (let i = 0; i < LIMIT + 1; i++) await merchantApi(sb, wrong).get('/Wallet/GetBalance');
    expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).status).toBe(429);
    expect((await admin.post('/admin/reset')).status).toBe(200);
    const again = await admin.createMerchant({ balance: 1 });
    expect((await merchantApi(sb, again).get('/Wallet/GetBalance')).status).toBe(200);
  });
});
