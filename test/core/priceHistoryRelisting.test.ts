/**
 * The price history of an item listed again (after a live removal or a sync that left it out) starts at
 * that listing: the moves of its earlier listing are not shown, and its last point is the price it is on
 * sale at. Found by the store model test (test/core/storeModel.test.ts): the history ended at the price
 * of the earlier listing's last move.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { catalogQuerySchema } from '../../src/shared/ipc/contract';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { syncWriterWithList } from '../support/listServer';
import { applyItemRemovals, applyItemUpserts, applyPriceChanges } from '../support/liveChanges';

const dir = mkdtempSync(join(tmpdir(), 'history-relisting-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const later = () => new Promise((resolve) => setTimeout(resolve, 3));

function open(name: string): { writer: WriterService; reader: ReaderService; item: Item; close(): void } {
  const file = join(dir, `${name}.sqlite`);
  const writer = new WriterService(file);
  const reader = new ReaderService(file);
  const [item] = [...generateCatalog({ seed: 3, count: 1, imageBaseUrl: 'http://sandbox.invalid/img' })] as [Item];
  return { writer, reader, item: { ...item, price: 1000 }, close: () => (reader.close(), writer.close()) };
}

describe('price history of an item listed again', () => {
  it('after a live removal: starts at the new listing, at its price', async () => {
    const { writer, reader, item, close } = open('live');
    try {
      applyItemUpserts(writer.catalog, [item]);
      await later();
      applyPriceChanges(writer.catalog, [{ itemId: item.itemId, price: 1200 }]);
      await later();
      applyItemRemovals(writer.catalog, [item.itemId]);
      await later();
      // The same item at another price (its stored row is reused) and, after another removal, remade.
      applyItemUpserts(writer.catalog, [{ ...item, price: 900 }]);
      let detail = reader.getItem(item.itemId);
      const listedAt = reader.queryCatalog(QUERY).rows[0]?.listedAt;
      expect(detail?.priceHistory).toEqual([{ at: listedAt, price: 900 }]);
      await later();
      applyPriceChanges(writer.catalog, [{ itemId: item.itemId, price: 950 }]);
      applyItemRemovals(writer.catalog, [item.itemId]);
      await later();
      applyItemUpserts(writer.catalog, [{ ...item, price: 800, float: 0.123 }]);
      detail = reader.getItem(item.itemId);
      expect(detail?.priceHistory.map((point) => point.price)).toEqual([800]);
    } finally {
      close();
    }
  });

  it('after a sync that left it out: starts at the sync that listed it again', async () => {
    const { writer, reader, item, close } = open('sync');
    try {
      await syncWriterWithList(writer, [item]);
      await later();
      applyPriceChanges(writer.catalog, [{ itemId: item.itemId, price: 1200 }]);
      await later();
      await syncWriterWithList(writer, []);
      expect(reader.getItem(item.itemId)?.onSale).toBe(false);
      await later();
      await syncWriterWithList(writer, [{ ...item, price: 900 }]);
      const detail = reader.getItem(item.itemId);
      expect(detail?.onSale).toBe(true);
      expect(detail?.priceHistory.map((point) => point.price)).toEqual([900]);
    } finally {
      close();
    }
  });
});

const QUERY = catalogQuerySchema.parse({ limit: 10 });
