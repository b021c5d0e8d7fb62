/**
 * A sync that lists again an item the feed removed before it (marked, not folded yet: the apply
 * folds it first, which deletes its row and, as the last item of its name, the name), at a new
 * price only. The item comes back whole, with its name and the name's count. Real SQLite file,
 * the writer service in-process, the list over real HTTP.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { syncWriterWithList } from '../support/listServer';

const dir = mkdtempSync(join(tmpdir(), 'sync-after-removal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('lists again at a new price an item removed live, the last of its name, with its name counted', async () => {
  const catalog = [...generateCatalog({ seed: 17, count: 300, imageBaseUrl: 'http://sandbox.invalid/img' })];
  const counts = new Map<string, number>();
  for (const item of catalog) counts.set(item.market_hash_name, (counts.get(item.market_hash_name) ?? 0) + 1);
  const lone = catalog.find((item) => counts.get(item.market_hash_name) === 1) as Item;
  expect(lone).toBeDefined();

  const file = join(dir, 'store.sqlite');
  const writer = new WriterService(file);
  try {
    expect(await syncWriterWithList(writer, catalog)).toMatchObject({ ok: true, added: 300 });
    writer.applyItemRemovals([lone.itemId]);
    const again = catalog.map((item) => (item.itemId === lone.itemId ? { ...item, price: item.price + 5 } : item));
    expect(await syncWriterWithList(writer, again)).toMatchObject({ ok: true, mode: 'incremental', total: 300 });

    const db = new Database(file, { readonly: true });
    try {
      const row = db.prepare<[number], { price: number; name: string }>('SELECT price, name FROM items_live WHERE itemId = ?').get(lone.itemId);
      expect(row).toEqual({ price: lone.price + 5, name: lone.market_hash_name });
      expect(JSON.parse(db.prepare<[number], string>('SELECT json FROM item_json WHERE itemId = ?').pluck().get(lone.itemId) as string)).toMatchObject({
        itemId: lone.itemId,
        market_hash_name: lone.market_hash_name,
      });
      const name = db.prepare<[string], { item_count: number }>('SELECT item_count FROM names WHERE name = ?').get(lone.market_hash_name);
      expect(name?.item_count).toBe(1);
      // Every name's count is its items' count.
      const wrong = db.prepare('SELECT n.name, n.item_count, (SELECT count(*) FROM items i WHERE i.name_id = n.name_id) AS held FROM names n WHERE n.item_count <> held').all();
      expect(wrong).toEqual([]);
    } finally {
      db.close();
    }
  } finally {
    writer.close();
  }
});
