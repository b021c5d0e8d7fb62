import type { Migration } from './types';

/**
 * Back from 004: `items(listed_at)`. The UI asks for the oldest listing at start (the age
 * column's baseline) before the in-memory index is built; without it that is a scan of
 * every row (~170 ms at 500k, in the way of the first page). Listing times never change,
 * so live updates and price changes never touch it.
 */
export const migration009: Migration = {
  version: 9,
  name: 'listed-at-index',
  up(db) {
    db.exec('CREATE INDEX IF NOT EXISTS items_listed_at ON items(listed_at)');
  },
};
