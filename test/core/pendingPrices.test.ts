/**
 * Pending live prices (migration 016): a live price change waits in
 * `item_prices_pending` until the writer folds it into `item_prices` with the
 * price moves. Readers must not be able to tell where a price is: the catalog
 * (SQL and the in-memory index), its totals, an item's detail, a look-up by id,
 * a removal's "price it left at", a re-listing, a whole-row rewrite and the next
 * sync answer alike before and after the fold, and after a reopen. Real SQLite
 * file, reader and writer services in-process, the list over real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { FOLD_PRICES_AT, FOLD_PRICES_SLICE } from '../../src/main/core/store/worker/rows';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { syncWriterWithList } from '../support/listServer';
import { closeLiveStore, openLiveStore, shownCatalog } from '../support/liveStore';

const dir = mkdtempSync(join(tmpdir(), 'pending-prices-'));
const file = join(dir, 'pending.sqlite');
let writer: WriterService;
let reader: ReaderService;
let indexed: ReaderService;
let catalog: Item[];

beforeAll(async () => {
  catalog = [...generateCatalog({ seed: 16, count: 200, imageBaseUrl: 'http://sandbox.invalid/img' })];
  ({ writer, reader, indexed } = await openLiveStore(file, catalog));
});

afterAll(() => closeLiveStore(dir, indexed, reader, writer));

const byId = (itemId: number) => catalog.find((item) => item.itemId === itemId) as Item;
const count = (table: string) => writer.db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const fold = () => writer.db.transaction(() => writer.foldPendingPrices())();

/** Everything a reader shows of prices (shownCatalog), rows with their last move. */
const shown = () => shownCatalog(reader, indexed, catalog.map((item) => item.itemId), 'lastMove');

const priceOf = (view: ReturnType<typeof shown>, itemId: number) => view.details.find((detail) => detail[0] === itemId)?.[1];

describe('pending live prices', () => {
  it('read the same before and after the fold, through removals, re-listings, rewrites, a reopen and a sync', async () => {
    const ids = catalog.map((item) => item.itemId);
    const [foldedThenPending, pendingOnly, removedAfterFold, relisted, rewritten] = ids.slice(20, 25) as [number, number, number, number, number];
    const burst = ids.slice(40, 90);

    // Price changes wait in the pending table, not in item_prices; every reader shows them.
    writer.applyPriceChanges(burst.map((itemId, i) => ({ itemId, price: 50_000 + i })));
    writer.applyPriceChanges([
      { itemId: foldedThenPending, price: 1_111 },
      { itemId: removedAfterFold, price: 2_222 },
    ]);
    expect(count('item_prices_pending')).toBe(burst.length + 2);
    expect(count('item_prices')).toBe(0);
    let view = shown();
    for (const [i, itemId] of burst.entries()) expect(priceOf(view, itemId)).toBe(50_000 + i);
    const beforeFold = view;

    // The fold moves them into item_prices in one pass: nothing a reader sees changes.
    fold();
    expect(count('item_prices_pending')).toBe(0);
    expect(count('item_prices')).toBe(burst.length + 2);
    expect(shown()).toEqual(beforeFold);

    // A pending price over a folded one wins, with its move; a price change after the fold is pending again.
    writer.applyPriceChanges([
      { itemId: foldedThenPending, price: 999 },
      { itemId: removedAfterFold, price: 3_333 },
      { itemId: pendingOnly, price: byId(pendingOnly).price + 7 },
    ]);
    view = shown();
    expect(priceOf(view, foldedThenPending)).toBe(999);
    expect(view.rows.find((row) => row[0] === foldedThenPending)?.[2]).toBe('down');
    expect(view.rows.find((row) => row[0] === pendingOnly)?.[2]).toBe('up');

    // Removed with a pending price over a folded one: sold at the pending price, before and after the removals' fold.
    expect(writer.applyItemRemovals([removedAfterFold]).removed).toEqual([removedAfterFold]);
    expect(reader.getItem(removedAfterFold)).toMatchObject({ onSale: false, item: { ...byId(removedAfterFold), price: 3_333 } });
    writer.db.transaction(() => writer.foldRemovals())();
    expect(reader.getItem(removedAfterFold)).toMatchObject({ onSale: false, item: { ...byId(removedAfterFold), price: 3_333 } });

    // Removed with a pending price, then listed again at a new price: the re-listing's price, not the pending one.
    writer.applyPriceChanges([{ itemId: relisted, price: 4_444 }]);
    writer.applyItemRemovals([relisted]);
    writer.applyItemUpserts([{ ...byId(relisted), price: 5_555 }]);
    expect(reader.getItem(relisted)).toMatchObject({ onSale: true, item: { ...byId(relisted), price: 5_555 } });
    // Rewritten whole (another field changed) with a pending price: the rewrite's price, and no override left.
    writer.applyPriceChanges([{ itemId: rewritten, price: 6_666 }]);
    const edited = { ...byId(rewritten), price: 7_777, paintSeed: 4242 };
    writer.applyItemUpserts([edited]);
    expect(reader.getItem(rewritten)?.item).toEqual(edited);
    expect(writer.db.prepare('SELECT 1 FROM item_prices_pending WHERE itemId = ? UNION ALL SELECT 1 FROM item_prices WHERE itemId = ?').all(rewritten, rewritten)).toEqual([]);
    fold();
    expect(reader.getItem(relisted)?.item.price).toBe(5_555);
    expect(reader.getItem(rewritten)?.item).toEqual(edited);

    // Folded a slice at a time (an itemId range from where the last one ended, round the table): after each
    // slice the readers answer as before, and a round leaves nothing pending.
    const many = ids.slice(100, 200);
    writer.applyPriceChanges(many.map((itemId, i) => ({ itemId, price: 90_000 + i })));
    const beforeSlices = shown();
    const pending = count('item_prices_pending');
    // A slice starts where the last one ended: one item folded first leaves the round starting mid-table.
    expect(writer.db.transaction(() => writer.foldPendingPriceSlice(1))()).toBe(1);
    let folded = 1;
    const sizes: number[] = [];
    while (folded < pending) {
      expect(sizes.length).toBeLessThan(10);
      const slice = writer.db.transaction(() => writer.foldPendingPriceSlice(17))();
      sizes.push(slice);
      folded += slice;
      expect(count('item_prices_pending')).toBe(pending - folded);
      expect(shown()).toEqual(beforeSlices);
    }
    expect(sizes).toEqual([17, 17, 17, 17, 17, pending - 1 - 5 * 17]);
    // Round the table: a price changed behind where the slices went is folded by the next round.
    const lowest = Math.min(...many);
    writer.applyPriceChanges([{ itemId: lowest, price: 91_234 }]);
    const behind = shown();
    expect(writer.db.transaction(() => writer.foldPendingPriceSlice(17))()).toBe(1);
    expect(shown()).toEqual(behind);
    expect(priceOf(behind, lowest)).toBe(91_234);
    expect(writer.db.transaction(() => writer.foldPendingPriceSlice(FOLD_PRICES_SLICE))()).toBe(0);

    // Reopened with prices pending: the same catalog.
    writer.applyPriceChanges([{ itemId: pendingOnly, price: 8_888 }]);
    const beforeReopen = shown();
    writer.close();
    writer = new WriterService(file);
    expect(count('item_prices_pending')).toBe(1);
    expect(shown()).toEqual(beforeReopen);

    // The next sync reads an item with a pending price again (its stored JSON has the old price): the list's price wins.
    const listed = catalog.filter((item) => item.itemId !== removedAfterFold).map((item) => (item.itemId === rewritten ? edited : item));
    const neverFolded = ids[30] as number;
    writer.applyPriceChanges([
      { itemId: foldedThenPending, price: 12_345 },
      { itemId: neverFolded, price: 54_321 },
    ]);
    expect(writer.db.prepare('SELECT 1 FROM item_prices WHERE itemId = ?').get(neverFolded)).toBeUndefined();
    await syncWriterWithList(writer, listed);
    expect(count('item_prices_pending')).toBe(0);
    view = shown();
    expect(view.details.filter((detail) => detail[2]).map((detail) => [detail[0], detail[1]])).toEqual(listed.map((item) => [item.itemId, item.price]));
  });
});

describe('pending live prices under a steady flow', () => {
  it('stay at most FOLD_PRICES_AT rows when every call brings more new ones than a slice, and read right after every fold', () => {
    const flowDir = mkdtempSync(join(tmpdir(), 'pending-flow-'));
    const flowWriter = new WriterService(join(flowDir, 'flow.sqlite'));
    const flowReader = new ReaderService(join(flowDir, 'flow.sqlite'), { catalogIndex: false });
    try {
      const items = [...generateCatalog({ seed: 17, count: FOLD_PRICES_AT + 40_000, imageBaseUrl: 'http://sandbox.invalid/img' })];
      flowWriter.applyItemUpserts(items);
      const pendingRows = () => flowWriter.db.prepare<[], number>('SELECT count(*) FROM item_prices_pending').pluck().get() as number;
      // Calls of 1.4 slices of changes, each to an item not changed before (a market walking its catalog):
      // a fixed slice per check folded 5,000 of every 7,000 new rows, and the table grew past its cap.
      const perCall = Math.round(FOLD_PRICES_SLICE * 1.4);
      let next = 0;
      let price = 1_000_000;
      const expected = new Map<number, number>();
      for (let call = 0; call < Math.ceil(items.length / perCall); call++) {
        const changes = items.slice(next, next + perCall).map((item) => ({ itemId: item.itemId, price: price++ }));
        next += perCall;
        for (const change of changes) expected.set(change.itemId, change.price);
        flowWriter.applyPriceChanges(changes);
        expect(pendingRows()).toBeLessThanOrEqual(FOLD_PRICES_AT);
      }
      expect(flowWriter.db.prepare<[], number>('SELECT count(*) FROM item_prices').pluck().get()).toBeGreaterThan(0);
      const sample = items.filter((_, i) => i % 97 === 0).map((item) => item.itemId);
      expect(new Map(flowReader.findItemsByIds(sample).map((item) => [item.itemId, item.price]))).toEqual(new Map(sample.map((itemId) => [itemId, expected.get(itemId)])));
      expect(flowReader.catalogInfo().totalValue).toBe([...expected.values()].reduce((sum, value) => sum + value, 0));
    } finally {
      flowReader.close();
      flowWriter.close();
      rmSync(flowDir, { recursive: true, force: true });
    }
  });
});
