/**
 * Planner statistics on a real file: the tables live events resize keep none, the change log is pinned
 * large (statistics taken after a sync, a 2-row change log, made SQLite scan the whole log for every
 * `seq > ?`), and connections already open, the readers, plan with the new statistics after a refresh.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANGE_LOG_RANGE_SQL } from '../../src/main/core/store/worker/catalogIndex';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';

const dir = mkdtempSync(join(tmpdir(), 'planner-statistics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CATCH_UP = 'SELECT seq, itemId, price FROM item_changes WHERE seq > ? ORDER BY seq LIMIT 1000';
const TRIM = 'DELETE FROM item_changes WHERE seq <= min((SELECT max(seq) FROM item_changes) - ?, ?)';
const plan = (db: Database.Database, sql: string, params: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join(' | ');

describe('planner statistics', () => {
  it('keeps no statistics of the live prices and price history, pins the change log large, and open connections seek the log by rowid after a refresh; the backlog check seeks both ends of the log', () => {
    const file = join(dir, 'stats.sqlite');
    const writer = new WriterService(file);
    try {
      writer.applyItemUpserts([...generateCatalog({ seed: 11, count: 50, imageBaseUrl: 'http://sandbox.invalid/img' })]);
      // What an earlier version left: statistics of every table, taken when the change log held 2 rows.
      writer.db.exec('ANALYZE');
      writer.db.exec("DELETE FROM sqlite_stat1 WHERE tbl = 'item_changes'; INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('item_changes', NULL, '2')");
      writer.db.exec('CREATE TABLE reload (x); DROP TABLE reload;');
      const reader = new Database(file, { readonly: true });
      try {
        // The stale statistics: the reader walks the log from its start.
        expect(plan(reader, CATCH_UP, [1])).toMatch(/^SCAN item_changes/);
        writer.refreshStatistics();
        const tables = writer.db.prepare('SELECT DISTINCT tbl FROM sqlite_stat1').pluck().all() as string[];
        expect(tables).toEqual(expect.arrayContaining(['items', 'names', 'item_json']));
        for (const volatile of ['item_prices', 'item_prices_pending', 'price_moves', 'price_move_runs']) expect(tables).not.toContain(volatile);
        // The change log is pinned large: a connection keeps an old estimate until a row replaces it.
        expect(writer.db.prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = 'item_changes'").pluck().all()).toEqual(['1000000']);
        // Both connections, open before the refresh, now seek (a connection sees the schema change, and reads
        // the statistics again, when it next runs a statement: EXPLAIN alone runs none).
        reader.prepare(CATCH_UP).all(0);
        expect(plan(reader, CATCH_UP, [1])).toContain('SEARCH item_changes USING INTEGER PRIMARY KEY (rowid>?)');
        expect(plan(writer.db, TRIM, [1, 2])).toContain('SEARCH item_changes USING INTEGER PRIMARY KEY (rowid<?)');
        // The readers' check of their backlog (every upkeep check) seeks both ends of the log, never walks it.
        const range = plan(reader, CHANGE_LOG_RANGE_SQL, []);
        expect(range).not.toMatch(/SCAN item_changes/);
        expect(range.match(/SEARCH item_changes/g)).toHaveLength(2);
        const bounds = reader.prepare(CHANGE_LOG_RANGE_SQL).get() as { lo: number; hi: number };
        expect(bounds).toEqual(writer.db.prepare('SELECT min(seq) AS lo, max(seq) AS hi FROM item_changes').get());
        expect(bounds.hi).toBeGreaterThan(bounds.lo);
      } finally {
        reader.close();
      }
    } finally {
      writer.close();
    }
  });
});
