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
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { applyItemRemovals, applyItemUpserts, applyPriceChanges } from '../support/liveChanges';

const dir = mkdtempSync(join(tmpdir(), 'history-same-instant-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const later = () => new Promise((resolve) => setTimeout(resolve, 3));

describe('price history: two moves at one instant', () => {
  it('keeps the listing price before them and the later price at that instant', async () => {
    const file = join(dir, 'same-instant.sqlite');
    const writer = new WriterService(file);
    const reader = new ReaderService(file);
    try {
      const [item] = [...generateCatalog({ seed: 4, count: 1, imageBaseUrl: 'http://sandbox.invalid/img' })] as [Item];
      applyItemUpserts(writer.catalog, [{ ...item, price: 1000 }]);
      await later();
      applyPriceChanges(writer.catalog, [
        { itemId: item.itemId, price: 1100 },
        { itemId: item.itemId, price: 1200 },
      ]);
      const prices = () => reader.getItem(item.itemId)?.priceHistory.map((point) => point.price);
      expect(prices()).toEqual([1000, 1200]);
      // A listing and a move in one instant: the last price at it.
      applyItemRemovals(writer.catalog, [item.itemId]);
      await later();
      writer.catalog.applyItemChanges([
        { kind: 'upserts', items: [{ ...item, price: 3000 }] },
        { kind: 'prices', changes: new Float64Array([item.itemId, 3100]) },
      ]);
      expect(prices()).toEqual([3100]);
    } finally {
      reader.close();
      writer.close();
    }
  });
});
