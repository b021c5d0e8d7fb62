/**
 * The readers' in-memory catalog index must answer exactly as SQL does, also
 * after incremental changes (upserts, renames, removals, price moves) and after
 * a "reload everything" marker. Runs the reader and writer services in-process
 * on one real SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { catalogQuerySchema, type CatalogQuery } from '../../src/shared/ipc/contract';
import { CatalogIndex } from '../../src/main/core/store/worker/catalogIndex';
import { openReadConnection } from '../../src/main/core/store/worker/open';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { Rng } from '../../src/server/catalog/rng';
import { until } from '../support/until';

const dir = mkdtempSync(join(tmpdir(), 'store-index-'));
const file = join(dir, 'index.sqlite');
let writer: WriterService;
let sql: ReaderService;
let memory: ReaderService;
let items: Item[];

beforeAll(async () => {
  items = [...generateCatalog({ seed: 7, count: 3000, imageBaseUrl: 'http://sandbox.invalid/img' })];
  writer = new WriterService(file);
  writer.applyItemUpserts(items);
  sql = new ReaderService(file, { catalogIndex: false });
  memory = new ReaderService(file);
  await until(() => memory.catalogIndexStatus().ready);
});

afterAll(() => {
  memory.close();
  sql.close();
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

const SORTS = ['price', 'name', 'float', 'paintSeed', 'phase', 'stickers', 'keychains', 'listedAt', 'rarity'] as const;

function randomQuery(rng: Rng): CatalogQuery {
  const pick = <T>(list: readonly T[]): T => list[rng.int(0, list.length - 1)] as T;
  const q: CatalogQuery = {
    sort: pick(SORTS),
    direction: rng.int(0, 1) ? 'asc' : 'desc',
    offset: pick([0, 0, 0, 10, 150, 5000]),
    limit: pick([1, 20, 200, 1000]),
  };
  if (rng.int(0, 2) === 0) q.search = pick(['redline', 'ak', 'a', '★ karambit', 'doppler', 'zz', 'case hardened', 'stattrak fade', 'm4', 'souvenir']);
  if (rng.int(0, 3) === 0) {
    q.priceMin = rng.int(0, 3000);
    q.priceMax = q.priceMin + rng.int(0, 100_000);
  }
  if (rng.int(0, 3) === 0) {
    q.floatMin = rng.int(0, 50) / 100;
    q.floatMax = Math.min(1, q.floatMin + rng.int(0, 40) / 100);
  }
  if (rng.int(0, 4) === 0) q.statTrak = rng.int(0, 1) === 0;
  if (rng.int(0, 4) === 0) q.souvenir = rng.int(0, 1) === 0;
  if (rng.int(0, 4) === 0) q.hasStickers = rng.int(0, 1) === 0;
  if (rng.int(0, 5) === 0) q.phase = pick(['Ruby', 'Phase 2', 'Emerald', 'Nope']);
  if (rng.int(0, 5) === 0) q.rarityColors = pick([['#eb4b4b'], ['#4b69ff', '#8847ff'], ['#123456']]);
  if (rng.int(0, 5) === 0) q.stickerName = pick(['crown', 'Titan', 'holo', 'zzz', 'katowice']);
  return q;
}

function compare(rng: Rng, rounds: number): void {
  for (let i = 0; i < rounds; i++) {
    const query = catalogQuerySchema.parse(randomQuery(rng));
    const viaSql = sql.queryCatalog(query);
    const viaIndex = memory.queryCatalog(query);
    expect({ total: viaIndex.total, ids: viaIndex.rows.map((r) => r.itemId) }, JSON.stringify(query)).toEqual({
      total: viaSql.total,
      ids: viaSql.rows.map((r) => r.itemId),
    });
    expect(viaIndex.rows).toEqual(viaSql.rows);
  }
}

describe('in-memory catalog index', () => {
  it('answers like SQL on a fresh catalog', () => {
    expect(memory.catalogIndexStatus()).toEqual({ ready: true, items: 3000 });
    compare(new Rng(1), 300);
  });

  it('stays equal through incremental changes', () => {
    const rng = new Rng(2);
    let nextId = 9_000_000;
    const live = new Map(items.map((item) => [item.itemId, item]));
    for (let round = 0; round < 25; round++) {
      const ids = [...live.keys()];
      const pick = () => ids[rng.int(0, ids.length - 1)] as number;
      const upserts: Item[] = [];
      for (let k = rng.int(0, 20); k > 0; k--) {
        const base = live.get(pick()) as Item;
        const variant = rng.int(0, 4);
        const changed: Item =
          variant === 0
            ? { ...base, price: rng.int(1, 500_000) }
            : variant === 1
              ? { ...base, float: rng.int(0, 3) === 0 ? null : rng.int(0, 1000) / 1000, paintSeed: rng.int(0, 3) === 0 ? null : rng.int(0, 999) }
              : variant === 2
                ? { ...base, market_hash_name: `${base.market_hash_name} Renamed ${rng.int(0, 3)}`, phase: rng.int(0, 1) ? 'Ruby' : null }
                : variant === 3
                  ? { ...base, stickers: [{ name: `Sticker | Crown ${rng.int(0, 5)}`, img: 'x', slot: 0, wear: null, wearPercent: null }] }
                  : { ...base, itemId: nextId++, rarityColor: null };
        upserts.push(changed);
        live.set(changed.itemId, changed);
      }
      writer.applyItemUpserts(upserts);
      const removals = Array.from({ length: rng.int(0, 10) }, pick);
      writer.applyItemRemovals(removals);
      for (const id of removals) live.delete(id);
      const remaining = [...live.keys()];
      writer.applyPriceChanges(
        Array.from({ length: rng.int(0, 30) }, () => ({ itemId: remaining[rng.int(0, remaining.length - 1)] as number, price: rng.int(1, 900_000) })),
      );
      // Items that were removed come back now and then.
      if (round % 5 === 4 && removals.length > 0) {
        const back = items.filter((item) => removals.includes(item.itemId));
        writer.applyItemUpserts(back);
        for (const item of back) live.set(item.itemId, item);
      }
      compare(rng, 12);
    }
    expect(memory.catalogIndexStatus().items).toBe(live.size);
  });

  it('takes live prices from the change log, in order with the other changes of the same items', () => {
    const held = memory.queryCatalog(catalogQuerySchema.parse({ sort: 'price', limit: 40 })).rows.map((row) => row.itemId);
    const [a, b, c, d, e] = held as [number, number, number, number, number];
    const itemOf = (itemId: number) => items.find((item) => item.itemId === itemId) ?? (sql.findItemsByIds([itemId])[0] as Item);
    // All between two queries, so one refresh sees every entry:
    writer.applyPriceChanges([{ itemId: a, price: 777_001 }]); // a: price twice, the last counts
    writer.applyPriceChanges([{ itemId: a, price: 5 }]);
    writer.applyPriceChanges([{ itemId: b, price: 777_002 }]); // b: priced, then sold
    writer.applyItemRemovals([b]);
    writer.applyItemRemovals([c]); // c: sold, back at another price, then priced live
    writer.applyItemUpserts([{ ...itemOf(c), price: 12 }]);
    writer.applyPriceChanges([{ itemId: c, price: 777_003 }]);
    writer.applyPriceChanges([{ itemId: d, price: 777_004 }]); // d: priced live, then upserted whole
    writer.applyItemUpserts([{ ...itemOf(d), price: 3 }]);
    writer.applyPriceChanges([{ itemId: e, price: itemOf(e).price }]); // e: no move at all
    const rng = new Rng(3);
    compare(rng, 40);
    for (const desc of [false, true]) {
      const query = catalogQuerySchema.parse({ sort: 'price', direction: desc ? 'desc' : 'asc', limit: 1000 });
      expect(memory.queryCatalog(query).rows.map((row) => [row.itemId, row.price])).toEqual(sql.queryCatalog(query).rows.map((row) => [row.itemId, row.price]));
    }
    const prices = new Map(sql.findItemsByIds([a, c, d]).map((item) => [item.itemId, item.price]));
    expect([prices.get(a), prices.get(c), prices.get(d)]).toEqual([5, 777_003, 3]);
    expect(memory.queryCatalog(catalogQuerySchema.parse({ sort: 'price', priceMin: 777_002, priceMax: 777_002 })).total).toBe(0);
  });

  it('follows a re-sync: repricings come with their new price in the log, other changes are read again', async () => {
    const ids = sql.queryCatalog(catalogQuerySchema.parse({ sort: 'price', limit: 1000 })).rows.map((row) => row.itemId);
    const held = sql.findItemsByIds(ids);
    const total = sql.queryCatalog(catalogQuerySchema.parse({ limit: 1 })).total;
    expect(held.length).toBe(Math.min(1000, total));
    const rng = new Rng(5);
    // The list: 1000 of the held items (the rest are sold), 200 repriced, 5 with another float and price.
    const listed = held.map((item, i) =>
      i < 200 ? { ...item, price: item.price + 1 + rng.int(0, 50_000) } : i < 205 ? { ...item, price: item.price + 7, float: item.float === null ? 0.5 : item.float / 2 } : item,
    );
    const body = JSON.stringify({ totalItems: listed.length, totalValue: listed.reduce((sum, item) => sum + item.price, 0), items: listed, lastUpdate: '2026-02-01T00:00:00.000Z' });
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const seqBefore = writer.db.prepare('SELECT max(seq) FROM item_changes').pluck().get() as number;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/list`;
    const result = await writer.syncCatalog({ url, headers: {} }, { signal: new AbortController().signal, progress: () => {} }).finally(
      () => new Promise((done) => server.close(done)),
    );
    expect(result).toMatchObject({ ok: true, mode: 'incremental', added: 0, removed: total - listed.length });
    // 205, and any item an earlier test repriced live (its stored JSON still has its old price).
    const updated = result.ok ? result.updated : 0;
    expect(updated).toBeGreaterThanOrEqual(205);
    const logged = writer.db.prepare('SELECT count(*) FROM item_changes WHERE seq > ? AND price IS NOT NULL').pluck().get(seqBefore) as number;
    // Every repricing logs its price; the 5 with another float are read again.
    expect(logged).toBe(updated - 5);
    compare(new Rng(6), 60);
    for (const sort of ['price', 'float'] as const) {
      const query = catalogQuerySchema.parse({ sort, limit: 1000 });
      expect(memory.queryCatalog(query).rows.map((row) => [row.itemId, row.price, row.float])).toEqual(sql.queryCatalog(query).rows.map((row) => [row.itemId, row.price, row.float]));
    }
    expect(memory.catalogIndexStatus().items).toBe(listed.length);
  });

  it('defers the repair of columns no query sorted by lately, and sorts one anew past the moves it may hold', async () => {
    // A reader of its own: its index has served no query yet, so every column defers its repairs.
    const fresh = new ReaderService(file);
    try {
      await until(() => fresh.catalogIndexStatus().ready);
      const held = writer.db.prepare('SELECT itemId FROM items_live').pluck().all() as number[];
      expect(held.length).toBeGreaterThan(500);
      const rng = new Rng(9);
      // Every held item moves at each refresh, until past the 100,000 moved slots a column may hold deferred.
      for (let round = 0; round < Math.ceil(110_000 / held.length); round++) {
        writer.applyPriceChanges(held.map((itemId) => ({ itemId, price: rng.int(1, 900_000) })));
        fresh.catalogIndexStatus(); // a refresh, as the reader's upkeep makes one
      }
      for (const sort of ['price', 'listedAt', 'name'] as const) {
        for (const direction of ['asc', 'desc'] as const) {
          for (const offset of [0, 1200]) {
            const query = catalogQuerySchema.parse({ sort, direction, offset, limit: 200 });
            expect(fresh.queryCatalog(query).rows.map((row) => row.itemId), JSON.stringify(query)).toEqual(sql.queryCatalog(query).rows.map((row) => row.itemId));
          }
        }
      }
      // Sorted by lately: repaired at each refresh from now on, and still equal.
      writer.applyPriceChanges(held.slice(0, 500).map((itemId) => ({ itemId, price: rng.int(1, 900_000) })));
      fresh.catalogIndexStatus();
      const query = catalogQuerySchema.parse({ sort: 'price', limit: 300 });
      expect(fresh.queryCatalog(query).rows.map((row) => row.itemId)).toEqual(sql.queryCatalog(query).rows.map((row) => row.itemId));
    } finally {
      fresh.close();
    }
  });

  it('asks for a rebuild when the log holds more than it repairs, or was trimmed past it', () => {
    const db = openReadConnection(file);
    try {
      const built = () => {
        const build = CatalogIndex.builder(db);
        while (!build.step()) {
          // one bounded step at a time, as the reader does between queries
        }
        expect(build.index.ready).toBe(true);
        return build.index;
      };
      // Items on sale now (the tests before removed some).
      const held = writer.db.prepare<[], number>('SELECT itemId FROM items_live ORDER BY itemId LIMIT 10').pluck().all() as number[];
      let index = built();
      expect(index.refresh(db)).toBe('fresh');
      // A few live price changes: repaired in place.
      writer.applyPriceChanges(held.slice(0, 3).map((itemId, i) => ({ itemId, price: 777_000 + i })));
      expect(index.refresh(db)).toBe('updated');
      expect(index.refresh(db)).toBe('fresh');
      // Trimmed past the index (the log is trimmed from its start): the entry after its last one is gone.
      writer.applyPriceChanges([{ itemId: held[3] as number, price: 778_000 }]);
      writer.applyPriceChanges([{ itemId: held[4] as number, price: 779_000 }]);
      writer.db.prepare('DELETE FROM item_changes WHERE seq < ?').run(writer.lastChange());
      expect(index.refresh(db)).toBe('rebuild');
      // More than 200,000 entries since the last refresh: cheaper to rebuild than to repair.
      index = built();
      writer.db
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
           INSERT INTO item_changes (itemId, price) SELECT ?, 700000 + i FROM n`,
        )
        .run(held[5]);
      expect(index.refresh(db)).toBe('rebuild');
    } finally {
      db.close();
      writer.logFullReload();
    }
  });

  it('keeps up with a backlog at its next check, however long its share of the thread would make it wait', async () => {
    // A share that puts the next upkeep 10 s away after any refresh; a backlog of 5,000 changes overrides it.
    const upkept = new ReaderService(file, { firstBuildDelayMs: 0, upkeep: { minMs: 40, maxMs: 10_000, shareDivisor: 1e9, backlogChanges: 5_000 } });
    const pending = () => (upkept as unknown as { index: CatalogIndex | null }).index?.pendingChanges(upkept.db) ?? -1;
    try {
      await until(() => upkept.catalogIndexStatus().ready);
      await new Promise((resolve) => setTimeout(resolve, 200)); // an upkeep ran: the next one is due in ~10 s
      const held = writer.db.prepare<[], number>('SELECT itemId FROM items_live ORDER BY itemId LIMIT 3000').pluck().all() as number[];
      writer.applyPriceChanges(held.slice(0, 100).map((itemId, i) => ({ itemId, price: 880_000 + i })));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(pending()).toBe(100); // a small backlog waits for its turn
      const burst = Array.from({ length: 6000 }, (_, i) => ({ itemId: held[i % held.length] as number, price: 890_000 + i }));
      for (let i = 0; i < burst.length; i += 1000) writer.applyPriceChanges(burst.slice(i, i + 1000));
      expect(pending()).toBe(6100);
      await until(() => pending() === 0, 3000); // a large one is applied at the next check
    } finally {
      upkept.close();
    }
  });

  it('filters by sticker name exactly while items gain and lose stickers, also past the point where its lists are built anew', () => {
    const rng = new Rng(5);
    const stickerQueries = ['crown', 'holo', 'titan', 'gold', 'katowice 2014'];
    const compareStickers = () => {
      for (const stickerName of stickerQueries) {
        for (const sort of ['price', 'stickers'] as const) {
          const query = catalogQuerySchema.parse({ stickerName, sort, limit: 50 });
          const viaIndex = memory.queryCatalog(query);
          expect({ total: viaIndex.total, ids: viaIndex.rows.map((r) => r.itemId) }, stickerName).toEqual({
            total: sql.queryCatalog(query).total,
            ids: sql.queryCatalog(query).rows.map((r) => r.itemId),
          });
        }
      }
    };
    const sticker = (name: string, slot: number) => ({ name: `Sticker | ${name}`, img: 'x', slot, wear: null, wearPercent: null });
    const stickersOf = () =>
      rng.int(0, 3) === 0
        ? []
        : Array.from({ length: rng.int(1, 7) }, (_, slot) => sticker(rng.pick(['Crown (Foil)', 'Titan (Holo)', 'Gold Web', 'Katowice 2014', 'Other']), slot));
    // 1,200 distinct items swap their stickers, in steps: a few hundred that lost a sticker are tested
    // slot by slot; past 1,024 the index builds its sticker lists anew.
    const chosen = items.filter((_, i) => i % 2 === 0).slice(0, 1200);
    for (const round of [0, 1, 2]) {
      for (const [from, to] of [
        [0, 100],
        [100, 600],
        [600, 1200],
      ] as const) {
        writer.applyItemUpserts(chosen.slice(from, to).map((item) => ({ ...item, stickers: round === 2 ? [sticker('Gold Web', 0)] : stickersOf() })));
        compareStickers();
      }
    }
  });

  it('rebuilds after a reload marker and answers like SQL again', async () => {
    writer.logFullReload();
    // The next query sees the marker, drops the index and answers in SQL while it rebuilds.
    compare(new Rng(3), 5);
    await until(() => memory.catalogIndexStatus().ready);
    compare(new Rng(4), 100);
  });
});
