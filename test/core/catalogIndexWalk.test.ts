/**
 * Queries whose matches outnumber what the index sorts directly (4,096) walk a sort column's
 * permutation; a filter on that same column walks only the part its bounds allow. Every bound is
 * hit exactly (prices and floats that items hold, sticker counts 0 and 1, the rarities at either
 * end, the first and last of a search's names), both directions, several pages deep, against SQL on the same file.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogQuerySchema, type CatalogQuery } from '../../src/shared/ipc/contract';
import type { ReaderService } from '../../src/main/core/store/worker/reader';
import type { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { closeLiveStore, openLiveStore } from '../support/liveStore';

const dir = mkdtempSync(join(tmpdir(), 'index-walk-'));
const file = join(dir, 'walk.sqlite');
let writer: WriterService;
let sql: ReaderService;
let memory: ReaderService;
let prices: number[];
let floats: number[];
let rarities: string[];

beforeAll(async () => {
  const items = [...generateCatalog({ seed: 11, count: 16_000, imageBaseUrl: 'http://sandbox.invalid/img' })];
  ({ writer, reader: sql, indexed: memory } = await openLiveStore(file, items));
  prices = [...new Set(items.map((item) => item.price))].sort((a, b) => a - b);
  floats = [...new Set(items.flatMap((item) => (item.float === null ? [] : [item.float])))].sort((a, b) => a - b);
  const byRank = new Map<string, number>();
  for (const item of items) if (item.rarityColor !== null) byRank.set(item.rarityColor, (byRank.get(item.rarityColor) ?? 0) + 1);
  rarities = [...byRank.keys()];
}, 60_000);

afterAll(() => closeLiveStore(dir, memory, sql, writer));

function expectSame(query: CatalogQuery): number {
  const parsed = catalogQuerySchema.parse(query);
  const viaSql = sql.queryCatalog(parsed);
  const viaIndex = memory.queryCatalog(parsed);
  expect({ total: viaIndex.total, ids: viaIndex.rows.map((r) => r.itemId) }, JSON.stringify(query)).toEqual({
    total: viaSql.total,
    ids: viaSql.rows.map((r) => r.itemId),
  });
  return viaSql.total;
}

describe('catalog index: walking a sort column within a filter on that column', () => {
  it('answers like SQL at the exact bounds, both directions, several pages deep', () => {
    const at = <T>(list: T[], share: number): T => list[Math.floor((list.length - 1) * share)] as T;
    const filters: CatalogQuery[] = [
      { priceMin: at(prices, 0.2), priceMax: at(prices, 0.9) },
      { priceMin: at(prices, 0.5) },
      { priceMax: at(prices, 0.6) },
      { floatMin: at(floats, 0.1), floatMax: at(floats, 0.8) },
      { floatMax: at(floats, 0.7) },
      { hasStickers: true },
      { hasStickers: false },
      { rarityColors: rarities.slice(0, 3) },
      { rarityColors: rarities.slice(-3) },
      { priceMin: at(prices, 0.1), hasStickers: false, floatMin: at(floats, 0.05) },
      // Searches: their names' ranks bound a walk in name order.
      { search: 'a' },
      { search: 'StatTrak' },
      { search: 'e', priceMax: at(prices, 0.8) },
    ];
    let walked = 0;
    for (const filter of filters) {
      for (const sort of ['price', 'float', 'stickers', 'rarity', 'name'] as const) {
        for (const direction of ['asc', 'desc'] as const) {
          for (const offset of [0, 1000, 4000]) {
            const total = expectSame({ ...filter, sort, direction, offset, limit: 200 });
            if (total > 4096) walked++;
          }
        }
      }
    }
    // Most of these queries match more than the index sorts directly, so they walk a permutation.
    expect(walked).toBeGreaterThan(100);
  });
});
