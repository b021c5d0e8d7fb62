/**
 * The reader's snapshot reads a large change (a first sync) in chunks of rows: a live write the writer commits
 * between two chunks is either in this refresh or in the next one, never lost. The writer and the reader run in
 * this thread, so the write lands exactly between the first chunk and the second.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openConnection } from '../../src/main/core/store/worker/open';
import { CatalogSnapshot } from '../../src/main/core/store/worker/snapshot';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { applyItemUpserts, applyPriceChanges } from '../support/liveChanges';
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
});
