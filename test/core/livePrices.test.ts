/**
 * The writer answers a live price change's "price before" from its own copy of
 * every held item's price. The copy must give what SQL gives (items_live) after
 * live upserts, removals, a failed burst and a re-sync. Real SQLite file, writer
 * in-process, the list over real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { packPriceChanges } from '../../src/main/core/store/priceChanges';
import { generateCatalog } from '../../src/server/catalog/generator';
import { Rng } from '../../src/server/catalog/rng';
import { syncWriterWithList } from '../support/listServer';

const dir = mkdtempSync(join(tmpdir(), 'live-prices-'));
let writer: WriterService;
let catalog: Item[];

beforeAll(() => {
  catalog = [...generateCatalog({ seed: 4, count: 1500, imageBaseUrl: 'http://sandbox.invalid/img' })];
  writer = new WriterService(join(dir, 'live.sqlite'));
  writer.applyItemUpserts(catalog.slice(0, 1200));
});

afterAll(() => {
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

function sqlPrice(itemId: number): number | undefined {
  return writer.db.prepare<[number], number>('SELECT price FROM items_live WHERE itemId = ?').pluck().get(itemId) as number | undefined;
}

/** Changes each item's price by +1 and checks the reported "before" against SQL read just before. */
function repriceAndCheck(itemIds: number[]): void {
  const expected = itemIds.map((itemId) => ({ itemId, before: sqlPrice(itemId) }));
  const result = writer.applyPriceChanges(itemIds.map((itemId, i) => ({ itemId, price: (expected[i]?.before ?? 0) + 1 })));
  const known = expected.filter((entry) => entry.before !== undefined);
  expect(result.prices.map((move) => [move.itemId, move.previous])).toEqual(known.map((entry) => [entry.itemId, entry.before]));
  expect(result.unknown).toEqual(expected.filter((entry) => entry.before === undefined).map((entry) => entry.itemId));
}

const syncList = (items: Item[]) => syncWriterWithList(writer, items);

describe("the writer's live prices", () => {
  it('report the price before a change as SQL has it, through upserts, removals, a failed burst and a re-sync', async () => {
    const rng = new Rng(2);
    const held = () => writer.db.prepare<[], number>('SELECT itemId FROM items ORDER BY itemId').pluck().all() as number[];
    // Distinct ids (an item changed twice in one batch would report its first new price as the second's before).
    const pick = (ids: number[], n: number) => [...new Set(Array.from({ length: n }, () => ids[rng.int(0, ids.length - 1)] as number))];
    // The first change reads the copy; later ones use it.
    repriceAndCheck(pick(held(), 50));
    repriceAndCheck(pick(held(), 50));

    // Live upserts (new listings at their own price, changed items at a new price) and removals.
    const listed = catalog.slice(1200, 1260);
    const changed = pick(held(), 20).map((itemId) => ({ ...(catalog.find((item) => item.itemId === itemId) as Item), price: 777_000 + itemId }));
    writer.applyItemUpserts([...listed, ...changed]);
    const removed = pick(held(), 30);
    writer.applyItemRemovals(removed);
    repriceAndCheck([...new Set([...listed.map((item) => item.itemId), ...changed.map((item) => item.itemId), ...removed, ...pick(held(), 40)])]);

    // A burst that fails after its price changes: rolled back, and so is the copy.
    const victims = pick(held(), 10);
    const before = victims.map(sqlPrice);
    expect(() =>
      writer.applyItemChanges([
        { kind: 'prices', changes: packPriceChanges(victims.map((itemId) => ({ itemId, price: 1 }))) },
        { kind: 'upserts', items: [{ ...(listed[0] as Item), market_hash_name: null as unknown as string }] },
      ]),
    ).toThrow();
    expect(victims.map(sqlPrice)).toEqual(before);
    repriceAndCheck(victims);

    // A re-sync reprices, sells and lists items behind the copy's back: the copy is read again.
    const now = held();
    const list = catalog
      .filter((item) => now.includes(item.itemId) && rng.int(0, 9) !== 0)
      .map((item) => (rng.int(0, 4) === 0 ? { ...item, price: 500_000 + item.itemId } : item))
      .concat(catalog.slice(1260, 1280));
    expect(await syncList(list)).toMatchObject({ ok: true, mode: 'incremental' });
    repriceAndCheck([...new Set([...list.map((item) => item.itemId), ...pick(now, 30)])]);
  });
});

describe("live removals through the writer's copy", () => {
  /** Names' counts as SQL would count them now (a name with no held item has no row). */
  const recounted = () =>
    writer.db.prepare('SELECT name_id AS id, count(*) AS n FROM items_live GROUP BY name_id ORDER BY name_id').all() as { id: number; n: number }[];
  const stored = () => writer.db.prepare('SELECT name_id AS id, item_count AS n FROM names ORDER BY name_id').all() as { id: number; n: number }[];
  const sqlTotals = () => writer.db.prepare('SELECT count(*) AS totalItems, coalesce(sum(price), 0) AS totalValue FROM items_live').get();
  const markPrice = (itemId: number) =>
    writer.db.prepare<[number], number>('SELECT price FROM live_removals WHERE itemId = ?').pluck().get(itemId) as number | undefined;

  it("keep names' counts, the marks' prices and the totals as SQL has them, through renames, new listings, re-listings and repeats", () => {
    const held = () => writer.db.prepare<[], number>('SELECT itemId FROM items_live ORDER BY itemId').pluck().all() as number[];
    // The copy is in use: a price change read it.
    const [first, second, third, fourth] = held();
    repriceAndCheck([first as number]);
    // A renamed item (a name of its own), a new listing, a repriced item.
    const renamed = { ...(catalog.find((item) => item.itemId === second) as Item), market_hash_name: 'Renamed | Live Copy (Factory New)', price: 4_321 };
    const fresh = catalog[1400] as Item;
    writer.applyItemUpserts([renamed, fresh]);
    writer.applyPriceChanges([{ itemId: third as number, price: 9_999 }]);
    expect(stored()).toEqual(recounted());

    const before = [first, second, third, fresh.itemId].map((itemId) => sqlPrice(itemId as number));
    // Removed with an unknown id, a repeat within the call and fourth's name kept by its siblings or not.
    const result = writer.applyItemRemovals([first as number, second as number, third as number, fresh.itemId, 99_999_999, first as number, fourth as number]);
    expect(result.removed).toEqual([first, second, third, fresh.itemId, fourth]);
    expect([first, second, third, fresh.itemId].map((itemId) => markPrice(itemId as number))).toEqual(before);
    expect(result.totals).toEqual(sqlTotals());
    expect(stored()).toEqual(recounted());
    // The renamed item's name went with it; third's pending price became its mark (one pending row).
    expect(writer.db.prepare('SELECT count(*) FROM names WHERE name = ?').pluck().get(renamed.market_hash_name)).toBe(0);
    expect(writer.db.prepare('SELECT removed_at IS NOT NULL AS mark FROM item_prices_pending WHERE itemId = ?').all(third)).toEqual([{ mark: 1 }]);

    // Re-listed at a new price (the renamed one's name comes back under a new id), then removed again.
    writer.applyItemUpserts([{ ...renamed, price: 5_555 }, { ...fresh, price: fresh.price + 1 }]);
    expect(stored()).toEqual(recounted());
    expect(sqlPrice(second as number)).toBe(5_555);
    const again = writer.applyItemRemovals([second as number, fresh.itemId]);
    expect(again.removed).toEqual([second, fresh.itemId]);
    expect(markPrice(second as number)).toBe(5_555);
    expect(again.totals).toEqual(sqlTotals());
    expect(stored()).toEqual(recounted());
  });
});
