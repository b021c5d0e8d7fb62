/**
 * Live removals and re-listings (migration 013): a removed item is marked, its row
 * kept until the writer folds it into sold_items; an item listed again at a new
 * price is an override with its own listing time. Readers must not be able to tell:
 * the catalog, its totals, an item's detail (on sale or sold, at the price it left
 * at), a look-up by id and the in-memory index answer as if the row were deleted,
 * before and after a fold, a sync and a reopen. Real SQLite file, reader and writer
 * services in-process, the list over real HTTP.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { catalogQuerySchema, type CatalogQuery } from '../../src/shared/ipc/contract';
import { type ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { syncWriterWithList } from '../support/listServer';
import { closeLiveStore, openLiveStore } from '../support/liveStore';

const dir = mkdtempSync(join(tmpdir(), 'live-removals-'));
const file = join(dir, 'removals.sqlite');
let writer: WriterService;
let reader: ReaderService;
let indexed: ReaderService;
let catalog: Item[];

beforeAll(async () => {
  catalog = [...generateCatalog({ seed: 11, count: 400, imageBaseUrl: 'http://sandbox.invalid/img' })];
  ({ writer, reader, indexed } = await openLiveStore(file, catalog.slice(0, 300)));
});

afterAll(() => closeLiveStore(dir, indexed, reader, writer));

const parsed = (query: CatalogQuery) => catalogQuerySchema.parse(query);
const byId = (itemId: number) => catalog.find((item) => item.itemId === itemId) as Item;

/** What a reader shows of the whole catalog: ids by price (SQL and the in-memory index alike), count and value. */
async function shown(): Promise<{ ids: number[]; total: number; value: number }> {
  const query = parsed({ sort: 'price', direction: 'asc', offset: 0, limit: 1000 });
  const page = reader.queryCatalog(query);
  const fromIndex = indexed.queryCatalog(query);
  expect(fromIndex.rows.map((row) => [row.itemId, row.price, row.listedAt])).toEqual(page.rows.map((row) => [row.itemId, row.price, row.listedAt]));
  const info = reader.catalogInfo();
  expect(info.totalItems).toBe(page.rows.length);
  expect(info.totalValue).toBe(page.rows.reduce((sum, row) => sum + row.price, 0));
  return { ids: page.rows.map((row) => row.itemId).sort((a, b) => a - b), total: page.total, value: info.totalValue };
}

describe('live removals and re-listings', () => {
  it('read as removed and listed again, before and after the fold, a sync and a reopen', async () => {
    const held = catalog.slice(0, 300).map((item) => item.itemId);
    const [repricedThenRemoved, removed, relistedSame, relistedChanged, relistedThenEdited] = held.slice(10, 15) as [number, number, number, number, number];

    // Removed live: gone from the catalog, sold at the price it left at (a live price change before it counts).
    writer.applyPriceChanges([{ itemId: repricedThenRemoved, price: 4_321 }]);
    const removal = writer.applyItemRemovals([repricedThenRemoved, removed, relistedSame, relistedChanged, relistedThenEdited, 999_999_999]);
    expect(removal.removed).toEqual([repricedThenRemoved, removed, relistedSame, relistedChanged, relistedThenEdited]);
    // A second removal of the same item is no change.
    expect(writer.applyItemRemovals([removed]).removed).toEqual([]);
    let view = await shown();
    expect(view.ids).toEqual(held.filter((id) => ![repricedThenRemoved, removed, relistedSame, relistedChanged, relistedThenEdited].includes(id)).sort((a, b) => a - b));
    const soldDetail = reader.getItem(repricedThenRemoved);
    expect(soldDetail?.onSale).toBe(false);
    expect(soldDetail?.item).toEqual({ ...byId(repricedThenRemoved), price: 4_321 });
    expect(reader.findItemsByIds([removed, repricedThenRemoved]).map((item) => [item.itemId, item.price])).toEqual(
      [
        [removed, byId(removed).price],
        [repricedThenRemoved, 4_321],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    // A burst that fails after its removals (a malformed item) is refused whole: nothing it removed is lost.
    const survivors = held.slice(200, 203);
    const beforeFailure = await shown();
    expect(() =>
      writer.applyItemChanges([
        { kind: 'removals', itemIds: survivors },
        { kind: 'upserts', items: [{ ...byId(survivors[0] as number), market_hash_name: null as unknown as string }] },
      ]),
    ).toThrow();
    expect(await shown()).toEqual(beforeFailure);
    for (const itemId of survivors) expect(reader.getItem(itemId)).toMatchObject({ onSale: true, item: byId(itemId) });
    // A price change of a removed item is one of an item the cache does not hold.
    expect(writer.applyPriceChanges([{ itemId: removed, price: 1 }]).unknown).toEqual([removed]);

    // Listed again: at a new price only (kept row), with another field changed (row rewritten), then edited.
    const before = Date.now();
    const again = [
      { ...byId(relistedSame), price: 70_001 },
      { ...byId(relistedChanged), price: 70_002, float: 0.123456 },
      { ...byId(relistedThenEdited), price: 70_003 },
    ];
    const upsert = writer.applyItemUpserts(again);
    expect(upsert.upserted.map((row) => [row.itemId, row.price, row.lastMove])).toEqual(again.map((item) => [item.itemId, item.price, null]));
    expect(upsert.prices).toEqual(again.map((item) => ({ itemId: item.itemId, price: item.price, previous: null })));
    for (const item of again) {
      const detail = reader.getItem(item.itemId);
      expect(detail?.onSale).toBe(true);
      expect(detail?.item).toEqual(item);
    }
    const relistedAt = reader.queryCatalog(parsed({ sort: 'listedAt', direction: 'desc', offset: 0, limit: 3 })).rows;
    expect(relistedAt.map((row) => row.itemId).sort()).toEqual(again.map((item) => item.itemId).sort());
    for (const row of relistedAt) expect(Date.parse(row.listedAt)).toBeGreaterThanOrEqual(before - 1);
    const listedAgainAt = relistedAt.find((row) => row.itemId === relistedThenEdited)?.listedAt;
    // An edit of a re-listed item (a whole-row write) keeps the re-listing's time.
    const edited = { ...byId(relistedThenEdited), price: 70_004, paintSeed: 4242 };
    writer.applyItemUpserts([edited]);
    expect(reader.getItem(relistedThenEdited)?.item).toEqual(edited);
    expect(reader.queryCatalog(parsed({ sort: 'listedAt', direction: 'desc', offset: 0, limit: 3 })).rows.find((row) => row.itemId === relistedThenEdited)?.listedAt).toBe(
      listedAgainAt,
    );
    expect(indexed.queryCatalog(parsed({ search: byId(relistedSame).market_hash_name, limit: 1000 })).rows.map((row) => row.itemId)).toContain(relistedSame);
    view = await shown();
    expect(view.ids).toContain(relistedSame);
    expect(view.ids).not.toContain(removed);

    // Folded a slice at a time (the lowest ids first): nothing a reader sees changes.
    const moreRemoved = held.slice(100, 140);
    writer.applyItemRemovals(moreRemoved);
    const beforeFold = await shown();
    const soldBefore = reader.findItemsByIds([...moreRemoved, removed, repricedThenRemoved]);
    const marked = () => writer.db.prepare<[], number>('SELECT count(*) FROM live_removals').pluck().get() as number;
    expect(marked()).toBe(42);
    expect(writer.db.transaction(() => writer.foldRemovals(15))()).toBe(15);
    expect(marked()).toBe(27);
    expect(await shown()).toEqual(beforeFold);
    expect(reader.findItemsByIds([...moreRemoved, removed, repricedThenRemoved])).toEqual(soldBefore);
    expect(reader.getItem(repricedThenRemoved)?.item.price).toBe(4_321);

    // Reopened with marks pending: the same catalog and totals.
    writer.close();
    writer = new WriterService(file);
    expect(await shown()).toEqual(beforeFold);

    // A sync folds the rest first: the list's catalog, removed items sold, re-listings keep their time.
    const list = catalog
      .slice(0, 320)
      .filter((item) => ![removed, repricedThenRemoved, ...moreRemoved].includes(item.itemId))
      .map((item) => again.find((a) => a.itemId === item.itemId && a.itemId !== relistedThenEdited) ?? (item.itemId === relistedThenEdited ? edited : item));
    expect(await syncWriterWithList(writer, list)).toMatchObject({ ok: true, mode: 'incremental' });
    expect(marked()).toBe(0);
    const synced = await shown();
    expect(synced.ids).toEqual(list.map((item) => item.itemId).sort((a, b) => a - b));
    expect(synced.value).toBe(list.reduce((sum, item) => sum + item.price, 0));
    expect(reader.getItem(repricedThenRemoved)).toMatchObject({ onSale: false, item: { ...byId(repricedThenRemoved), price: 4_321 } });
    expect(reader.getItem(moreRemoved[0] as number)).toMatchObject({ onSale: false, item: byId(moreRemoved[0] as number) });
    const listedAtAfterSync = new Map(reader.queryCatalog(parsed({ sort: 'listedAt', direction: 'desc', offset: 0, limit: 1000 })).rows.map((row) => [row.itemId, row.listedAt]));
    expect(listedAtAfterSync.get(relistedThenEdited)).toBe(listedAgainAt);
    expect(listedAtAfterSync.get(relistedSame)).toBe(relistedAt.find((row) => row.itemId === relistedSame)?.listedAt);
    // Searchable by name again (its name's row went with the removal and came back with the re-listing).
    expect(reader.queryCatalog(parsed({ search: byId(relistedSame).market_hash_name, limit: 1000 })).rows.map((row) => row.itemId)).toContain(relistedSame);
    // The next sync of the same list changes nothing: the cache equals the list.
    expect(await syncWriterWithList(writer, list)).toMatchObject({ ok: true, added: 0, updated: 0, removed: 0 });
  });
});
