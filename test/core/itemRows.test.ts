/**
 * The writer's shortcuts for a live re-listing: an item's JSON text at another
 * price (compared with the stored item's hash) and its catalog row built straight
 * from its columns must give exactly what a reader reads back from the store.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import {
  CATALOG_ROW_SELECT,
  catalogRowFromColumns,
  catalogRowOf,
  differOnlyInPrice,
  itemColumns,
  jsonAtPrice,
  type CatalogRowValues,
} from '../../src/main/core/store/worker/rows';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';

const items = [...generateCatalog({ seed: 31, count: 2000, imageBaseUrl: 'http://sandbox.invalid/img' })];

describe('jsonAtPrice', () => {
  it('is JSON.stringify of the item at that price, for every item and prices of every length', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    for (const item of items) {
      const json = JSON.stringify(item);
      for (const price of [0, 1, item.price, item.price * 10, Math.floor(random() * 2 ** 31), 9_999_999_999]) {
        expect(jsonAtPrice(item, json, price)).toBe(JSON.stringify({ ...item, price }));
      }
    }
  });

  it('falls back to stringifying where the text has the key elsewhere or the digits run on', () => {
    const base = items[0] as Item;
    // A sticker named like the key: inside a string the quote is escaped, so the key is still found once.
    const named = { ...base, stickers: [{ ...(base.stickers[0] ?? { slot: 0, img: '', wear: 0 }), name: '"price":1' }] } as Item;
    expect(jsonAtPrice(named, JSON.stringify(named), 42)).toBe(JSON.stringify({ ...named, price: 42 }));
    // A text with the key twice (not what JSON.stringify of an Item makes): never half-swapped.
    const doubled = `${JSON.stringify(base).slice(0, -1)},"extra":{"price":${base.price}}}`;
    expect(jsonAtPrice(base, doubled, 42)).toBe(JSON.stringify({ ...base, price: 42 }));
    // Digits that run on past the price (12 in 123): not this price's key.
    const longer = { ...base, price: 12 };
    const text = JSON.stringify({ ...base, price: 123 });
    expect(jsonAtPrice(longer, text, 7)).toBe(JSON.stringify({ ...longer, price: 7 }));
  });
});

describe('differOnlyInPrice', () => {
  it('is true for texts of an item that differ at most in the price digits, false for any other byte', () => {
    for (const item of items.slice(0, 300)) {
      const text = JSON.stringify(item);
      expect(differOnlyInPrice(text, text)).toBe(true);
      for (const price of [0, item.price + 1, item.price * 1000]) expect(differOnlyInPrice(JSON.stringify({ ...item, price }), text)).toBe(true);
      expect(differOnlyInPrice(JSON.stringify({ ...item, assetId: `${item.assetId}1` }), text)).toBe(false);
      expect(differOnlyInPrice(JSON.stringify({ ...item, price: item.price + 1, float: 0.5 }), text)).toBe(false);
      expect(differOnlyInPrice(`${text} `, text)).toBe(false);
    }
  });

  it('is false where the price is not one whole number under one key', () => {
    const base = items[0] as Item;
    const text = JSON.stringify(base);
    const { price: _omitted, ...priceless } = base;
    expect(differOnlyInPrice(JSON.stringify(priceless), text)).toBe(false);
    expect(differOnlyInPrice(`${text.slice(0, -1)},"extra":{"price":1}}`, `${text.slice(0, -1)},"extra":{"price":1}}`)).toBe(false);
    expect(differOnlyInPrice(`${text.slice(0, -1)},"price":2}`, text)).toBe(false);
  });

  it('reads a price written with a fraction or an exponent (67.0, 6.7e1) as a number like any other', () => {
    const base = items[0] as Item;
    const text = JSON.stringify(base);
    for (const written of ['67.0', '6.7e1', '6.7E+1', '670e-1']) {
      const other = text.replace(`"price":${base.price},`, `"price":${written},`);
      expect(other).not.toBe(text);
      expect(differOnlyInPrice(other, text)).toBe(true);
      expect(differOnlyInPrice(other.replace('"assetId":"', '"assetId":"9'), text)).toBe(false);
    }
    // Not a number after the key: never taken for a price.
    expect(differOnlyInPrice(text.replace(`"price":${base.price},`, '"price":"67",'), text)).toBe(false);
  });
});

describe('catalogRowFromColumns', () => {
  it('is the row catalogRowOf makes of the same item read back from a store, moved up, down or not at all', () => {
    const dir = mkdtempSync(join(tmpdir(), 'item-rows-'));
    const writer = new WriterService(join(dir, 'rows.sqlite'));
    try {
      writer.applyItemUpserts(items);
      // A third of the items go up in price, a third down, a third stay.
      const priced = items.map((item, i) => ({ ...item, price: i % 3 === 0 ? item.price + 100 : i % 3 === 1 ? Math.max(1, item.price - 1) : item.price }));
      writer.applyPriceChanges(priced.filter((item, i) => item.price !== (items[i] as Item).price).map(({ itemId, price }) => ({ itemId, price })));
      const db = new Database(join(dir, 'rows.sqlite'), { readonly: true });
      const read = db.prepare<[number], CatalogRowValues>(`SELECT ${CATALOG_ROW_SELECT} FROM items_live WHERE itemId = ?`).raw();
      const moves = new Set<string | null>();
      for (const item of priced) {
        const values = read.get(item.itemId) as CatalogRowValues;
        const row = catalogRowOf(values);
        moves.add(row.lastMove);
        const [listedAt, lastMove] = values.slice(-2) as [number, number];
        expect(catalogRowFromColumns(itemColumns(item), listedAt, lastMove)).toEqual(row);
        expect(row.price).toBe(item.price);
      }
      expect([...moves].sort()).toEqual(['down', 'up', null].sort());
      db.close();
    } finally {
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
