/**
 * Streaming catalog sync against the real sandbox over real HTTP (gzip), into
 * real SQLite files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance as nodePerformance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEnvelope, Item, Trade } from '../../src/shared/api';
import { CatalogSyncError, LocalStore, StoreError, type CatalogSyncProgress } from '../../src/main/core/store';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { adminApi, at, merchantApi, type MerchantCredentials } from '../support/sandboxHttp';
import { applyItemRemovals, applyItemUpserts, applyPriceChanges } from '../support/liveChanges';
import { waitFor } from '../support/waitFor';

const CATALOG_PATH = '/Items/GetAllItemsOnSale';

const dirs: string[] = [];
const stores: LocalStore[] = [];
async function openStore(): Promise<LocalStore> {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-sync-'));
  dirs.push(dir);
  const store = await LocalStore.open({ file: join(dir, 'accounts', 'merchant.sqlite') });
  stores.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function syncRequest(baseUrl: string, credentials: MerchantCredentials) {
  return {
    url: `${baseUrl}${CATALOG_PATH}`,
    headers: { 'x-api-key': credentials.apiKey, 'x-merchant-id': credentials.merchantId },
  };
}

async function serverCatalog(sb: Pick<Sandbox, 'baseUrl'>, credentials: MerchantCredentials): Promise<CatalogEnvelope> {
  const answer = await merchantApi(sb, credentials).get<CatalogEnvelope>(CATALOG_PATH);
  expect(answer.status).toBe(200);
  return answer.body;
}

function byId(items: Item[]): Map<number, Item> {
  return new Map(items.map((item) => [item.itemId, item]));
}

describe('catalog sync with the sandbox', () => {
  let sb: Sandbox;
  let demo: MerchantCredentials;
  let store: LocalStore;

  beforeAll(async () => {
    sb = await startSandbox({ items: 3000, seed: 11, demoMerchant: true });
    demo = sb.demo as MerchantCredentials;
    // One store for the whole sequence (sync, re-sync, refused sync).
    const dir = mkdtempSync(join(tmpdir(), 'catalog-sync-'));
    dirs.push(dir);
    store = await LocalStore.open({ file: join(dir, 'sequence.sqlite') });
  });
  afterAll(async () => {
    await store.close();
    await sb.close();
  });

  it('stores every item of the list, equal to the server', async () => {
    const progress: CatalogSyncProgress[] = [];
    const started = Date.now();
    const result = await store.syncCatalog(syncRequest(sb.baseUrl, demo), (p) => progress.push(p));
    const elapsed = Date.now() - started;
    const server = await serverCatalog(sb, demo);
    expect(result).toMatchObject({
      ok: true,
      added: 3000,
      updated: 0,
      removed: 0,
      total: 3000,
      serverTotal: 3000,
      skipped: 0,
      lastUpdate: server.lastUpdate,
    });

    const stored = await store.findItemsByIds(server.items.map((item) => item.itemId));
    expect(stored).toHaveLength(server.items.length);
    const expected = byId(server.items);
    for (const item of stored) expect(item).toEqual(expected.get(item.itemId));
    expect(await store.catalogInfo()).toEqual({
      totalItems: server.totalItems,
      totalValue: server.totalValue,
      lastUpdate: server.lastUpdate,
      syncedAt: expect.stringMatching(/Z$/),
    });

    // Progress: ordered, capped at ~10 a second, ending with applying → done.
    expect(progress.at(-1)).toMatchObject({ phase: 'done', received: 3000, total: 3000, applied: 3000 });
    expect(progress.at(-2)?.phase).toBe('applying');
    const received = progress.map((p) => p.received);
    expect(received).toEqual([...received].sort((a, b) => a - b));
    expect(progress.length).toBeLessThanOrEqual(elapsed / 100 + 3);
  });

  it('re-syncs exactly the server-side changes: prices, removals, additions', async () => {
    const admin = adminApi(sb);
    const server = await serverCatalog(sb, demo);
    const repriced = server.items.slice(10, 15);
    const removed = server.items.slice(100, 103);
    for (const [i, item] of repriced.entries()) {
      const answer = await admin.patch(`/admin/items/${item.itemId}`, {
        price: i % 2 === 0 ? item.price + 100 : Math.max(1, item.price - 1),
      });
      expect(answer.status).toBe(200);
    }
    for (const item of removed) expect((await admin.delete(`/admin/items/${item.itemId}`)).status).toBe(200);
    const addedAnswer = await admin.post<{ items: Item[] }>('/admin/items', {
      items: [{ price: 1234 }, { price: 1234 }],
    });
    expect(addedAnswer.status).toBe(200);
    const addedIds = addedAnswer.body.items.map((item) => item.itemId);

    const result = await store.syncCatalog(syncRequest(sb.baseUrl, demo));
    expect(result).toMatchObject({ ok: true, added: 2, updated: 5, removed: 3, total: 2999 });

    const now = await serverCatalog(sb, demo);
    const current = byId(now.items);
    for (const [i, item] of repriced.entries()) {
      const detail = await store.getItem(item.itemId);
      const newPrice = (current.get(item.itemId) as Item).price;
      expect(detail?.item).toEqual(current.get(item.itemId));
      expect(detail?.priceHistory.map((p) => p.price)).toEqual([item.price, newPrice]);
      const [row] = (
        await store.queryCatalog({ search: item.market_hash_name, priceMin: newPrice, priceMax: newPrice })
      ).rows.filter((r) => r.itemId === item.itemId);
      expect(row?.lastMove).toBe(i % 2 === 0 ? 'up' : 'down');
    }
    for (const item of removed) expect(await store.getItem(item.itemId)).toMatchObject({ onSale: false, item });
    const added = await store.findItemsByIds(addedIds);
    expect(added).toEqual(addedIds.map((id) => current.get(id)));
    expect(added.every((item) => item.price === 1234)).toBe(true);
    expect((await store.catalogInfo()).totalValue).toBe(now.totalValue);

    // Nothing changed since: nothing to do.
    expect(await store.syncCatalog(syncRequest(sb.baseUrl, demo))).toMatchObject({
      ok: true,
      added: 0,
      updated: 0,
      removed: 0,
      total: 2999,
    });
  });

  it('folds live price changes into the next sync: the list has the last word, history keeps every move', async () => {
    const admin = adminApi(sb);
    const [a, b] = (await serverCatalog(sb, demo)).items.slice(200, 202) as [Item, Item];
    // The feed moved both; the server then moved `a` again, and `b` to what the feed said.
    await applyPriceChanges(store, [
      { itemId: a.itemId, price: a.price + 50 },
      { itemId: b.itemId, price: b.price + 70 },
    ]);
    expect((await store.getItem(a.itemId))?.item.price).toBe(a.price + 50);
    expect(
      (
        await store.queryCatalog({ search: b.market_hash_name, priceMin: b.price + 70, priceMax: b.price + 70 })
      ).rows.map((r) => r.itemId),
    ).toContain(b.itemId);
    expect((await admin.patch(`/admin/items/${a.itemId}`, { price: a.price + 90 })).status).toBe(200);
    expect((await admin.patch(`/admin/items/${b.itemId}`, { price: b.price + 70 })).status).toBe(200);

    const result = await store.syncCatalog(syncRequest(sb.baseUrl, demo));
    // Both are read again (their stored JSON no longer had their price); only `a` moves.
    expect(result).toMatchObject({ ok: true, added: 0, removed: 0, updated: 2 });
    expect((await store.getItem(a.itemId))?.priceHistory.map((p) => p.price)).toEqual([
      a.price,
      a.price + 50,
      a.price + 90,
    ]);
    expect((await store.getItem(b.itemId))?.priceHistory.map((p) => p.price)).toEqual([b.price, b.price + 70]);
    const rows = await store.findItemsByIds([a.itemId, b.itemId]);
    expect(rows.map((item) => item.price)).toEqual([a.price + 90, b.price + 70]);
    const [rowB] = (
      await store.queryCatalog({ search: b.market_hash_name, priceMin: b.price + 70, priceMax: b.price + 70 })
    ).rows.filter((r) => r.itemId === b.itemId);
    expect(rowB?.lastMove).toBe('up');
    // Nothing left to read again.
    expect(await store.syncCatalog(syncRequest(sb.baseUrl, demo))).toMatchObject({
      ok: true,
      updated: 0,
      unchanged: 2999,
    });
  });

  it('returns a non-2xx answer as data, leaving the catalog alone', async () => {
    const result = await store.syncCatalog(
      syncRequest(sb.baseUrl, { merchantId: demo.merchantId, apiKey: 'wrong-key-123' }),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.status).toBe(401);
    expect(JSON.parse(result.bodyText)).toMatchObject({
      error: 'unauthorized',
      message: 'Invalid API key or Merchant ID',
    });
    expect(result.headers['content-type']).toContain('application/json');
    expect((await store.catalogInfo()).totalItems).toBe(2999);
  });
});

describe('catalog sync failures keep the previous catalog', () => {
  async function syncedStore(sb: Sandbox) {
    const store = await openStore();
    const first = await store.syncCatalog(syncRequest(sb.baseUrl, sb.demo as MerchantCredentials));
    expect(first.ok).toBe(true);
    const info = await store.catalogInfo();
    const sample = await store.queryCatalog({ sort: 'name', limit: 50 });
    return { store, info, sample };
  }

  /**
   * The sandbox serves the list from cached gzip segments and an unchanged re-sync only hashes each
   * item, so a whole list can arrive and be applied in a blink: hold the stream after its first
   * segments, so that what the test does meanwhile really lands mid-stream.
   */
  function holdStreamAfterFirstSegments(sb: Sandbox): () => void {
    const catalog = sb.core.catalog;
    const original = catalog.streamEnvelopeGzip;
    const stream = original.bind(catalog);
    catalog.streamEnvelopeGzip = async function* (reveal) {
      let chunks = 0;
      for await (const chunk of stream(reveal)) {
        yield chunk;
        if (++chunks === 6) await new Promise((resolve) => setTimeout(resolve, 10_000).unref());
      }
    };
    return () => {
      catalog.streamEnvelopeGzip = original;
    };
  }

  it('survives the server dying mid-stream', async () => {
    const sb = await startSandbox({ items: 30_000, seed: 12, demoMerchant: true });
    let closing: Promise<void> | null = null;
    try {
      const { store, info, sample } = await syncedStore(sb);
      // Change the list so a completed second sync would show.
      await adminApi(sb).delete(`/admin/items/${at(sample.rows).itemId}`);
      holdStreamAfterFirstSegments(sb);
      const outcome = store.syncCatalog(syncRequest(sb.baseUrl, sb.demo as MerchantCredentials), (p) => {
        if (!closing && p.phase === 'receiving' && p.received > 0) {
          // sb.close() alone waits for the response to finish; cutting the sockets is what a crash does.
          closing = sb.close();
          sb.app.server.closeAllConnections();
        }
      });
      const error = await outcome.catch((e: unknown) => e);
      expect(closing).not.toBeNull();
      expect(error).toBeInstanceOf(CatalogSyncError);
      expect((error as CatalogSyncError).reason).toBe('network');
      expect(await store.catalogInfo()).toEqual(info);
      expect(await store.queryCatalog({ sort: 'name', limit: 50 })).toEqual(sample);
    } finally {
      await (closing ?? sb.close());
    }
  });

  it('survives a cancel mid-stream', async () => {
    const sb = await startSandbox({ items: 30_000, seed: 13, demoMerchant: true });
    try {
      const { store, info, sample } = await syncedStore(sb);
      await adminApi(sb).delete(`/admin/items/${at(sample.rows).itemId}`);
      const release = holdStreamAfterFirstSegments(sb);
      const controller = new AbortController();
      const error = await store
        .syncCatalog({ ...syncRequest(sb.baseUrl, sb.demo as MerchantCredentials), signal: controller.signal }, (p) => {
          if (p.phase === 'receiving' && p.received > 0) controller.abort();
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CatalogSyncError);
      expect((error as CatalogSyncError).reason).toBe('aborted');
      expect(await store.catalogInfo()).toEqual(info);
      expect(await store.queryCatalog({ sort: 'name', limit: 50 })).toEqual(sample);
      // The store is still usable: the next sync completes.
      release();
      expect(await store.syncCatalog(syncRequest(sb.baseUrl, sb.demo as MerchantCredentials))).toMatchObject({
        ok: true,
        removed: 1,
      });
    } finally {
      await sb.close();
    }
  });

  it('survives the store closing mid-stream, and the file reopens with the previous catalog', async () => {
    const sb = await startSandbox({ items: 30_000, seed: 14, demoMerchant: true });
    try {
      const { store, info, sample } = await syncedStore(sb);
      await adminApi(sb).delete(`/admin/items/${at(sample.rows).itemId}`);
      holdStreamAfterFirstSegments(sb);
      let closing: Promise<void> | null = null;
      const error = await store
        .syncCatalog(syncRequest(sb.baseUrl, sb.demo as MerchantCredentials), (p) => {
          if (!closing && p.phase === 'receiving' && p.received > 0) closing = store.close();
        })
        .catch((e: unknown) => e);
      await closing;
      expect(error).toBeInstanceOf(StoreError);
      const reopened = await LocalStore.open({ file: store.file });
      try {
        expect(await reopened.catalogInfo()).toEqual(info);
        expect(await reopened.queryCatalog({ sort: 'name', limit: 50 })).toEqual(sample);
      } finally {
        await reopened.close();
      }
    } finally {
      await sb.close();
    }
  });

  describe('with a misbehaving server', () => {
    let server: Server;
    let baseUrl = '';
    const bodies = new Map<string, { gzip: boolean; text: string }>();
    const [good, other] = [
      {
        itemId: 1,
        assetId: 'a',
        classId: 'c',
        instanceId: 'i',
        paintIndex: null,
        paintSeed: null,
        rarityColor: null,
        market_hash_name: 'Good | Item',
        img: null,
        phase: null,
        price: 5,
        float: null,
        stickers: [],
        keyChains: [],
        steamId: null,
        inspectInGame: null,
        tradeUrl: null,
      },
      {
        itemId: 2,
        assetId: 'b',
        classId: 'c',
        instanceId: 'i',
        paintIndex: null,
        paintSeed: null,
        rarityColor: null,
        market_hash_name: 'Other | Item',
        img: null,
        phase: null,
        price: 7,
        float: null,
        stickers: [],
        keyChains: [],
        steamId: null,
        inspectInGame: null,
        tradeUrl: null,
      },
    ];

    beforeAll(async () => {
      const valid = JSON.stringify({
        totalItems: 2,
        totalValue: 12,
        items: [good, other],
        lastUpdate: '2026-01-01T00:00:00.000Z',
      });
      bodies.set('/valid', { gzip: true, text: valid });
      bodies.set('/plain', { gzip: false, text: valid });
      bodies.set('/truncated', { gzip: true, text: valid.slice(0, 200) });
      bodies.set('/broken', { gzip: true, text: valid.replace('"price":7', '"price":7x') });
      bodies.set('/bad-item', { gzip: false, text: valid.replace('"price":7', '"price":"7"') });
      // Other servers' formatting: pretty-printed, keys in another order, an item nesting an object keyed like an item.
      bodies.set('/pretty', { gzip: true, text: JSON.stringify(JSON.parse(valid), null, 2) });
      const reordered = [good, other].map(({ price, itemId, ...rest }) => ({ price, ...rest, itemId }));
      bodies.set('/reordered', {
        gzip: true,
        text: JSON.stringify({
          totalItems: 2,
          items: reordered,
          totalValue: 12,
          lastUpdate: '2026-01-01T00:00:00.000Z',
        }),
      });
      const nesting = { ...good, extra: [{ itemId: 99, note: '},{"itemId":' }, { itemId: 98 }] };
      bodies.set('/nesting', {
        gzip: true,
        text: JSON.stringify({
          totalItems: 2,
          totalValue: 12,
          items: [nesting, other],
          lastUpdate: '2026-01-01T00:00:00.000Z',
        }),
      });
      // A small list, then a much bigger one: the second sync is written whole into fresh tables (bulk)
      // and must merge what the cache held: listing times, price moves, sold items.
      const extra = (n: number) => ({
        ...other,
        itemId: 100 + n,
        assetId: `x${n}`,
        market_hash_name: `Extra | Item ${n}`,
        price: 10 + n,
      });
      const third = { ...other, itemId: 3, assetId: 'c3', market_hash_name: 'Third | Item', price: 9 };
      const renamedOther = { ...other, market_hash_name: 'Renamed | Item' };
      bodies.set('/swap', {
        gzip: true,
        text: JSON.stringify({
          totalItems: 3,
          totalValue: 23,
          items: [good, renamedOther, third],
          lastUpdate: '2026-01-03T00:00:00.000Z',
        }),
      });
      bodies.set('/small', {
        gzip: true,
        text: JSON.stringify({
          totalItems: 3,
          totalValue: 21,
          items: [good, other, third],
          lastUpdate: '2026-01-01T00:00:00.000Z',
        }),
      });
      const bigItems = [{ ...good, price: 6 }, other, ...Array.from({ length: 20 }, (_, n) => extra(n))];
      bodies.set('/big', {
        gzip: true,
        text: JSON.stringify({
          totalItems: bigItems.length,
          totalValue: bigItems.reduce((sum, item) => sum + item.price, 0),
          items: bigItems,
          lastUpdate: '2026-01-02T00:00:00.000Z',
        }),
      });
      // One item through a repricing, a sticker added, the sticker's wear changed (JSON-only: no column
      // moves), a repricing again, then sold.
      const sticker = { name: 'Crown (Foil)', img: 'crown.png', slot: 0, wear: 0.1, wearPercent: '10%' };
      const goodSteps = {
        '/step-price': { ...good, price: 9 },
        '/step-sticker': { ...good, price: 9, stickers: [sticker] },
        '/step-wear': { ...good, price: 9, stickers: [{ ...sticker, wear: 0.5, wearPercent: '50%' }] },
        '/step-reprice': { ...good, price: 11, stickers: [{ ...sticker, wear: 0.5, wearPercent: '50%' }] },
      };
      for (const [path, item] of Object.entries(goodSteps)) {
        bodies.set(path, {
          gzip: true,
          text: JSON.stringify({
            totalItems: 2,
            totalValue: item.price + other.price,
            items: [item, other],
            lastUpdate: '2026-01-04T00:00:00.000Z',
          }),
        });
      }
      bodies.set('/step-sold', {
        gzip: true,
        text: JSON.stringify({
          totalItems: 1,
          totalValue: other.price,
          items: [other],
          lastUpdate: '2026-01-05T00:00:00.000Z',
        }),
      });
      server = createServer((request, response) => {
        const body = bodies.get(request.url ?? '');
        if (!body) {
          response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '60' });
          response.end(
            JSON.stringify({ error: 'maintenance', message: 'System is under maintenance. Please try again later.' }),
          );
          return;
        }
        const payload = body.gzip ? gzipSync(body.text) : Buffer.from(body.text);
        response.writeHead(200, {
          'content-type': 'application/json',
          ...(body.gzip ? { 'content-encoding': 'gzip' } : {}),
        });
        response.end(payload);
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((done) => server.close(done));
    });

    it('reads gzip and plain bodies', async () => {
      const store = await openStore();
      expect(await store.syncCatalog({ url: `${baseUrl}/valid`, headers: {} })).toMatchObject({
        ok: true,
        added: 2,
        total: 2,
      });
      expect(await store.syncCatalog({ url: `${baseUrl}/plain`, headers: {} })).toMatchObject({
        ok: true,
        added: 0,
        updated: 0,
        total: 2,
      });
    });

    it('applies a repricing and a change of any other field alike: the item reads exactly as the list serves it', async () => {
      const store = await openStore();
      const served = async (path: string) => JSON.parse((bodies.get(path) as { text: string }).text) as CatalogEnvelope;
      await store.syncCatalog({ url: `${baseUrl}/valid`, headers: {} });
      // The cache keeps each list's own text of the item, but for its price, whose one home is the row.
      const steps: [path: string, prices: number[]][] = [
        ['/step-price', [5, 9]],
        ['/step-sticker', [5, 9]],
        ['/step-wear', [5, 9]],
        ['/step-reprice', [5, 9, 11]],
      ];
      const file = new Database(store.file, { readonly: true });
      const storedText = () => file.prepare<[], string>('SELECT json FROM item_json WHERE itemId = 1').pluck().get();
      for (const [path, prices] of steps) {
        expect(await store.syncCatalog({ url: `${baseUrl}${path}`, headers: {} }), path).toMatchObject({
          ok: true,
          updated: 1,
          unchanged: 1,
        });
        expect(storedText(), path).toBe(JSON.stringify((await served(path)).items[0]).replace(/"price":\d+,/, ''));
        const item = (await served(path)).items[0] as Item;
        const detail = await store.getItem(1);
        expect(detail?.item, path).toEqual(item);
        expect(
          detail?.priceHistory.map((point) => point.price),
          path,
        ).toEqual(prices);
        expect((await store.findItemsByIds([1]))[0], path).toEqual(item);
        const stickered = (await store.queryCatalog({ hasStickers: true, limit: 10 })).rows.map((row) => row.itemId);
        expect(stickered, path).toEqual(item.stickers.length > 0 ? [1] : []);
        expect((await store.catalogInfo()).totalValue, path).toBe(item.price + other.price);
        // The same bytes again: nothing to read.
        expect(await store.syncCatalog({ url: `${baseUrl}${path}`, headers: {} }), path).toMatchObject({
          ok: true,
          updated: 0,
          unchanged: 2,
        });
      }
      file.close();
      expect(await store.syncCatalog({ url: `${baseUrl}/step-sold`, headers: {} })).toMatchObject({
        ok: true,
        removed: 1,
        total: 1,
      });
      expect(await store.getItem(1)).toMatchObject({ onSale: false, item: (await served('/step-reprice')).items[0] });
    });

    it('reads other formattings of the list: pretty-printed, reordered keys, nested item-like objects', async () => {
      for (const path of ['/pretty', '/reordered', '/nesting']) {
        const store = await openStore();
        expect(await store.syncCatalog({ url: `${baseUrl}${path}`, headers: {} }), path).toMatchObject({
          ok: true,
          added: 2,
          total: 2,
          skipped: 0,
        });
        const stored = await store.findItemsByIds([1, 2]);
        expect(stored[0], path).toMatchObject(good);
        expect(stored[1], path).toEqual(other);
        // The same bytes again: nothing parsed, nothing written.
        expect(await store.syncCatalog({ url: `${baseUrl}${path}`, headers: {} }), path).toMatchObject({
          ok: true,
          added: 0,
          updated: 0,
          removed: 0,
          unchanged: 2,
        });
      }
    });

    it('merges what a small cache held when a much bigger list is written whole', async () => {
      const store = await openStore();
      expect(await store.syncCatalog({ url: `${baseUrl}/small`, headers: {} })).toMatchObject({ ok: true, added: 3 });
      const before = new Map(
        (await store.queryCatalog({ sort: 'price', limit: 10 })).rows.map((row) => [row.itemId, row]),
      );
      // A live price change on `other`; the list still has its old price: the list has the last word.
      await applyPriceChanges(store, [{ itemId: 2, price: 8 }]);
      await new Promise((done) => setTimeout(done, 5));
      const result = await store.syncCatalog({ url: `${baseUrl}/big`, headers: {} });
      expect(result).toMatchObject({ ok: true, added: 20, updated: 2, removed: 1, total: 22, unchanged: 0 });
      const rows = new Map(
        (await store.queryCatalog({ sort: 'price', limit: 50 })).rows.map((row) => [row.itemId, row]),
      );
      // Held items keep their listing time; the repriced one moved up and has its history.
      expect(rows.get(1)?.listedAt).toBe(before.get(1)?.listedAt);
      expect(rows.get(2)?.listedAt).toBe(before.get(2)?.listedAt);
      expect(rows.get(1)).toMatchObject({ price: 6, lastMove: 'up' });
      expect((await store.getItem(1))?.priceHistory.map((point) => point.price)).toEqual([5, 6]);
      expect(rows.get(2)).toMatchObject({ price: 7, lastMove: 'down' });
      expect((await store.getItem(2))?.priceHistory.map((point) => point.price)).toEqual([7, 8, 7]);
      // The one the list no longer names is sold, still readable.
      expect(await store.getItem(3)).toMatchObject({ onSale: false, item: { itemId: 3 } });
      expect(rows.has(3)).toBe(false);
      expect(await store.catalogInfo()).toMatchObject({ totalItems: 22, lastUpdate: '2026-01-02T00:00:00.000Z' });
      expect((await store.queryCatalog({ search: 'extra', sort: 'price', limit: 50 })).total).toBe(20);
    });

    it('keeps the searchable names in step: a new name appears, the old name of a renamed or sold item goes', async () => {
      const store = await openStore();
      await store.syncCatalog({ url: `${baseUrl}/small`, headers: {} });
      const total = async (search: string) => (await store.queryCatalog({ search, limit: 10 })).total;
      expect([await total('Other | Item'), await total('Third | Item'), await total('Renamed')]).toEqual([1, 1, 0]);
      // Incremental (the cache holds the whole list): `other` renamed, nothing sold.
      expect(await store.syncCatalog({ url: `${baseUrl}/swap`, headers: {} })).toMatchObject({ ok: true, updated: 1 });
      expect([await total('Other | Item'), await total('Renamed | Item'), await total('Third | Item')]).toEqual([
        0, 1, 1,
      ]);
      // `third` sold, `other` back under its first name.
      expect(await store.syncCatalog({ url: `${baseUrl}/valid`, headers: {} })).toMatchObject({
        ok: true,
        removed: 1,
        updated: 1,
      });
      expect([
        await total('Other | Item'),
        await total('Renamed'),
        await total('Third | Item'),
        await total('Good | Item'),
      ]).toEqual([1, 0, 0, 1]);
    });

    it('rejects truncated or broken JSON and keeps the catalog', async () => {
      const store = await openStore();
      await store.syncCatalog({ url: `${baseUrl}/valid`, headers: {} });
      for (const path of ['/truncated', '/broken']) {
        const error = await store.syncCatalog({ url: `${baseUrl}${path}`, headers: {} }).catch((e: unknown) => e);
        expect(error, path).toBeInstanceOf(CatalogSyncError);
        expect(['protocol', 'network']).toContain((error as CatalogSyncError).reason);
        expect((await store.catalogInfo()).totalItems).toBe(2);
      }
    });

    it('leaves out items that fail the shape check, and says which', async () => {
      const store = await openStore();
      const result = await store.syncCatalog({ url: `${baseUrl}/bad-item`, headers: {} });
      expect(result).toMatchObject({
        ok: true,
        added: 1,
        skipped: 1,
        firstSkipReason: expect.stringContaining('item 2: price'),
      });
    });

    it('maps a maintenance answer to data', async () => {
      const store = await openStore();
      const result = await store.syncCatalog({ url: `${baseUrl}/down`, headers: {} });
      expect(result).toMatchObject({ ok: false, status: 503, headers: { 'retry-after': '60' } });
    });

    it('fails cleanly when nothing listens', async () => {
      const store = await openStore();
      const error = await store.syncCatalog({ url: 'http://127.0.0.1:1/x', headers: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CatalogSyncError);
      expect((error as CatalogSyncError).reason).toBe('network');
    });
  });
});

/**
 * The large sync runs against a sandbox in a CHILD process: the host event
 * loop measured here must carry only the store's share of the work (messages
 * from the worker threads), not the sandbox's own serializing and gzipping.
 */
describe('a 100,000-item sync', () => {
  let child: ChildProcess;
  let ready: { base_url: string; admin_token: string; merchant_id: string; api_key: string };

  beforeAll(async () => {
    const root = resolve(import.meta.dirname, '../..');
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/server/cli.ts', '--port', '0', '--items', '100000', '--seed', '21', '--json'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines = createInterface({ input: child.stdout as NonNullable<ChildProcess['stdout']> });
    ready = await new Promise((done, fail) => {
      child.once('exit', (code) => fail(new Error(`sandbox exited early (${code})`)));
      lines.once('line', (line) => done(JSON.parse(line) as typeof ready));
    });
  }, 120_000);
  afterAll(async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('completes, is searchable, keeps the host responsive and keeps serving writes', async () => {
    const store = await openStore();
    const credentials = { merchantId: ready.merchant_id, apiKey: ready.api_key };
    const sb = { baseUrl: ready.base_url, adminToken: ready.admin_token };

    // An item the feed will touch mid-sync: the feed's newer price must survive the sync.
    const peek = await merchantApi(sb, credentials).post<CatalogEnvelope>('/Items/SearchItems', {
      itemId: [1_000_500, 1_050_000],
    });
    const found = byId(peek.body.items);
    const [feedItem, goneItem] = [found.get(1_000_500), found.get(1_050_000)];
    if (!feedItem || !goneItem) throw new Error('SearchItems did not return the two items');
    await applyItemUpserts(store, [feedItem]);

    // Two measures of the host's event loop while the list streams and applies:
    // - maxGap: wall-clock time between two ticks of a 10 ms interval. It also
    //   counts time the OS did not run this thread at all: on a loaded 2-core
    //   machine (a sandbox process and two busy store threads) ~100-150 ms were
    //   seen with the host idle;
    // - maxBusy: how long the loop was not idle between two ticks (event-loop
    //   utilization). The store's share is message handling (< 5 ms); what
    //   remains is this test process's own GC pauses, seen up to ~50 ms, and
    //   ~240 ms once under heavy CPU contention. Both bounds are loose on purpose:
    //   speed targets live in benchmarks, not in tests.
    let maxGap = 0;
    let maxBusy = 0;
    let last = performance.now();
    let lastElu = nodePerformance.eventLoopUtilization();
    const timer = setInterval(() => {
      const now = performance.now();
      const elu = nodePerformance.eventLoopUtilization();
      maxGap = Math.max(maxGap, now - last);
      maxBusy = Math.max(maxBusy, nodePerformance.eventLoopUtilization(elu, lastElu).active);
      last = now;
      lastElu = elu;
    }, 10);

    let writes: Promise<number> | null = null;
    let syncDone = 0;
    const trade: Trade = {
      tradeId: 'T-mid-sync',
      externalId: null,
      status: 'PENDING',
      price: 1,
      itemId: 1,
      assetId: 'a',
      offerId: null,
      tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234',
      market_hash_name: 'x',
      phase: null,
      float: null,
      webhookStatus: null,
      failReason: null,
      errorCode: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      completedAt: null,
      cancelledAt: null,
      endProtection: null,
      rollbackAt: null,
      stage: 1,
    };
    const started = performance.now();
    const result = await store.syncCatalog(syncRequest(sb.baseUrl, credentials), (p) => {
      if (writes === null && p.phase === 'receiving' && p.received > 10_000) {
        const t0 = performance.now();
        writes = (async () => {
          await store.upsertTrades([trade], 'buy');
          await store.applyTradeUpdate(
            {
              tradeId: trade.tradeId,
              status: 'SENT',
              externalId: null,
              offerId: 'O',
              failReason: null,
              errorCode: null,
            },
            'feed',
          );
          await applyPriceChanges(store, [{ itemId: feedItem.itemId, price: feedItem.price + 777 }]);
          await applyItemRemovals(store, [goneItem.itemId]);
          return performance.now();
        })().then((end) => {
          expect(syncDone).toBe(0); // served while the list was still streaming
          return end - t0;
        });
      }
    });
    syncDone = performance.now();
    clearInterval(timer);
    const syncMs = syncDone - started;
    const writeMs = await (writes as Promise<number> | null);
    console.log(
      `100k sync: ${Math.round(syncMs)} ms (store says ${result.ok ? result.ms : '?'} ms); writes mid-sync took ${Math.round(writeMs ?? -1)} ms; host max gap ${Math.round(maxGap)} ms, max busy ${Math.round(maxBusy)} ms`,
    );

    expect(result).toMatchObject({ ok: true, added: 99_998, total: 99_999, serverTotal: 100_000, keptFromFeed: 2 });
    expect(writeMs).not.toBeNull();
    expect(writeMs as number).toBeLessThan(5000);
    expect(maxBusy).toBeLessThan(200);
    expect(maxGap).toBeLessThan(1000);

    // The feed's changes won over the (older) list.
    expect((await store.getItem(feedItem.itemId))?.item.price).toBe(feedItem.price + 777);
    expect(await store.getItem(goneItem.itemId)).toBeNull();
    expect((await store.getTrade(trade.tradeId))?.trade.status).toBe('SENT');

    // Searchable: the same answer as a scan of the server's list.
    const server = await serverCatalog(sb, credentials);
    const redlines = server.items.filter(
      (item) => item.market_hash_name.toLowerCase().includes('redline') && item.itemId !== goneItem.itemId,
    );
    const page = await store.queryCatalog({ search: 'redline', sort: 'price', limit: 1000 });
    expect(page.total).toBe(redlines.length);
    const cheapest = [...redlines].sort((a, b) => a.price - b.price || a.itemId - b.itemId).slice(0, 5);
    expect(page.rows.slice(0, 5).map((row) => row.itemId)).toEqual(cheapest.map((item) => item.itemId));

    // The sync's pages reach the database file by SQLite's own checkpoints: the file holds the catalog.
    const fileBytes = () => statSync(store.file).size;
    await waitFor(() => fileBytes() >= 20 * 1024 * 1024, 20_000, 'the catalog in the file', 100).catch(() => undefined);
    expect(fileBytes()).toBeGreaterThan(20 * 1024 * 1024);
  }, 180_000);
});
