import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { BuyResult, FeedFrame, Item } from '../../src/shared/api';
import { FEED_CLOSE_CODES, feedFrameSchema } from '../../src/shared/api';
import { FeedServer } from '../../src/server/feed/feedServer';
import { itemFor } from '../../src/server/domain/itemRecord';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, merchantApi, tradeUrlFor } from '../support/sandboxHttp';
import { OUTCOME_ROWS, ROW_TRADE_DURATION_SECONDS, driveRow, expectedUpdates } from './outcomeRows';
import { waitFor } from '../support/waitFor';

const REVEAL_ALL = { steamId: true, inspectInGame: true, tradeUrl: true };
interface Closed {
  code: number;
  reason: string;
}

/** A real `ws` client that validates every frame against the shared schema. */
class FeedClient {
  readonly frames: FeedFrame[] = [];
  readonly invalid: string[] = [];
  pings = 0;
  closed: Closed | null = null;
  readonly whenClosed: Promise<Closed>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const text = data.toString();
      if (isBinary) this.invalid.push(`binary: ${text}`);
      const parsed = feedFrameSchema.safeParse(JSON.parse(text));
      if (parsed.success) this.frames.push(parsed.data);
      else this.invalid.push(text);
    });
    ws.on('ping', () => this.pings++);
    this.whenClosed = new Promise((resolve) =>
      ws.on('close', (code, reason) => {
        this.closed = { code, reason: reason.toString() };
        resolve(this.closed);
      }),
    );
  }

  static open(
    url: string,
    credentials: MerchantCredentials,
    options: { autoPong?: boolean } = {},
  ): Promise<FeedClient> {
    const ws = new WebSocket(url, {
      headers: { 'x-api-key': credentials.apiKey, 'x-merchant-id': credentials.merchantId },
      ...options,
    });
    const client = new FeedClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_request, response) =>
        reject(new Error(`upgrade refused: ${response.statusCode}`)),
      );
      ws.once('error', reject);
    });
  }

  /** Opens and waits for the first frame. */
  static async connected(
    url: string,
    credentials: MerchantCredentials,
    options: { autoPong?: boolean } = {},
  ): Promise<FeedClient> {
    const client = await FeedClient.open(url, credentials, options);
    await client.waitFrames(1);
    return client;
  }

  ofType<T extends FeedFrame['type']>(type: T): Extract<FeedFrame, { type: T }>[] {
    return this.frames.filter((frame): frame is Extract<FeedFrame, { type: T }> => frame.type === type);
  }

  async waitFrames(count: number, timeoutMs = 5000): Promise<FeedFrame[]> {
    await waitFor(() => this.frames.length >= count || this.closed !== null, timeoutMs, `${count} frames`);
    if (this.frames.length < count) throw new Error(`closed (${this.closed?.code}) after ${this.frames.length} frames`);
    return this.frames;
  }

  async waitFor<T extends FeedFrame['type']>(
    type: T,
    match: (frame: Extract<FeedFrame, { type: T }>) => boolean = () => true,
  ) {
    let found: Extract<FeedFrame, { type: T }> | undefined;
    await waitFor(() => (found = this.ofType(type).find(match)) !== undefined, 5000, `a ${type} frame`);
    return found as Extract<FeedFrame, { type: T }>;
  }

  close(): Promise<Closed> {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close();
    return this.whenClosed;
  }
}

/** The answer to an upgrade that the server refuses. */
function refusedUpgrade(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; contentType: string; body: unknown }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      reject(new Error('upgrade was accepted'));
    });
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: String(response.headers['content-type']),
          body: JSON.parse(text),
        }),
      );
    });
    ws.once('error', () => {});
  });
}

const headersOf = (credentials: MerchantCredentials) => ({
  'x-api-key': credentials.apiKey,
  'x-merchant-id': credentials.merchantId,
});

describe('sandbox WebSocket feed', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchantA: MerchantCredentials;
  let merchantB: MerchantCredentials;
  const clients: FeedClient[] = [];
  let nextItemId = 8_000_001;

  async function open(
    credentials: MerchantCredentials,
    options: { autoPong?: boolean } = {},
    url = sb.wsUrl,
  ): Promise<FeedClient> {
    const client = await FeedClient.connected(url, credentials, options);
    clients.push(client);
    return client;
  }

  async function listItems(partials: Partial<Item>[]): Promise<Item[]> {
    const answer = await admin.post<{ items: Item[] }>('/admin/items', {
      items: partials.map((p) => ({ itemId: nextItemId++, ...p })),
    });
    expect(answer.status).toBe(200);
    return answer.body.items;
  }

  const onSaleIds = (limit: number) =>
    (
      sb.core.db.prepare('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id LIMIT ?').all(limit) as {
        item_id: number;
      }[]
    ).map((row) => row.item_id);

  beforeEach(async () => {
    sb = await startSandbox({ items: 300, seed: 3 });
    admin = adminApi(sb);
    merchantA = await admin.createMerchant({ balance: 1_000_000, reveal: { steamId: true } });
    merchantB = await admin.createMerchant({ balance: 1_000_000 });
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) {
      expect(client.invalid).toEqual([]);
      client.ws.terminate();
    }
    await sb.close();
  });

  describe('upgrade', () => {
    it('refuses missing or wrong credentials with 401 and the JSON envelope', async () => {
      const expected = {
        status: 401,
        contentType: 'application/json',
        body: { error: 'unauthorized', message: 'Invalid API key or Merchant ID' },
      };
      expect(await refusedUpgrade(sb.wsUrl, {})).toEqual(expected);
      expect(await refusedUpgrade(sb.wsUrl, { 'x-merchant-id': merchantA.merchantId })).toEqual(expected);
      expect(await refusedUpgrade(sb.wsUrl, { ...headersOf(merchantA), 'x-api-key': merchantB.apiKey })).toEqual(
        expected,
      );
      expect(await refusedUpgrade(sb.wsUrl, { ...headersOf(merchantA), 'x-merchant-id': 'nobody' })).toEqual(expected);
      expect(sb.feed.connectionCount(merchantA.merchantId)).toBe(0);
    });

    it('answers 404 on any other path', async () => {
      const answer = await refusedUpgrade(sb.wsUrl.replace(/\/ws$/, '/feed'), headersOf(merchantA));
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ error: 'not_found' });
    });

    it('applies the IP allowlist (403 ip_not_allowed)', async () => {
      const restricted = await admin.createMerchant({ ipAllowlist: ['203.0.113.7'] });
      expect(await refusedUpgrade(sb.wsUrl, headersOf(restricted))).toEqual({
        status: 403,
        contentType: 'application/json',
        body: { error: 'ip_not_allowed', message: 'Request IP is not allowed' },
      });
      const local = await admin.createMerchant({ ipAllowlist: ['127.0.0.1'] });
      const client = await open(local);
      expect(client.frames[0]).toEqual({ type: 'connected', merchantId: local.merchantId });
    });

    it('sends `connected` first, with the merchant id, also with a query string on /ws', async () => {
      const client = await open(merchantA);
      expect(client.frames).toEqual([{ type: 'connected', merchantId: merchantA.merchantId }]);
      const withQuery = await open(merchantA, {}, `${sb.wsUrl}?v=1`);
      expect(withQuery.frames[0]).toEqual({ type: 'connected', merchantId: merchantA.merchantId });
      expect(sb.feed.connectionCount(merchantA.merchantId)).toBe(2);
    });
  });

  describe('connection limit', () => {
    it('accepts a 4th connection and closes it with 4008; the 3 others stay; a slot frees up on close', async () => {
      const three = [await open(merchantA), await open(merchantA), await open(merchantA)];
      const fourth = await FeedClient.open(sb.wsUrl, merchantA);
      clients.push(fourth);
      expect(await fourth.whenClosed).toEqual({
        code: FEED_CLOSE_CODES.connectionLimit,
        reason: 'connection limit: 3 per merchant',
      });
      expect(fourth.frames).toEqual([]);
      expect(sb.feed.connectionCount(merchantA.merchantId)).toBe(3);

      // The others still receive events; another merchant is not limited by A's connections.
      const other = await open(merchantB);
      const [item] = await listItems([{ price: 500 }]);
      for (const client of [...three, other])
        await client.waitFor('item_upserted', (f) => f.items[0]?.itemId === item?.itemId);
      expect(three.every((client) => client.ws.readyState === WebSocket.OPEN)).toBe(true);

      await three[0]?.close();
      await waitFor(() => sb.feed.connectionCount(merchantA.merchantId) === 2, 5000, 'the slot to free up');
      const again = await open(merchantA);
      expect(again.frames[0]).toEqual({ type: 'connected', merchantId: merchantA.merchantId });
      expect(sb.feed.connectionCount(merchantA.merchantId)).toBe(3);
    });
  });

  describe('events', () => {
    it('sends trade_updated only to the owning merchant, with item_removed to everybody', async () => {
      const a = await open(merchantA);
      const b = await open(merchantB);
      const [item, other] = (await listItems([{ price: 2500 }, { price: 3000 }])) as [Item, Item];
      const buy = await merchantApi(sb, merchantA).post<BuyResult>('/Items/Buy', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: TEST_TRADE_URL,
      });
      expect(buy.status).toBe(200);
      const { tradeId } = buy.body;

      const pending = await a.waitFor('trade_updated');
      expect(pending).toEqual({
        type: 'trade_updated',
        tradeId,
        status: 'PENDING',
        externalId: null,
        offerId: null,
        failReason: null,
        errorCode: null,
      });
      // The item leaves sale before the trade frame, in one turn: two frames, in event order.
      const types = a.frames.map((f) => f.type);
      expect(types.slice(-2)).toEqual(['item_removed', 'trade_updated']);
      expect(a.ofType('item_removed').at(-1)?.itemIds).toEqual([item.itemId]);
      await b.waitFor('item_removed', (f) => f.itemIds.includes(item.itemId));

      await admin.transition(tradeId, { status: 'SENT' });
      const sent = await a.waitFor('trade_updated', (f) => f.status === 'SENT');
      expect(sent.tradeId).toBe(tradeId);
      expect(sent.offerId).toEqual(expect.any(String));

      // A later frame that B does receive proves nothing of A's trade was queued before it.
      expect((await admin.patch(`/admin/items/${other.itemId}`, { price: 777 })).status).toBe(200);
      await b.waitFor('price_changed');
      expect(b.ofType('trade_updated')).toEqual([]);
    });

    it('sends one trade_updated frame per status, to the owner only, for every row of the outcome table', async () => {
      const a = await open(merchantA);
      const b = await open(merchantB);
      const api = merchantApi(sb, merchantA);
      const all: string[] = [];
      let lastMarker = 0;
      for (const [index, row] of OUTCOME_ROWS.entries()) {
        const [item] = (await listItems([{ price: 400 }])) as [Item];
        const externalId = `frame-row-${index}`;
        const bought = await api.post<BuyResult>('/Items/Buy', {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          tradeUrl: tradeUrlFor(30_000 + index),
          externalId,
          tradeDurationSeconds: ROW_TRADE_DURATION_SECONDS,
        });
        expect(bought.status).toBe(200);
        const { tradeId } = bought.body;
        all.push(tradeId);
        const offerId = await driveRow(admin, tradeId, row);
        const expected = expectedUpdates(row, tradeId, externalId, offerId).map((update) => ({
          type: 'trade_updated',
          ...update,
        }));
        const mine = () => a.ofType('trade_updated').filter((frame) => frame.tradeId === tradeId);
        await waitFor(() => mine().length >= expected.length, 5000, `${row.name}: ${expected.length} frames`);
        // A later frame to the same connection proves no duplicate was still on its way.
        const [marker] = (await listItems([{ price: 1 }])) as [Item];
        await a.waitFor('item_upserted', (frame) => frame.items.some((i) => i.itemId === marker.itemId));
        lastMarker = marker.itemId;
        expect(mine(), row.name).toEqual(expected);
        for (const frame of mine())
          expect(Object.keys(frame)).toEqual([
            'type',
            'tradeId',
            'status',
            'externalId',
            'offerId',
            'failReason',
            'errorCode',
          ]);
      }
      // B got everything sent to every connection up to the last marker, and no trade of A's.
      await b.waitFor('item_upserted', (frame) => frame.items.some((i) => i.itemId === lastMarker));
      expect(b.ofType('trade_updated')).toEqual([]);
      expect(new Set(a.ofType('trade_updated').map((frame) => frame.tradeId))).toEqual(new Set(all));
    });

    it('sends item_removed after an admin delete and price_changed after a price change', async () => {
      const client = await open(merchantB);
      const [first, second] = (await listItems([{ price: 1000 }, { price: 2000 }])) as [Item, Item];

      expect((await admin.delete(`/admin/items/${first.itemId}`)).status).toBe(200);
      expect(await client.waitFor('item_removed')).toEqual({ type: 'item_removed', itemIds: [first.itemId] });

      expect((await admin.patch(`/admin/items/${second.itemId}`, { price: 2345 })).status).toBe(200);
      expect(await client.waitFor('price_changed')).toEqual({
        type: 'price_changed',
        items: [{ itemId: second.itemId, price: 2345 }],
      });
    });

    it('sends item_upserted with full items, holder fields only to a merchant who may see them', async () => {
      const a = await open(merchantA);
      const b = await open(merchantB);
      const [listed] = (await listItems([
        { market_hash_name: 'AK-47 | Redline (Field-Tested)', price: 1234, steamId: '76561198000000042' },
      ])) as [Item];
      expect(listed.steamId).toBe('76561198000000042');

      const seenByA = (await a.waitFor('item_upserted')).items[0] as Item;
      const seenByB = (await b.waitFor('item_upserted')).items[0] as Item;
      expect(seenByA).toEqual({ ...listed, inspectInGame: null, tradeUrl: null });
      expect(seenByB).toEqual({ ...listed, steamId: null, inspectInGame: null, tradeUrl: null });
      expect(seenByA.market_hash_name).toBe('AK-47 | Redline (Field-Tested)');
      expect(seenByA.price).toBe(1234);

      // A reveal change applies to open connections.
      await admin.patch(`/admin/merchants/${merchantB.merchantId}`, { reveal: REVEAL_ALL });
      const [again] = (await listItems([{ price: 99, steamId: '76561198000000043' }])) as [Item];
      expect((await b.waitFor('item_upserted', (f) => f.items[0]?.itemId === again.itemId)).items[0]).toEqual(again);
    });

    it('batches the events of one turn: 50 upserted items arrive as one frame', async () => {
      const client = await open(merchantA);
      const listed = await listItems(Array.from({ length: 50 }, (_, i) => ({ price: 100 + i })));
      const frame = await client.waitFor('item_upserted');
      // A listing in a later turn, sent after them on the same socket: once it is here, every frame of the first turn is too.
      const [marker] = (await listItems([{ price: 999 }])) as [Item];
      await client.waitFor('item_upserted', (f) => f.items[0]?.itemId === marker.itemId);
      expect(client.ofType('item_upserted')).toHaveLength(2);
      expect(frame.items.map((i) => i.itemId)).toEqual(listed.map((i) => i.itemId));
    });

    it('merges consecutive events of one type but never reorders different types', async () => {
      const client = await open(merchantB);
      const [a, b, c, d] = (await listItems([
        { price: 10 },
        { price: 20 },
        { price: 30 },
        { price: 40 },
      ])) as Item[] as [Item, Item, Item, Item];
      await client.waitFor('item_upserted');
      const before = client.frames.length;
      const catalog = sb.core.catalog;
      const record = (item: Item) =>
        itemFor(catalog.find(item.itemId) as NonNullable<ReturnType<typeof catalog.find>>, REVEAL_ALL);

      // One synchronous burst: the same turn.
      catalog.reprice([{ itemId: a.itemId, price: 11 }]);
      catalog.reprice([{ itemId: b.itemId, price: 21 }]);
      catalog.remove([a.itemId]);
      catalog.upsert([{ ...record(b), price: 22 }]);
      catalog.remove([c.itemId]);
      catalog.remove([d.itemId]);
      catalog.reprice([{ itemId: b.itemId, price: 23 }]);

      await client.waitFrames(before + 5);
      // A listing in a later turn marks the end of the burst's frames.
      const [marker] = (await listItems([{ price: 50 }])) as [Item];
      await client.waitFor('item_upserted', (f) => f.items[0]?.itemId === marker.itemId);
      expect(client.frames.slice(before + 5)).toEqual([
        expect.objectContaining({ type: 'item_upserted', items: [expect.objectContaining({ itemId: marker.itemId })] }),
      ]);
      const burst = client.frames.slice(before, before + 5);
      expect(burst[0]).toEqual({
        type: 'price_changed',
        items: [
          { itemId: a.itemId, price: 11 },
          { itemId: b.itemId, price: 21 },
        ],
      });
      expect(burst[1]).toEqual({ type: 'item_removed', itemIds: [a.itemId] });
      expect(burst[2]).toMatchObject({ type: 'item_upserted', items: [{ itemId: b.itemId, price: 22 }] });
      expect(burst[3]).toEqual({ type: 'item_removed', itemIds: [c.itemId, d.itemId] });
      expect(burst[4]).toEqual({ type: 'price_changed', items: [{ itemId: b.itemId, price: 23 }] });
    });
  });

  describe('credentials', () => {
    it('closes a merchant’s connections with 4001 when the API key changes, and accepts the new key', async () => {
      const a = await open(merchantA);
      const b = await open(merchantB);
      const newKey = `sk_test_${'x'.repeat(24)}`;
      expect((await admin.patch(`/admin/merchants/${merchantA.merchantId}`, { apiKey: newKey })).status).toBe(200);
      expect(await a.whenClosed).toEqual({ code: FEED_CLOSE_CODES.credentialsChanged, reason: 'credentials changed' });
      expect(sb.feed.connectionCount(merchantA.merchantId)).toBe(0);
      expect(b.ws.readyState).toBe(WebSocket.OPEN);

      expect((await refusedUpgrade(sb.wsUrl, headersOf(merchantA))).status).toBe(401);
      const renewed = await open({ merchantId: merchantA.merchantId, apiKey: newKey });
      expect(renewed.frames[0]).toEqual({ type: 'connected', merchantId: merchantA.merchantId });
    });

    it('keeps working after an admin reset', async () => {
      expect((await admin.post('/admin/reset')).status).toBe(200);
      const fresh = await admin.createMerchant({});
      const client = await open(fresh);
      expect(client.frames[0]).toEqual({ type: 'connected', merchantId: fresh.merchantId });
      await listItems([{ price: 5 }]);
      await client.waitFor('item_upserted');
      expect(client.ofType('item_upserted')).toHaveLength(1);
    });
  });

  describe('maintenance', () => {
    it('refuses new upgrades with 503 and the maintenance envelope', async () => {
      await admin.post('/admin/maintenance', { on: true });
      expect(await refusedUpgrade(sb.wsUrl, headersOf(merchantA))).toEqual({
        status: 503,
        contentType: 'application/json',
        body: { error: 'maintenance', message: 'System is under maintenance. Please try again later.' },
      });
      await admin.post('/admin/maintenance', { on: false });
      await open(merchantA);
    });
  });

  /** A second feed on its own HTTP server, over the same core, with short timers. */
  describe('with short timers', () => {
    let server: Server;
    let feed: FeedServer;
    let url: string;

    async function startFeed(options: ConstructorParameters<typeof FeedServer>[2]): Promise<void> {
      server = createServer((_request, response) => response.writeHead(404).end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      feed = new FeedServer(sb.core, server, options);
      url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
    }

    afterEach(async () => {
      await feed.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('pings; a peer that does not answer is dropped, one that does stays', async () => {
      await startFeed({ pingIntervalMs: 100 });
      const healthy = await open(merchantA, {}, url);
      const dead = await open(merchantA, { autoPong: false }, url);
      expect(feed.connectionCount(merchantA.merchantId)).toBe(2);

      const closed = await dead.whenClosed;
      expect(closed.code).toBe(1006);
      expect(dead.pings).toBeGreaterThanOrEqual(1);
      expect(feed.connectionCount(merchantA.merchantId)).toBe(1);

      // A peer is dropped at the first ping check that finds no pong since the one before: four pings are three checks passed.
      await waitFor(() => healthy.pings >= 4 || healthy.closed !== null, 5000, 'four pings to the healthy peer');
      expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
      expect(feed.connectionCount(merchantA.merchantId)).toBe(1);
    });

    it('answers client pings', async () => {
      await startFeed({});
      const client = await open(merchantA, {}, url);
      const pong = new Promise<string>((resolve) => client.ws.once('pong', (data) => resolve(data.toString())));
      client.ws.ping('hello');
      expect(await pong).toBe('hello');
    });

    it('closes every feed with 4503 when maintenance is switched on', async () => {
      await startFeed({ pingIntervalMs: 100 });
      const a = await open(merchantA, {}, url);
      const b = await open(merchantB, {}, url);
      await admin.post('/admin/maintenance', { on: true });
      for (const client of [a, b])
        expect(await client.whenClosed).toEqual({ code: FEED_CLOSE_CODES.maintenance, reason: 'maintenance' });
      expect(feed.connectionCount(merchantA.merchantId)).toBe(0);
    });

    it('closes the feeds of merchants deleted by an admin reset with 4001', async () => {
      await startFeed({ pingIntervalMs: 100 });
      const a = await open(merchantA, {}, url);
      await admin.post('/admin/reset');
      expect((await a.whenClosed).code).toBe(FEED_CLOSE_CODES.credentialsChanged);
    });

    it('closes a consumer that stops reading with 1013 once too much is buffered; others are unaffected', async () => {
      await startFeed({ maxBufferedBytes: 256 * 1024 });
      const reader = await open(merchantB, {}, url);

      // A raw client that completes the handshake and then never reads.
      const stalled = connect((server.address() as AddressInfo).port, '127.0.0.1');
      await new Promise<void>((resolve) => stalled.once('connect', resolve));
      stalled.write(
        [
          'GET /ws HTTP/1.1',
          'Host: 127.0.0.1',
          'Upgrade: websocket',
          'Connection: Upgrade',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Version: 13',
          `x-api-key: ${merchantA.apiKey}`,
          `x-merchant-id: ${merchantA.merchantId}`,
          '',
          '',
        ].join('\r\n'),
      );
      await waitFor(() => feed.connectionCount(merchantA.merchantId) === 1, 5000, 'the raw connection');
      stalled.pause();

      const catalog = sb.core.catalog;
      const items = catalog.searchByIds(onSaleIds(300)).map((r) => itemFor(r, REVEAL_ALL));
      let rounds = 0;
      while (feed.connectionCount(merchantA.merchantId) > 0 && rounds < 500) {
        catalog.upsert(items);
        rounds++;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(feed.connectionCount(merchantA.merchantId)).toBe(0);
      expect(feed.connectionCount(merchantB.merchantId)).toBe(1);
      await reader.waitFrames(1 + rounds, 20_000);
      expect(reader.ofType('item_upserted').every((f) => f.items.length === items.length)).toBe(true);
      stalled.destroy();
    });

    it('close() sends what is queued, closes with 1001 and stops listening', async () => {
      const listening = sb.core.events.listenerCount('itemsRemoved');
      await startFeed({});
      expect(sb.core.events.listenerCount('itemsRemoved')).toBe(listening + 1);
      const client = await open(merchantA, {}, url);
      const [itemId] = onSaleIds(1) as [number];
      sb.core.catalog.remove([itemId]);
      await feed.close();
      expect(await client.whenClosed).toEqual({ code: 1001, reason: 'going away' });
      expect(client.ofType('item_removed')).toEqual([{ type: 'item_removed', itemIds: [itemId] }]);
      expect(server.listenerCount('upgrade')).toBe(0);
      expect(sb.core.events.listenerCount('itemsRemoved')).toBe(listening);
    });
  });
});
