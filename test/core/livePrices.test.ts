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
