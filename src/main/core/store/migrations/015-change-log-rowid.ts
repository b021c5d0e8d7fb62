import type { Migration } from './types';

/**
 * The change log without AUTOINCREMENT: each insert read and rewrote its
 * `sqlite_sequence` row, a second b-tree write per live event. The log is
 * never emptied (the newest entry is never trimmed, migration 002 seeded it),
 * so a plain rowid already never reuses a sequence number: it is max + 1.
 * Also drops the planner statistics of the tables live events resize.
 */
export const migration015: Migration = {
  version: 15,
  name: 'change-log-rowid',
  up(db) {
    db.exec(`
      CREATE TABLE item_changes_rowid (
        seq INTEGER PRIMARY KEY,
        itemId INTEGER NOT NULL,
        price INTEGER,
        at INTEGER,
        moved INTEGER,
        previous INTEGER
      );
      INSERT INTO item_changes_rowid (seq, itemId, price, at, moved, previous) SELECT seq, itemId, price, at, moved, previous FROM item_changes ORDER BY seq;
      DROP TABLE item_changes;
      ALTER TABLE item_changes_rowid RENAME TO item_changes;
      DELETE FROM sqlite_sequence WHERE name = 'item_changes';
    `);
    // Statistics of the tables live events grow and shrink, taken after a sync (a 2-row change log), made the
    // planner scan them whole; writer.refreshStatistics no longer takes them.
    if (db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'").get()) {
      db.exec("DELETE FROM sqlite_stat1 WHERE tbl IN ('item_changes', 'item_prices', 'price_moves', 'price_move_runs')");
    }
  },
};
