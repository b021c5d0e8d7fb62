/**
 * One filter model, two implementations: the catalog's columnar narrowings (the store, over its snapshot) and
 * the item-level tests live alert rules use on a frame's items. For random catalogs and random filter sets,
 * both pick exactly the same items, market standing (discount, float rank) included.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemFilter } from '../../src/main/core/catalog';
import { LocalStore } from '../../src/main/core/store';
import { catalogFiltersSchema, type CatalogFilters } from '../../src/shared/ipc/contract';
import { queryArb } from './storeModel/commands';
import { makeItem } from './storeModel/items';
import { tempDirs } from '../support/tempDirs';
import { applyItemRemovals, applyItemUpserts } from '../support/liveChanges';

const temp = tempDirs();
let store: LocalStore;
beforeAll(async () => {
  store = await LocalStore.open({ file: join(temp('rule-filters-'), 'm1.sqlite') });
});
afterAll(() => store.close());

const FILTER_KEYS = Object.keys(catalogFiltersSchema.shape) as (keyof CatalogFilters)[];
/** A few filters set at once (the model test's values for them), so that some items pass and some do not. */
const filtersArb = fc
  .tuple(
    queryArb({ ids: 40, pageLimit: 40 }),
    fc.subarray(FILTER_KEYS, { minLength: 1, maxLength: 3 }),
    fc.constantFrom(0, 20, -25),
  )
  // A listing at its name's median is 0 % under it: a discount bound of 0 (or a round one) meets it at its edge.
  .map(([query, keys, edge]): CatalogFilters =>
    catalogFiltersSchema.parse(
      Object.fromEntries(
        keys.map((key) => [
          key,
          key === 'discountMin' && query.discountMin !== null && query.discountMin % 2 === 0 ? edge : query[key],
        ]),
      ),
    ),
  );
/** A catalog: item specs (seed, price from a short ladder, so names share prices and medians meet ties). */
const catalogArb = fc.array(
  fc.tuple(
    fc.integer({ min: 0, max: 10_000 }),
    fc.integer({ min: 1, max: 12 }).map((step) => step * 125),
  ),
  { minLength: 1, maxLength: 40 },
);

describe('rule filters', () => {
  it('the item-level tests and the store pick the same items for any filters', async () => {
    let firstId = 1;
    let onSale: number[] = [];
    /** Filter sets that picked some but not all items (the property says little about the others). */
    let telling = 0;
    await fc.assert(
      fc.asyncProperty(catalogArb, fc.array(filtersArb, { minLength: 1, maxLength: 8 }), async (specs, filterSets) => {
        await applyItemRemovals(store, onSale);
        const items = specs.map(([seed, price], i) => makeItem(firstId + i, seed, price));
        firstId += specs.length;
        onSale = items.map((item) => item.itemId);
        await applyItemUpserts(store, items);
        const rows = (await store.queryCatalog({ limit: 1000 })).rows;
        expect(rows.map((row) => row.itemId).sort((a, b) => a - b)).toEqual(onSale);
        const standing = new Map(rows.map((row) => [row.itemId, row.market]));
        for (const filters of filterSets) {
          const { test } = itemFilter(filters);
          const byItem = items
            .filter((item) => test(item, standing.get(item.itemId) ?? null))
            .map((item) => item.itemId);
          if (byItem.length > 0 && byItem.length < items.length) telling++;
          expect(await store.matchingItemIds(filters, onSale)).toEqual(byItem);
          const page = await store.queryCatalog({ ...filters, limit: 1000 });
          expect(page.rows.map((row) => row.itemId).sort((a, b) => a - b)).toEqual(byItem);
        }
      }),
      { numRuns: 100 },
    );
    expect(telling).toBeGreaterThan(50);
  });

  it('a seed list and a charm pattern list take exactly the values at their edges, in the store and item by item', async () => {
    const seeds = [null, 0, 1, 24, 25, 26, 660, 661, 662, 999];
    const patterns = [0, 1, 99, 100, 101, 100_000];
    const base = 900_000;
    const items = [
      ...seeds.map((paintSeed, i) => ({ ...makeItem(base + i, 1, 1000), float: 0.2, paintSeed, keyChains: [] })),
      ...patterns.map((pattern, i) => ({
        ...makeItem(base + 100 + i, 1, 1000),
        keyChains: [{ name: 'Lil Ava', img: 'https://img.invalid/c.png', slot: 0, pattern }],
      })),
    ];
    await applyItemUpserts(store, items);
    const ids = items.map((item) => item.itemId);
    const bySeed = catalogFiltersSchema.parse({
      seeds: [
        [1, 25],
        [661, 661],
      ],
    });
    const wantedSeeds = items
      .filter((item) => [1, 24, 25, 661].includes(item.paintSeed as number))
      .map((item) => item.itemId);
    expect(await store.matchingItemIds(bySeed, ids)).toEqual(wantedSeeds);
    expect(items.filter((item) => itemFilter(bySeed).test(item, null)).map((item) => item.itemId)).toEqual(wantedSeeds);
    const byPattern = catalogFiltersSchema.parse({
      charmPatterns: [
        [0, 0],
        [100, 100_000],
      ],
    });
    const wantedPatterns = items
      .filter((item) => [0, 100, 101, 100_000].includes(item.keyChains[0]?.pattern ?? -1))
      .map((item) => item.itemId);
    expect(await store.matchingItemIds(byPattern, ids)).toEqual(wantedPatterns);
    expect(items.filter((item) => itemFilter(byPattern).test(item, null)).map((item) => item.itemId)).toEqual(
      wantedPatterns,
    );
    await applyItemRemovals(store, ids);
  });

  it('asks the store only for the filters that read the market standing', () => {
    expect(itemFilter(catalogFiltersSchema.parse({ seeds: [[1, 25]], hasCharm: true })).needsStanding).toBe(false);
    expect(itemFilter(catalogFiltersSchema.parse({ seeds: [[1, 25]], discountMin: 10 })).needsStanding).toBe(true);
    expect(itemFilter(catalogFiltersSchema.parse({ floatRankMax: 3 })).needsStanding).toBe(true);
    expect(itemFilter(catalogFiltersSchema.parse({ listingsMin: 5 })).needsStanding).toBe(true);
  });
});
