import type { Migration } from './types';

/**
 * The price history as sorted runs (an LSM): `price_moves` is clustered by
 * (run, itemId, at), and each fold of live moves or sync's moves is a new run,
 * appended at the end of the b-tree. Clustered by item alone, a fold of 100,000
 * moves touched a page of the whole table per move: 127 ms per fold at first,
 * ~400 ms once 3.6M moves were held. `price_move_runs` lists the runs (their
 * size and time span); the writer merges runs of one size class in slices while
 * it is idle (worker/priceHistory.ts). The moves held so far become run 0.
 */
export const migration014: Migration = {
  version: 14,
  name: 'price-move-runs',
  up(db) {
    db.exec(`
      CREATE TABLE price_moves_by_run (
        run INTEGER NOT NULL,
        itemId INTEGER NOT NULL,
        at INTEGER NOT NULL,
        price INTEGER NOT NULL,
        previous INTEGER NOT NULL,
        PRIMARY KEY (run, itemId, at)
      ) WITHOUT ROWID;
      INSERT INTO price_moves_by_run (run, itemId, at, price, previous) SELECT 0, itemId, at, price, previous FROM price_moves ORDER BY itemId, at;
      DROP TABLE price_moves;
      ALTER TABLE price_moves_by_run RENAME TO price_moves;
      CREATE TABLE price_move_runs (
        run INTEGER PRIMARY KEY,
        moves INTEGER NOT NULL,
        first_at INTEGER NOT NULL,
        last_at INTEGER NOT NULL
      );
      INSERT INTO price_move_runs (run, moves, first_at, last_at)
        SELECT 0, moves, first_at, last_at FROM (SELECT count(*) AS moves, min(at) AS first_at, max(at) AS last_at FROM price_moves) WHERE moves > 0;
    `);
  },
};
