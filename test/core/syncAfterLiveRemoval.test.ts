/**
 * A sync that lists again, at a new price only, an item the feed removed before it, the last of its
 * name: the item comes back whole, on sale, found by its name. Real SQLite file, the writer and reader
 * services in-process, the list over real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { catalogQuerySchema } from '../../src/shared/ipc/contract';
import { generateCatalog } from '../../src/server/catalog/generator';
import { syncWriterWithList } from '../support/listServer';
import { applyItemRemovals } from '../support/liveChanges';

const dir = mkdtempSync(join(tmpdir(), 'sync-after-removal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('lists again at a new price an item removed live, the last of its name, found by its name', async () => {
  const catalog = [...generateCatalog({ seed: 17, count: 300, imageBaseUrl: 'http://sandbox.invalid/img' })];
  const counts = new Map<string, number>();
  for (const item of catalog) counts.set(item.market_hash_name, (counts.get(item.market_hash_name) ?? 0) + 1);
  const lone = catalog.find((item) => counts.get(item.market_hash_name) === 1) as Item;
  expect(lone).toBeDefined();

  const file = join(dir, 'store.sqlite');
  const writer = new WriterService(file);
  try {
    expect(await syncWriterWithList(writer, catalog)).toMatchObject({ ok: true, added: 300 });
    applyItemRemovals(writer.catalog, [lone.itemId]);
    const again = catalog.map((item) => (item.itemId === lone.itemId ? { ...item, price: item.price + 5 } : item));
    expect(await syncWriterWithList(writer, again)).toMatchObject({ ok: true, added: 1, total: 300 });

    const reader = new ReaderService(file);
    try {
      expect(reader.getItem(lone.itemId)).toMatchObject({
        onSale: true,
        item: { price: lone.price + 5, market_hash_name: lone.market_hash_name },
      });
      // Found by its name again, at its new price.
      const found = reader.queryCatalog(catalogQuerySchema.parse({ search: lone.market_hash_name }));
      expect(found.rows.map((row) => [row.itemId, row.price])).toEqual([[lone.itemId, lone.price + 5]]);
    } finally {
      reader.close();
    }
  } finally {
    writer.close();
  }
});
