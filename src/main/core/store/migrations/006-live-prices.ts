import { CREATE_ITEMS_LIVE_VIEW } from '../worker/rows';
import type { Migration } from './types';

/**
 * Live price changes go to `item_prices`, a narrow table (~20 bytes a row), not
 * to `items` (~230 bytes a row, plus its price index): a burst of random price
 * changes then dirties a few thousand small pages instead of a page of `items`
 * and two of its index per event (~3× the events a second; bench/live-events.ts).
 * A row there overrides the item's price and last move until the item's row is
 * next written (a sync, an upsert). `items_live` is the catalog as readers see it.
 */
export const migration006: Migration = {
  version: 6,
  name: 'live-prices',
  up(db) {
    db.exec(`
      CREATE TABLE item_prices (
        itemId INTEGER PRIMARY KEY,
        price INTEGER NOT NULL,
        last_move INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      ${CREATE_ITEMS_LIVE_VIEW}
    `);
  },
};
