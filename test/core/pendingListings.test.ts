/**
 * Pending live removals and re-listings (migration 017): like a price change, a
 * removal's mark and a re-listing's override wait in `item_prices_pending` and
 * reach `item_prices` with the fold, in item order. Readers must not be able to
 * tell where one is: the catalog (SQL and the in-memory index) with its listing
 * times, totals, an item's detail (on sale or sold, at what price) and a look-up
 * by id answer alike before and after the fold, through every order of removal,
 * re-listing and price change, the removals' fold and a reopen. Real SQLite file,
 * reader and writer services in-process.
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
import { closeLiveStore, openLiveStore, shownCatalog } from '../support/liveStore';

const dir = mkdtempSync(join(tmpdir(), 'pending-listings-'));
const file = join(dir, 'pending.sqlite');
let writer: WriterService;
let reader: ReaderService;
let indexed: ReaderService;
let catalog: Item[];

beforeAll(async () => {
  catalog = [...generateCatalog({ seed: 17, count: 120, imageBaseUrl: 'http://sandbox.invalid/img' })];
  ({ writer, reader, indexed } = await openLiveStore(file, catalog));
});

afterAll(() => closeLiveStore(dir, indexed, reader, writer));

const byId = (itemId: number) => catalog.find((item) => item.itemId === itemId) as Item;
const count = (sql: string, ...params: number[]) => writer.db.prepare<number[], number>(sql).pluck().get(...params) as number;
const foldPending = () => writer.db.transaction(() => writer.foldPendingPrices())();

/** Everything a reader shows (shownCatalog), rows with their listing time. */
const shown = () => shownCatalog(reader, indexed, catalog.map((item) => item.itemId), 'listedAt');
type Shown = ReturnType<typeof shown>;

const detailOf = (view: Shown, itemId: number) => view.details.find((detail) => detail[0] === itemId);
const listedAtOf = (view: Shown, itemId: number) => view.rows.find((row) => row[0] === itemId)?.[2];
const marks = () => count('SELECT count(*) FROM live_removals');

describe('pending live removals and re-listings', () => {
  it('read the same before and after the fold, in every order, through the removals fold and a reopen', async () => {
    const ids = catalog.map((item) => item.itemId);
    const [removed, removedThenFoldedThenRelisted, relistedThenRepriced, relistedThenRemoved, removedRelistedRemoved] = ids.slice(10, 15) as [
      number,
      number,
      number,
      number,
      number,
    ];

    // A removal waits in the pending table: item_prices is untouched, readers see it sold at the price it left at.
    writer.applyPriceChanges([{ itemId: removed, price: 1_234 }]);
    writer.applyItemRemovals([removed, removedThenFoldedThenRelisted, relistedThenRepriced, relistedThenRemoved, removedRelistedRemoved]);
    expect(count('SELECT count(*) FROM item_prices')).toBe(0);
    expect(count('SELECT count(*) FROM item_prices_pending WHERE removed_at IS NOT NULL')).toBe(5);
    expect(marks()).toBe(5);
    let view = shown();
    expect(detailOf(view, removed)).toEqual([removed, 1_234, false]);
    expect(view.rows.map((row) => row[0])).not.toContain(removedThenFoldedThenRelisted);
    const afterRemovals = view;
    foldPending();
    expect(count('SELECT count(*) FROM item_prices_pending')).toBe(0);
    expect(count('SELECT count(*) FROM item_prices WHERE removed_at IS NOT NULL')).toBe(5);
    expect(marks()).toBe(5);
    expect(shown()).toEqual(afterRemovals);

    // Re-listed over a folded mark (pending), re-listed then repriced, re-listed then removed again, and
    // removed → re-listed → removed within the pending table.
    const relistStarted = new Date().toISOString();
    writer.applyItemUpserts([
      { ...byId(removedThenFoldedThenRelisted), price: 2_001 },
      { ...byId(relistedThenRepriced), price: 2_002 },
      { ...byId(relistedThenRemoved), price: 2_003 },
      { ...byId(removedRelistedRemoved), price: 2_004 },
    ]);
    writer.applyPriceChanges([{ itemId: relistedThenRepriced, price: 3_002 }]);
    writer.applyItemRemovals([relistedThenRemoved, removedRelistedRemoved]);
    expect(count('SELECT count(*) FROM item_prices_pending')).toBe(4);
    expect(marks()).toBe(3);
    view = shown();
    expect(detailOf(view, removedThenFoldedThenRelisted)).toEqual([removedThenFoldedThenRelisted, 2_001, true]);
    expect(detailOf(view, relistedThenRepriced)).toEqual([relistedThenRepriced, 3_002, true]);
    expect(detailOf(view, relistedThenRemoved)).toEqual([relistedThenRemoved, 2_003, false]);
    expect(detailOf(view, removedRelistedRemoved)).toEqual([removedRelistedRemoved, 2_004, false]);
    // A re-listing's time is the listing's (a later price change keeps it).
    for (const itemId of [removedThenFoldedThenRelisted, relistedThenRepriced]) expect(listedAtOf(view, itemId) as string >= relistStarted).toBe(true);
    expect(listedAtOf(afterRemovals, ids[0] as number)).toBe(listedAtOf(view, ids[0] as number));
    const beforeFold = view;
    foldPending();
    expect(shown()).toEqual(beforeFold);
    expect(marks()).toBe(3);

    // Reopened with marks pending: the writer counts them again, and the removals' fold takes every one.
    writer.applyItemRemovals([ids[20] as number]);
    writer.applyItemUpserts([{ ...byId(removed), price: 4_000 }]);
    const beforeReopen = shown();
    writer.close();
    writer = new WriterService(file);
    expect(shown()).toEqual(beforeReopen);
    expect(marks()).toBe(3);
    expect(writer.db.transaction(() => writer.foldRemovals())()).toBe(3);
    expect(marks()).toBe(0);
    expect(count('SELECT count(*) FROM item_prices_pending')).toBe(0);
    expect(shown()).toEqual(beforeReopen);
    expect(detailOf(beforeReopen, removed)).toEqual([removed, 4_000, true]);
  });
});

describe('pending removals under a steady flow', () => {
  it('keep the pending table at most FOLD_PRICES_AT rows, and read right after every fold', () => {
    const flowDir = mkdtempSync(join(tmpdir(), 'pending-removals-flow-'));
    const flowWriter = new WriterService(join(flowDir, 'flow.sqlite'));
    const flowReader = new ReaderService(join(flowDir, 'flow.sqlite'), { catalogIndex: false });
    try {
      const items = [...generateCatalog({ seed: 18, count: FOLD_PRICES_AT + 20_000, imageBaseUrl: 'http://sandbox.invalid/img' })];
      flowWriter.applyItemUpserts(items);
      const pendingRows = () => flowWriter.db.prepare<[], number>('SELECT count(*) FROM item_prices_pending').pluck().get() as number;
      // Removals alone, in calls of 1.4 slices: without their own fold check the pending table grew past its cap.
      const perCall = Math.round(FOLD_PRICES_SLICE * 1.4);
      const removedIds = items.filter((_, i) => i % 10 !== 0).map((item) => item.itemId);
      for (let next = 0; next < removedIds.length; next += perCall) {
        flowWriter.applyItemRemovals(removedIds.slice(next, next + perCall));
        expect(pendingRows()).toBeLessThanOrEqual(FOLD_PRICES_AT);
      }
      const held = items.filter((_, i) => i % 10 === 0);
      expect(flowReader.catalogInfo()).toMatchObject({ totalItems: held.length, totalValue: held.reduce((sum, item) => sum + item.price, 0) });
      const sample = items.filter((_, i) => i % 97 === 0);
      expect(flowReader.findItemsByIds(sample.map((item) => item.itemId)).map((item) => [item.itemId, item.price])).toEqual(
        sample.map((item) => [item.itemId, item.price]),
      );
      expect(sample.map((item) => flowReader.getItem(item.itemId)?.onSale)).toEqual(sample.map((item) => held.includes(item)));
    } finally {
      flowReader.close();
      flowWriter.close();
      rmSync(flowDir, { recursive: true, force: true });
    }
  });
});
