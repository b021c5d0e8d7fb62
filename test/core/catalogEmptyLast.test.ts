/**
 * Sorting by a column some items leave empty (float, paint seed, phase, rarity): the items with a
 * value come first, in the asked direction, and the empty ones after them, in both directions, in
 * SQL and in the in-memory index alike. A paint seed counts as empty where the item has no wear
 * (stickers, charms, vanilla knives: the grid shows "—" for their seed 0).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogRow } from '../../src/shared/ipc';
import { catalogQuerySchema, type CatalogQuery } from '../../src/shared/ipc/contract';
import type { ReaderService } from '../../src/main/core/store/worker/reader';
import type { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { closeLiveStore, openLiveStore } from '../support/liveStore';

const dir = mkdtempSync(join(tmpdir(), 'empty-last-'));
const file = join(dir, 'empty-last.sqlite');
let writer: WriterService;
let reader: ReaderService;
let cheapest: number;

const RARITY_ORDER = ['#b0c3d9', '#5e98d9', '#4b69ff', '#8847ff', '#d32ce6', '#eb4b4b', '#e4ae39'];

/** The value a row is sorted by, or null when it shows none. */
const SORTED_VALUE: Record<'float' | 'paintSeed' | 'phase' | 'rarity', (row: CatalogRow) => number | string | null> = {
  float: (row: CatalogRow) => row.float,
  paintSeed: (row: CatalogRow) => (row.float === null ? null : row.paintSeed),
  phase: (row: CatalogRow) => row.phase,
  rarity: (row: CatalogRow) => (row.rarityColor === null ? null : RARITY_ORDER.indexOf(row.rarityColor)),
} as const;

beforeAll(async () => {
  const items = [...generateCatalog({ seed: 5, count: 12_000, imageBaseUrl: 'http://sandbox.invalid/img' })];
  ({ writer, reader } = openLiveStore(file, items));
  cheapest = Math.min(...items.map((item) => item.price));
}, 60_000);

afterAll(() => closeLiveStore(dir, reader, writer));

/** Every row of a query, page by page. */
function allRows(reader: ReaderService, query: CatalogQuery): CatalogRow[] {
  const rows: CatalogRow[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = reader.queryCatalog(catalogQuerySchema.parse({ ...query, offset, limit: 1000 }));
    rows.push(...page.rows);
    if (page.rows.length < 1000) return rows;
  }
}

describe('catalog sort: empty values last in both directions', () => {
  // Unfiltered, a wide filter, a narrow one, and a filter on the sorted column itself; pages of 1,000 (past
  // the first 2,000 rows the page is cut from the whole sorted list, before it from a heap).
  const filters: { label: string; query: () => CatalogQuery }[] = [
    { label: 'no filter', query: () => ({}) },
    { label: 'not StatTrak', query: () => ({ statTrak: false }) },
    { label: 'a narrow search', query: () => ({ search: 'Doppler' }) },
    { label: 'a price floor', query: () => ({ priceMin: cheapest }) },
    { label: 'a float range', query: () => ({ floatMax: 0.5 }) },
  ];
  for (const sort of ['float', 'paintSeed', 'phase', 'rarity'] as const) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`${sort} ${direction}`, () => {
        for (const { label, query } of filters) {
          const q = { ...query(), sort, direction };
          const values = allRows(reader, q).map(SORTED_VALUE[sort]);
          const firstEmpty = values.indexOf(null);
          const filled = firstEmpty === -1 ? values : values.slice(0, firstEmpty);
          // Nothing with a value after the first empty one.
          expect(
            values.slice(filled.length).every((v) => v === null),
            `${label}: a value after an empty one`,
          ).toBe(true);
          const ordered = (filled as (number | string)[]).slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          expect(filled, `${label}: values in order`).toEqual(direction === 'asc' ? ordered : ordered.reverse());
        }
      });
    }
  }

  it('has both filled and empty values to order in each column (the test is not vacuous)', () => {
    const rows = allRows(reader, {});
    for (const valueOf of Object.values(SORTED_VALUE)) {
      const empty = rows.filter((row) => valueOf(row) === null).length;
      expect(empty).toBeGreaterThan(10);
      expect(rows.length - empty).toBeGreaterThan(10);
    }
    // A search that matches few items, with and without phases.
    const dopplers = allRows(reader, { search: 'Doppler' });
    expect(dopplers.some((row) => row.phase !== null)).toBe(true);
  });
});
