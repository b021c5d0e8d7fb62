import type { Migration } from './types';

/**
 * An item's price lives in `items.price`; its stored JSON keeps the price it
 * arrived with (a price_changed frame no longer rewrites the JSON: 500 bytes
 * parsed and written per event, at tens of thousands of events a second).
 * Readers take the price from the row; sold items keep theirs here (null for
 * rows sold before this step: their JSON's).
 */
export const migration005: Migration = {
  version: 5,
  name: 'sold-price',
  up(db) {
    db.exec('ALTER TABLE sold_items ADD COLUMN price INTEGER');
  },
};
