import { WebSocket } from 'ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi } from '../support/sandboxHttp';

const UNAUTHORIZED = { error: 'unauthorized', message: 'Invalid API key or Merchant ID' };
const FAILED_ATTEMPTS = 100;

/** The status and body of a WebSocket upgrade, accepted (101) or refused. */
function upgrade(url: string, credentials: MerchantCredentials): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, {
      headers: { 'x-api-key': credentials.apiKey, 'x-merchant-id': credentials.merchantId },
    });
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

// Everything on one machine (and every client behind one proxy or NAT) shares an address: another
// client's wrong key must never lock a merchant whose key is right out of the API.
describe('sandbox: wrong credentials are answered 401 and never refuse a right key on the same address', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let other: MerchantCredentials;
  let wrong: MerchantCredentials;

  beforeEach(async () => {
    sb = await startSandbox({ items: 20, seed: 8 });
    const admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 100_000 });
    other = await admin.createMerchant({ balance: 500 });
    wrong = { ...merchant, apiKey: `${merchant.apiKey.slice(0, -1)}x` };
  });
  afterEach(() => sb.close());

  it(`answers ${FAILED_ATTEMPTS} wrong keys in a minute with 401 each, while right keys from the same address get 200`, async () => {
    for (let i = 0; i < FAILED_ATTEMPTS; i++) {
      const refused = await merchantApi(sb, wrong).get('/Wallet/GetBalance');
      expect(refused.status, `wrong key, attempt ${i + 1}`).toBe(401);
      expect(refused.body).toEqual(UNAUTHORIZED);
      if (i % 10 === 9) {
        const right = await merchantApi(sb, merchant).get('/Wallet/GetBalance');
        expect(right.status, `right key after ${i + 1} failures`).toBe(200);
      }
    }
    expect(await merchantApi(sb, merchant).get('/Wallet/GetBalance')).toMatchObject({
      status: 200,
      body: { balance: 100_000 },
    });
    // Another merchant on the address, and an unknown merchant id: the same rules.
    expect(await merchantApi(sb, other).get('/Wallet/GetBalance')).toMatchObject({
      status: 200,
      body: { balance: 500 },
    });
    expect(await merchantApi(sb, { ...other, merchantId: 'm_nobody' }).get('/Wallet/GetBalance')).toMatchObject({
      status: 401,
      body: UNAUTHORIZED,
    });
  });

  it('answers wrong keys at the WebSocket upgrade with 401, and the right key still opens the feed', async () => {
    for (let i = 0; i < FAILED_ATTEMPTS; i++) {
      expect(await upgrade(sb.wsUrl, wrong), `upgrade ${i + 1}`).toEqual({ status: 401, body: UNAUTHORIZED });
    }
    expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).status).toBe(200);
    expect(await upgrade(sb.wsUrl, merchant)).toEqual({ status: 101, body: null });
  });
});
