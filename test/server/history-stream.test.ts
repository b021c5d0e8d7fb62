import { request as httpRequest, type IncomingMessage } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Item, TradeHistoryPage } from '../../src/shared/api';
import { tradeHistoryPageSchema } from '../../src/shared/api';
import { HISTORY_GZIP_LEVEL } from '../../src/server/domain/tradeHistory';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { insertHistoryRows } from '../support/historyRows';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, at, merchantApi, tradeUrlFor } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

const ACTIVE = '/Trades/History?isActive=true';

/**
 * `GET /Trades/History?isActive=true` (every trade of 14 days, unpaged) is streamed as it is read: the same
 * bytes as the answer built whole, other requests answered while it is written, and a client that leaves
 * stops it.
 */
describe('sandbox REST: the isActive window streamed', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;

  beforeEach(async () => {
    sb = await startSandbox({ items: 60, seed: 21 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
  });
  afterEach(() => sb.close());

  const headers = (extra: Record<string, string> = {}) => ({
    'x-api-key': merchant.apiKey,
    'x-merchant-id': merchant.merchantId,
    ...extra,
  });

  /** A GET whose response is handed over at its headers, for the test to read (or not). */
  function open(path: string, extra: Record<string, string> = {}): Promise<IncomingMessage> {
    return new Promise((done, fail) => {
      const req = httpRequest(`${sb.baseUrl}${path}`, { headers: headers(extra) }, done);
      req.on('error', fail);
      req.end();
    });
  }

  async function readAll(res: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * Whether every write so far can be checkpointed into the database file: not while a snapshot begun
   * before the last write is still open (the reader a streamed answer holds).
   */
  function noSnapshotOpen(): boolean {
    const [result] = sb.core.db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    return result !== undefined && result.checkpointed === result.log;
  }

  it('answers with the bytes of the answer built whole, plain and gzipped, across read steps and older rows', async () => {
    // 2,345 rows over 20 days (some outside the window, several read steps of 500), then real buys on top.
    insertHistoryRows(sb, merchant.merchantId, 2345, 20);
    const admin = adminApi(sb);
    const items = (await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 300 }, { price: 400 }] }))
      .body.items;
    for (const [i, item] of items.entries()) {
      const bought = await merchantApi(sb, merchant).post('/Items/Buy', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: tradeUrlFor(9000 + i),
      });
      expect(bought.status).toBe(200);
    }
    // Rows written before the stored wire JSON existed (its column NULL) are answered the same.
    sb.core.db.exec(`UPDATE trades SET wire = NULL WHERE seq % 400 = 7`);

    const plainRes = await open(ACTIVE);
    expect(plainRes.headers['transfer-encoding']).toBe('chunked');
    expect(plainRes.headers['content-length']).toBeUndefined();
    const plain = await readAll(plainRes);
    const zippedRes = await open(ACTIVE, { 'accept-encoding': 'gzip' });
    expect([zippedRes.headers['content-encoding'], zippedRes.headers['vary']]).toEqual(['gzip', 'Accept-Encoding']);
    const zipped = await readAll(zippedRes);
    const whole = sb.core.trades.history.listJson(merchant.merchantId, { isActive: true });

    expect(plain.toString('utf8')).toBe(whole);
    expect(gunzipSync(zipped).toString('utf8')).toBe(whole);
    // One gzip stream at the same level: byte for byte what compressing the whole answer at once gives.
    expect(zipped.equals(gzipSync(Buffer.from(whole), { level: HISTORY_GZIP_LEVEL }))).toBe(true);
    const page: TradeHistoryPage = tradeHistoryPageSchema.parse(JSON.parse(whole));
    expect(page.total).toBe(page.trades.length);
    expect(page.trades.length).toBeGreaterThan(1600);
    expect(page.trades.length).toBeLessThan(2345);
    expect([page.limit, page.page]).toEqual([page.total, 1]);
    expect(new Set(page.trades.map((t) => t.stage))).toEqual(new Set([1, 2]));

    // The filters that may come with isActive apply as before.
    for (const [filter, query] of [
      ['&status=COMPLETED', { status: 'COMPLETED' }],
      ['&webhookStatus=failed', { webhookStatus: 'failed' }],
      [`&externalId=${at(page.trades, 5).externalId ?? ''}`, { externalId: at(page.trades, 5).externalId ?? '' }],
    ] as const) {
      const expected = sb.core.trades.history.listJson(merchant.merchantId, { isActive: true, ...query });
      expect(JSON.parse(expected)).toMatchObject({ total: expect.any(Number) as number });
      expect((await readAll(await open(`${ACTIVE}${filter}`))).toString('utf8')).toBe(expected);
    }
  });

  it('answers an empty window as before', async () => {
    const answer = await readAll(await open(ACTIVE));
    expect(answer.toString('utf8')).toBe('{"trades":[],"total":0,"limit":0,"page":1}');
    expect(answer.toString('utf8')).toBe(sb.core.trades.history.listJson(merchant.merchantId, { isActive: true }));
  });

  it('answers other requests while a large window is being written, and shows it one moment', async () => {
    insertHistoryRows(sb, merchant.merchantId, 20_000);
    const events: string[] = [];
    const big = await open(ACTIVE, { 'accept-encoding': 'gzip' });
    const chunks: Buffer[] = [];
    // The first bytes of the big answer, then the client stops reading it.
    await new Promise<void>((done) =>
      big.once('data', (chunk: Buffer) => {
        chunks.push(chunk);
        big.pause();
        events.push('big: first bytes');
        done();
      }),
    );
    const balance = await merchantApi(sb, merchant).get<{ balance: number }>('/Wallet/GetBalance');
    expect(balance.status).toBe(200);
    events.push('balance answered');
    // A trade bought meanwhile is not in the answer already begun (one snapshot), and is in the next one.
    const item = at(
      (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 500 }] })).body.items,
    );
    const bought = await merchantApi(sb, merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(77),
    });
    expect(bought.status).toBe(200);
    events.push('buy answered');
    big.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((done) => big.on('end', done));
    big.resume();
    await ended;
    events.push('big: end');
    expect(events).toEqual(['big: first bytes', 'balance answered', 'buy answered', 'big: end']);

    const first: TradeHistoryPage = JSON.parse(gunzipSync(Buffer.concat(chunks)).toString('utf8'));
    expect([first.total, first.trades.length]).toEqual([20_000, 20_000]);
    expect(first.trades.some((t) => t.tradeId === bought.body.tradeId)).toBe(false);
    const next: TradeHistoryPage = JSON.parse((await readAll(await open(ACTIVE))).toString('utf8'));
    expect(next.total).toBe(20_001);
    expect(at(next.trades).tradeId).toBe(bought.body.tradeId);
  });

  it('stops reading when the client goes (plain or gzipped), and answers the next request in full', async () => {
    insertHistoryRows(sb, merchant.merchantId, 20_000);
    for (const encoding of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
      expect(noSnapshotOpen()).toBe(true);
      const big = await open(ACTIVE, encoding);
      await new Promise<void>((done) => big.once('data', () => done()));
      // The answer's snapshot is open while it is written: a write after it cannot be checkpointed ...
      const topUp = await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, {
        type: 'ADMIN TOP UP',
        amount: 100,
      });
      expect(topUp.status).toBe(201);
      expect(noSnapshotOpen()).toBe(false);
      big.destroy();
      // ... until the client is gone and the sandbox stops reading, though the answer never finished.
      await waitFor(noSnapshotOpen, 10_000);
    }

    const balance = await merchantApi(sb, merchant).get('/Wallet/GetBalance');
    expect(balance.status).toBe(200);
    const again = await readAll(await open(ACTIVE, { 'accept-encoding': 'gzip' }));
    expect(JSON.parse(gunzipSync(again).toString('utf8'))).toMatchObject({ total: 20_000, limit: 20_000, page: 1 });
  });
});
