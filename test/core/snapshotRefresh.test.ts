/**
 * The reader's snapshot reads a large change (a first sync) in chunks of rows: a live write the writer commits
 * between two chunks is either in this refresh or in the next one, never lost. The writer and the reader run in
 * this thread, so the write lands exactly between the first chunk and the second. Its timer's refresh goes one chunk
 * a step (other reads between): with writes between the steps, it ends where a full read of the file ends.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConnection } from '../../src/main/core/store/worker/open';
import { CatalogSnapshot } from '../../src/main/core/catalog/snapshot';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { applyItemRemovals, applyItemUpserts, applyPriceChanges } from '../support/liveChanges';
import { tempDirs } from '../support/tempDirs';
import { makeItem } from './storeModel/items';

const temp = tempDirs();
const ITEMS = 5_000; // three of the scan's 2,000-row chunks

type ScanStatement = { all: (...args: unknown[]) => unknown[] };

describe('snapshot refresh read in chunks', () => {
  it('misses no live write committed between two chunks of a first read', () => {
    const file = join(temp('snapshot-refresh-'), 'm1.sqlite');
    const writer = new WriterService(file);
    const reader = openConnection(file, true).db;
    try {
      const items = Array.from({ length: ITEMS }, (_, i) => makeItem(i + 1, i * 31, 100 + ((i * 37) % 900)));
      applyItemUpserts(writer.catalog, items);
      const snapshot = new CatalogSnapshot(reader);
      // Between the first chunk and the second: a price move of an item the first chunk read, and of one after it.
      const scan = (snapshot as unknown as { statements: { byScan: ScanStatement } }).statements.byScan;
      const readChunk = scan.all.bind(scan);
      let chunks = 0;
      scan.all = (...args) => {
        const rows = readChunk(...args);
        if (++chunks === 1) {
          applyPriceChanges(writer.catalog, [
            { itemId: 1, price: 12_345 },
            { itemId: ITEMS, price: 23_456 },
          ]);
        }
        return rows;
      };

      snapshot.refresh();
      expect(chunks).toBeGreaterThan(1);
      snapshot.refresh(); // the reader's next one, as its timer or a query runs it
      const priceOf = (itemId: number) => snapshot.price[snapshot.slotOf(itemId)];
      expect(priceOf(1)).toBe(12_345);
      expect(priceOf(ITEMS)).toBe(23_456);
      expect(priceOf(2)).toBe(items[1]?.price);
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('a refresh in steps, with writes committed between the steps, ends as a full read of the file does', () => {
    const file = join(temp('snapshot-steps-'), 'm1.sqlite');
    const writer = new WriterService(file);
    const stepped = openConnection(file, true).db;
    const fresh = openConnection(file, true).db;
    // 25,000 items: a later change of 2,400 rows (under a tenth) is read through the version index, in two chunks.
    const count = 25_000;
    const items = Array.from({ length: count }, (_, i) => makeItem(i + 1, i * 31, 100 + ((i * 37) % 900)));
    const snapshot = new CatalogSnapshot(stepped);
    const stepsWithWrites = (writes: (() => void)[]) => {
      let steps = 0;
      for (let done = false; !done; steps++) {
        done = snapshot.refreshStep();
        writes[steps]?.();
      }
      return steps;
    };
    const expectAsFullRead = () => {
      const model = new CatalogSnapshot(fresh);
      model.refresh();
      expect(snapshot.onSaleCount).toBe(model.onSaleCount);
      expect(snapshot.onSaleValue).toBe(model.onSaleValue);
      for (let slot = 0; slot < model.size; slot++) {
        const mine = snapshot.slotOf(model.itemId[slot] as number);
        const row = (of: CatalogSnapshot, at: number) => ({
          price: of.price[at],
          onSale: of.onSale[at],
          removedAt: of.removedAt[at],
          nameId: of.nameId[at],
          float: of.float[at],
          // Off sale, a listing keeps the standing it had when it left: a first read never saw it on sale.
          market: of.onSale[at] === 1 ? of.markets.standing(at) : null,
        });
        expect(row(snapshot, mine), `item ${model.itemId[slot]}`).toEqual(row(model, slot));
      }
    };
    try {
      applyItemUpserts(writer.catalog, items);
      // The first read, by id in chunks: a move of a row read already, one not read yet, a new item, a removal.
      const firstSteps = stepsWithWrites([
        () => {
          applyPriceChanges(writer.catalog, [
            { itemId: 1, price: 12_345 },
            { itemId: count, price: 23_456 },
          ]);
          applyItemUpserts(writer.catalog, [makeItem(count + 1, 7, 555)]);
          applyItemRemovals(writer.catalog, [2, count - 1]);
        },
      ]);
      expect(firstSteps).toBeGreaterThan(2);
      stepsWithWrites([]);
      expectAsFullRead();

      // A change of 2,400 rows in one transaction, read through the index: a second chunk of the same version.
      const moved = items.slice(100, 2_500).map((item) => ({ itemId: item.itemId, price: item.price + 1 }));
      applyPriceChanges(writer.catalog, moved);
      const indexSteps = stepsWithWrites([() => applyPriceChanges(writer.catalog, [{ itemId: 101, price: 99_999 }])]);
      expect(indexSteps).toBe(2);
      // A query comes while a refresh is between steps: it finishes it first.
      applyPriceChanges(
        writer.catalog,
        moved.map(({ itemId, price }) => ({ itemId, price: price + 1 })),
      );
      expect(snapshot.refreshStep()).toBe(false);
      snapshot.refresh();
      expectAsFullRead();
    } finally {
      stepped.close();
      fresh.close();
      writer.close();
    }
  });
});
