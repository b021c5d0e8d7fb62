import { CREATE_ITEMS_LIVE_VIEW } from '../worker/rows';
import type { Migration } from './types';

/**
 * `item_prices_pending`: the live prices changed since the last fold. A price
 * change used to upsert its row of `item_prices`, which holds an override for
 * every item changed since the last sync (up to the whole catalog): a burst of
 * 5,000 random changes dirtied ~2,500 of its pages, ~10 MB of WAL per commit,
 * and the reader's checkpoint copied it all back. This table holds at most one
 * ~100k rows (FOLD_PRICES_AT), a few hundred pages; the writer folds it into
 * `item_prices` in item order, a slice of ids at a time (writer.foldPendingPriceSlice),
 * so each page of `item_prices` is written once a round. `items_live` lays it over.
 */
export const migration016: Migration = {
  version: 16,
  name: 'pending-prices',
  up(db) {
    db.exec(`
      CREATE TABLE item_prices_pending (
        itemId INTEGER PRIMARY KEY,
        price INTEGER NOT NULL,
        last_move INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      DROP VIEW items_live;
      ${CREATE_ITEMS_LIVE_VIEW}
    `);
  },
};
