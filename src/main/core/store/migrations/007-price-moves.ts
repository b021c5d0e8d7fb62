import type { Migration } from './types';

/**
 * Price history as moves: one row per move (its time, the new price and the
 * one before), clustered by item (WITHOUT ROWID). A live price change is then
 * one insert into one b-tree, with no look-up first: `price_points` needed a
 * check for an item's first point (the listing price), then an insert into the
 * table and one into its index. The listing point is the first move's
 * `previous` at the item's listing time (see the reader's getItem).
 */
export const migration007: Migration = {
  version: 7,
  name: 'price-moves',
  up(db) {
    db.exec(`
      CREATE TABLE price_moves (
        itemId INTEGER NOT NULL,
        at INTEGER NOT NULL,
        price INTEGER NOT NULL,
        previous INTEGER NOT NULL,
        PRIMARY KEY (itemId, at)
      ) WITHOUT ROWID;
      INSERT OR REPLACE INTO price_moves (itemId, at, price, previous)
        SELECT itemId, at, price, previous FROM (
          SELECT itemId, at, price, lag(price) OVER (PARTITION BY itemId ORDER BY at, rowid) AS previous FROM price_points
        ) WHERE previous IS NOT NULL;
      DROP TABLE price_points;
    `);
  },
};
