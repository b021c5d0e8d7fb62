import type { Migration } from './types';

/**
 * `item_changes.price`: a live price change logs the new price with the itemId, so the
 * readers' catalog indexes take it from the log instead of re-reading the row (at 50k
 * events/s the re-reads kept a reader thread busy). NULL = anything else: read the row.
 */
export const migration010: Migration = {
  version: 10,
  name: 'change-log-price',
  up(db) {
    db.exec('ALTER TABLE item_changes ADD COLUMN price INTEGER');
  },
};
