/** Shared by search and filter-sort: a prepared 500k store, timed queries, the naive SQL baseline. */
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { LocalStore } from '../../src/main/core/store';
import type { CatalogQuery } from '../../src/shared/ipc/contract';
import { preparedStoreCopy, scratchDir } from './sandbox';

export interface PreparedStore {
  store: LocalStore;
  file: string;
  close(): Promise<void>;
}

/** Opens a copy of the cached synced store and asks its first page (which builds the readers' snapshot). */
export async function openPreparedStore(items: number): Promise<PreparedStore> {
  const dir = scratchDir('catalog');
  const file = await preparedStoreCopy(items, dir);
  const store = await LocalStore.open({ file });
  const started = performance.now();
  await store.queryCatalog({ limit: 1 });
  console.log(`first catalog page ${Math.round(performance.now() - started)} ms after open`);
  return {
    store,
    file,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Times `query` through the host API (worker round trip included), ms per call. */
export async function timeQuery(
  store: LocalStore,
  query: CatalogQuery,
): Promise<{ ms: number; total: number; rows: number }> {
  const started = performance.now();
  const page = await store.queryCatalog(query);
  return { ms: performance.now() - started, total: page.total, rows: page.rows.length };
}

export const SQL_SORT: Record<string, string> = {
  price: 'price',
  name: 'name',
  float: 'float',
  paintSeed: 'paintSeed',
  phase: 'phase',
  stickers: 'stickerCount',
  listedAt: 'listed_at',
  rarity: 'rarity',
};

/** The naive query: WHERE over the given table, count(*), ORDER BY … LIMIT 200; ms for both statements. */
export function naiveQuery(
  db: Database.Database,
  table: string,
  where: { sql: string; params: unknown[] },
  sort: string,
  desc: boolean,
  limit = 200,
): { ms: number; total: number; rows: number } {
  const whereSql = where.sql ? `WHERE ${where.sql}` : '';
  const dir = desc ? 'DESC' : 'ASC';
  const started = performance.now();
  const total = db
    .prepare(`SELECT count(*) FROM ${table} ${whereSql}`)
    .pluck()
    .get(...where.params) as number;
  const rows = db
    .prepare(`SELECT * FROM ${table} ${whereSql} ORDER BY ${SQL_SORT[sort] ?? 'price'} ${dir}, itemId ${dir} LIMIT ?`)
    .all(...where.params, limit);
  return { ms: performance.now() - started, total, rows: rows.length };
}

/**
 * The naive baseline's table: a copy of the items on sale with their names and no index, in the store's
 * own file (a second, writable connection; the store's writer is idle meanwhile). Dropped by the caller.
 */
export function createPlainCopy(file: string): Database.Database {
  const db = new Database(file);
  db.exec(
    'DROP TABLE IF EXISTS bench_plain; CREATE TABLE bench_plain AS SELECT i.*, n.name AS name FROM items i JOIN names n ON n.name_id = i.name_id WHERE i.removed_at IS NULL;',
  );
  return db;
}
