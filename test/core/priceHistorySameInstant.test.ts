/**
 * Two moves of an item at one instant (two price changes of it in one call, as a burst of feed frames
 * brings them): its history shows the later price at that instant, and its listing point keeps the price it
 * was listed at, read from the change log, after the moves are folded into a run, and after runs merge.
 * Found by the store model test (test/core/storeModel.test.ts): the listing point showed the price
 * between the two moves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { RUN_FANOUT } from '../../src/main/core/store/worker/priceHistory';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';

const dir = mkdtempSync(join(tmpdir(), 'history-same-instant-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const later = () => new Promise((resolve) => setTimeout(resolve, 3));

describe('price history: two moves at one instant', () => {
  it('keeps the listing price before them, in the log, after a fold and after a merge', async () => {
    const file = join(dir, 'same-instant.sqlite');
    const writer = new WriterService(file);
    const reader = new ReaderService(file, { catalogIndex: false });
    try {
      const [item] = [...generateCatalog({ seed: 4, count: 1, imageBaseUrl: 'http://sandbox.invalid/img' })] as [Item];
      writer.applyItemUpserts([{ ...item, price: 1000 }]);
      await later();
      writer.applyPriceChanges([
        { itemId: item.itemId, price: 1100 },
        { itemId: item.itemId, price: 1200 },
      ]);
      const prices = () => reader.getItem(item.itemId)?.priceHistory.map((point) => point.price);
      expect(prices()).toEqual([1000, 1200]);
      writer.db.transaction(() => writer.foldPriceMoves())();
      expect(prices()).toEqual([1000, 1200]);
      // The same again in runs of their own, then merged into one.
      for (let r = 1; r < RUN_FANOUT; r++) {
        await later();
        writer.applyPriceChanges([
          { itemId: item.itemId, price: 2000 + r },
          { itemId: item.itemId, price: 1200 + r },
        ]);
        writer.db.transaction(() => writer.foldPriceMoves())();
      }
      const before = prices();
      expect(before?.[0]).toBe(1000);
      while (writer.idleWork());
      expect(writer.db.prepare('SELECT count(*) FROM price_move_runs').pluck().get()).toBe(1);
      expect(prices()).toEqual(before);
    } finally {
      reader.close();
      writer.close();
    }
  });
});
