/**
 * Price history retention: moves older than 30 days are pruned a slice of items per
 * sync, on a real SQLite file through the writer service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { prunePriceHistory } from '../../src/main/core/store/worker/catalogSync';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { META } from '../../src/main/core/store/worker/rows';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';

const dir = mkdtempSync(join(tmpdir(), 'price-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 24 * 60 * 60 * 1000;

const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

describe('live price moves', () => {
  it('are read from the change log until folded into price_moves, and read the same after', async () => {
    const file = join(dir, 'moves.sqlite');
    const writer = new WriterService(file);
    const reader = new ReaderService(file, { catalogIndex: false });
    try {
      const [item, other] = [...generateCatalog({ seed: 8, count: 2, imageBaseUrl: 'http://sandbox.invalid/img' })] as [Item, Item];
      writer.applyItemUpserts([{ ...item, price: 1000 }, other]);
      const prices = () => reader.getItem(item.itemId)?.priceHistory.map((point) => point.price);
      const count = (sql: string) => writer.db.prepare(sql).pluck().get() as number;
      // Two live price changes and a whole-item update that moves the price.
      await tick();
      writer.applyPriceChanges([{ itemId: item.itemId, price: 1100 }, { itemId: other.itemId, price: other.price + 5 }]);
      await tick();
      writer.applyPriceChanges([{ itemId: item.itemId, price: 1200 }]);
      await tick();
      writer.applyItemUpserts([{ ...item, price: 1300, float: 0.5 }]);
      expect(prices()).toEqual([1000, 1100, 1200, 1300]);
      expect(count('SELECT count(*) FROM price_moves')).toBe(0);
      expect(count('SELECT count(*) FROM item_changes WHERE moved IS NOT NULL')).toBe(4);

      const before = reader.getItem(item.itemId)?.priceHistory;
      writer.db.transaction(() => writer.foldPriceMoves())();
      expect(count('SELECT count(*) FROM price_moves')).toBe(4);
      expect(writer.readMeta(META.movesFolded)).toBe(count('SELECT max(seq) FROM item_changes'));
      expect(reader.getItem(item.itemId)?.priceHistory).toEqual(before);

      // Moves on top of folded ones; of two at the same time, the later one counts.
      await tick();
      writer.applyPriceChanges([{ itemId: item.itemId, price: 1250 }]);
      const last = count(`SELECT max(at) FROM price_moves WHERE itemId = ${item.itemId}`);
      writer.db.prepare('INSERT INTO item_changes (itemId, at, moved, previous) VALUES (?, ?, ?, ?)').run(item.itemId, last, 1299, 1200);
      expect(prices()).toEqual([1000, 1100, 1200, 1299, 1250]);
      writer.db.transaction(() => writer.foldPriceMoves())();
      expect(prices()).toEqual([1000, 1100, 1200, 1299, 1250]);
    } finally {
      reader.close();
      writer.close();
    }
  });
});

describe('price history retention', () => {
  it('drops moves older than 30 days, a slice of items at a time, and starts over after the last one', () => {
    const writer = new WriterService(join(dir, 'history.sqlite'));
    try {
      const now = Date.parse('2026-11-23T12:00:00.000Z');
      const insert = writer.db.prepare('INSERT INTO price_moves (itemId, at, price, previous) VALUES (?, ?, ?, ?)');
      // 80,000 items, each with one move 40 days old and one 10 days old.
      writer.db.transaction(() => {
        for (let itemId = 1; itemId <= 80_000; itemId++) {
          insert.run(itemId, now - 40 * DAY, 200, 100);
          insert.run(itemId, now - 10 * DAY, 300, 200);
        }
      })();
      const count = (sql: string) => writer.db.prepare(sql).pluck().get() as number;

      // The first slice ends at the item holding the 50,001st move after the start: items 1..25,001.
      expect(prunePriceHistory(writer, now)).toBe(25_001);
      expect(writer.readMeta(META.pruneFrom)).toBe(25_001);
      expect(count(`SELECT count(*) FROM price_moves WHERE itemId <= 25001 AND at < ${now - 30 * DAY}`)).toBe(0);
      expect(count(`SELECT count(*) FROM price_moves WHERE itemId > 25001 AND at < ${now - 30 * DAY}`)).toBe(80_000 - 25_001);
      // Recent moves stay.
      expect(count(`SELECT count(*) FROM price_moves WHERE at >= ${now - 30 * DAY}`)).toBe(80_000);

      // Further syncs take the next slices, then the rest, and wrap around.
      let rounds = 1;
      while (count(`SELECT count(*) FROM price_moves WHERE at < ${now - 30 * DAY}`) > 0 && rounds < 10) {
        prunePriceHistory(writer, now);
        rounds++;
      }
      expect(count(`SELECT count(*) FROM price_moves WHERE at < ${now - 30 * DAY}`)).toBe(0);
      expect(count('SELECT count(*) FROM price_moves')).toBe(80_000);
      expect(rounds).toBe(4);
      // The last slice ran to the end: the next sync starts over from the first item.
      expect(writer.readMeta(META.pruneFrom)).toBe(0);
    } finally {
      writer.close();
    }
  });
});
