/**
 * The store of the live-write tests (pendingPrices, pendingListings, liveRemovals) and of catalogIndexWalk: a real SQLite file with the writer,
 * a reader answering in SQL and one answering from its in-memory catalog index, and what they show.
 */
import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import type { Item } from '../../src/shared/api';
import type { CatalogRow } from '../../src/shared/ipc';
import { catalogQuerySchema } from '../../src/shared/ipc/contract';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { until } from './until';

/** The writer with `held` written, a SQL reader and an indexed reader whose index is built. */
export async function openLiveStore(file: string, held: Item[]): Promise<{ writer: WriterService; reader: ReaderService; indexed: ReaderService }> {
  const writer = new WriterService(file);
  writer.applyItemUpserts(held);
  const reader = new ReaderService(file, { catalogIndex: false });
  const indexed = new ReaderService(file);
  await until(() => indexed.catalogIndexStatus().ready);
  return { writer, reader, indexed };
}

/** Closes the services in order and removes the store's directory. */
export function closeLiveStore(dir: string, ...services: { close(): void }[]): void {
  for (const service of services) service.close();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Everything a reader shows of prices: every row by price with its `column` (SQL and the index alike), totals,
 * and each item's detail (price, on sale) checked against a look-up by id.
 */
export function shownCatalog<K extends 'lastMove' | 'listedAt'>(
  reader: ReaderService,
  indexed: ReaderService,
  itemIds: number[],
  column: K,
): { rows: [number, number, CatalogRow[K]][]; value: number; details: [number, number, boolean][] } {
  const query = catalogQuerySchema.parse({ sort: 'price', direction: 'asc', offset: 0, limit: 1000 });
  const rowsOf = (service: ReaderService) => service.queryCatalog(query).rows.map((row): [number, number, CatalogRow[K]] => [row.itemId, row.price, row[column]]);
  const rows = rowsOf(reader);
  expect(rowsOf(indexed)).toEqual(rows);
  const info = reader.catalogInfo();
  expect(info.totalItems).toBe(rows.length);
  expect(info.totalValue).toBe(rows.reduce((sum, row) => sum + row[1], 0));
  const lookedUp = new Map(reader.findItemsByIds(itemIds).map((item) => [item.itemId, item.price]));
  const details = itemIds.map((itemId): [number, number, boolean] => {
    const detail = reader.getItem(itemId);
    expect(detail?.item.price).toBe(lookedUp.get(itemId));
    return [itemId, detail?.item.price ?? -1, detail?.onSale ?? false];
  });
  return { rows, value: info.totalValue, details };
}
