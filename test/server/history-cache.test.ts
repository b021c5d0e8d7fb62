import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuyResult, Item, Trade, TradeHistoryPage } from '../../src/shared/api';
import { tradeHistoryPageSchema } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, at, merchantApi, tradeUrlFor } from '../support/sandboxHttp';

const DAY = 24 * 3600;

/** A raw GET, so the bytes on the wire (gzip or not) are visible. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; encoding: string | undefined; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: res.headers['content-encoding'],
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Trades/History answers are cached by (merchant, query) and reused while nothing changed:
 * these tests poll the same question before and after every kind of change, in both encodings,
 * and would fail on any stale answer.
 */
describe('sandbox REST: Trades/History served from its answer cache, never stale', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;
  let partner = 40_000;

  beforeEach(async () => {
    sb = await startSandbox({ items: 60, seed: 12 });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 100_000 });
  });
  afterEach(() => sb.close());

  /** The same question asked gzipped and plain: both answers must agree; returns the page. */
  async function poll(who: MerchantCredentials, query = ''): Promise<TradeHistoryPage> {
    const headers = { 'x-api-key': who.apiKey, 'x-merchant-id': who.merchantId };
    const url = `${sb.baseUrl}/Trades/History${query}`;
    const zipped = await rawGet(url, { ...headers, 'accept-encoding': 'gzip' });
    const plain = await rawGet(url, headers);
    expect([zipped.status, zipped.encoding, plain.status, plain.encoding]).toEqual([200, 'gzip', 200, undefined]);
    const text = gunzipSync(zipped.body).toString('utf8');
    expect(text).toBe(plain.body.toString('utf8'));
    return tradeHistoryPageSchema.parse(JSON.parse(text));
  }

  async function buy(who: MerchantCredentials, externalId: string): Promise<BuyResult> {
    const item = at((await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 300 }] })).body.items);
    const answer = await merchantApi(sb, who).post<BuyResult>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(partner++),
      externalId,
    });
    expect(answer.status).toBe(200);
    return answer.body;
  }

  const only = (page: TradeHistoryPage): Trade => {
    expect(page.trades).toHaveLength(1);
    return at(page.trades);
  };

  it('answers a repeated poll with the same bytes, and a new buy or transition at once', async () => {
    expect(await poll(merchant)).toEqual({ trades: [], total: 0, limit: 50, page: 1 });
    expect(await poll(merchant)).toEqual({ trades: [], total: 0, limit: 50, page: 1 });
    const first = await buy(merchant, 'a');
    expect((await poll(merchant)).trades.map((t) => [t.tradeId, t.status])).toEqual([[first.tradeId, 'PENDING']]);
    for (const status of ['SENT', 'COMPLETED'] as const) {
      await admin.transition(first.tradeId, { status });
      expect(only(await poll(merchant)).status).toBe(status);
      expect(only(await poll(merchant, `?status=${status}`)).tradeId).toBe(first.tradeId);
    }
    const second = await buy(merchant, 'b');
    expect((await poll(merchant)).trades.map((t) => t.tradeId)).toEqual([second.tradeId, first.tradeId]);
    expect((await poll(merchant, '?limit=1&page=2')).trades.map((t) => t.tradeId)).toEqual([first.tradeId]);
    // An item sold elsewhere ends the trade (admin DELETE): seen at once too.
    await admin.transition(second.tradeId, { status: 'SENT' });
    expect(only(await poll(merchant, '?externalId=b')).status).toBe('SENT');
    expect((await admin.delete(`/admin/items/${only(await poll(merchant, '?externalId=b')).itemId}`)).status).toBe(200);
    expect(only(await poll(merchant, '?externalId=b'))).toMatchObject({ status: 'CANCELLED', errorCode: 505 });
  });

  it('shows a webhookStatus change at once', async () => {
    const bought = await buy(merchant, 'w');
    expect(only(await poll(merchant)).webhookStatus).toBeNull();
    expect((await poll(merchant, '?webhookStatus=sent')).total).toBe(0);
    // As the webhook dispatcher sets it when a delivery settles.
    sb.core.trades.setWebhookStatus(bought.tradeId, 'failed');
    expect(only(await poll(merchant)).webhookStatus).toBe('failed');
    expect(only(await poll(merchant, '?webhookStatus=failed')).tradeId).toBe(bought.tradeId);
  });

  it('turns stage 1 into 2 when the protection period ends, with no write in between', async () => {
    const bought = await buy(merchant, 's');
    await admin.transition(bought.tradeId, { status: 'SENT' });
    await admin.transition(bought.tradeId, { status: 'COMPLETED' });
    expect(only(await poll(merchant)).stage).toBe(1);
    await admin.advance(7 * DAY - 60);
    expect(only(await poll(merchant)).stage).toBe(1);
    await admin.advance(61);
    expect(only(await poll(merchant)).stage).toBe(2);
  });

  it('drops a trade from isActive=true when it leaves the 14-day window, with no write in between', async () => {
    const old = await buy(merchant, 'old');
    await admin.advance(7 * DAY);
    const recent = await buy(merchant, 'recent');
    expect((await poll(merchant, '?isActive=true')).trades.map((t) => t.tradeId)).toEqual([
      recent.tradeId,
      old.tradeId,
    ]);
    await admin.advance(7 * DAY - 60);
    expect((await poll(merchant, '?isActive=true')).total).toBe(2);
    await admin.advance(61);
    const active = await poll(merchant, '?isActive=true');
    expect(active.trades.map((t) => t.tradeId)).toEqual([recent.tradeId]);
    expect([active.total, active.limit, active.page]).toEqual([1, 1, 1]);
    // Without isActive both are still there.
    expect((await poll(merchant)).total).toBe(2);
  });

  it('keeps merchants apart, and forgets everything on reset (a merchant id may come back)', async () => {
    const other = await admin.createMerchant({ balance: 100_000 });
    const mine = await buy(merchant, 'x');
    expect((await poll(other)).total).toBe(0);
    expect(only(await poll(merchant)).tradeId).toBe(mine.tradeId);
    const theirs = await buy(other, 'x');
    expect(only(await poll(other)).tradeId).toBe(theirs.tradeId);
    expect(only(await poll(merchant)).tradeId).toBe(mine.tradeId);

    expect((await admin.post('/admin/reset')).status).toBe(200);
    const again = await admin.createMerchant({
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
      balance: 100_000,
    });
    expect(again.merchantId).toBe(merchant.merchantId);
    expect(await poll(merchant)).toEqual({ trades: [], total: 0, limit: 50, page: 1 });
  });
});
