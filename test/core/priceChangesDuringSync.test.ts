/**
 * Price changes written while a catalog sync downloads (the writer then has no copy of the live prices
 * and reads them from the store): two changes of one item in one call each see the price the one before
 * it left, so the moves, the catalog's value and the history are right. Found by the store model test
 * (test/core/storeModel.test.ts): the second change read the price from before the call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { ListServer } from './storeModel/listServer';
import { applyItemUpserts, applyPriceChanges } from '../support/liveChanges';

const dir = mkdtempSync(join(tmpdir(), 'prices-during-sync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('price changes while a sync downloads', () => {
  it('see the price the change before them left, in one call', async () => {
    const file = join(dir, 'during-sync.sqlite');
    const writer = new WriterService(file);
    const reader = new ReaderService(file);
    const server = await ListServer.start();
    try {
      const [item, other] = [...generateCatalog({ seed: 6, count: 2, imageBaseUrl: 'http://sandbox.invalid/img' })] as [
        Item,
        Item,
      ];
      applyItemUpserts(writer.catalog, [
        { ...item, price: 1000 },
        { ...other, price: 500 },
      ]);
      const { whenHeld } = server.serve(
        [
          { ...item, price: 1000 },
          { ...other, price: 500 },
        ],
        '2026-11-01T00:00:00.000Z',
        'paused',
      );
      const sync = writer.syncCatalog(
        { url: server.url, headers: {} },
        { signal: new AbortController().signal, progress: () => {} },
      );
      await whenHeld;
      const changed = applyPriceChanges(writer.catalog, [
        { itemId: item.itemId, price: 1100 },
        { itemId: item.itemId, price: 1200 },
      ]);
      expect(changed.prices).toEqual([
        { itemId: item.itemId, price: 1100, previous: 1000 },
        { itemId: item.itemId, price: 1200, previous: 1100 },
      ]);
      expect(changed.totals).toEqual({ totalItems: 2, totalValue: 1700 });
      server.release();
      const result = await sync;
      expect(result.ok && result.keptFromFeed).toBe(1);
      expect(reader.catalogInfo()).toMatchObject({ totalItems: 2, totalValue: 1700 });
      expect(reader.getItem(item.itemId)?.item.price).toBe(1200);
    } finally {
      await server.close();
      reader.close();
      writer.close();
    }
  });
});
