import { CREATE_ITEMS_LIVE_VIEW } from '../worker/rows';
import type { Migration } from './types';

/**
 * Live removals and re-listings become rows of `item_prices`, the narrow table a
 * burst of live events dirties anyway: `removed_at` marks an item that left sale
 * (its row, JSON and index entries stay where they are), `listed_at` is the
 * listing time of an item listed again with only its price changed. A removal
 * used to move the JSON to `sold_items` and delete the row, its three index
 * entries and its JSON: six random pages per event, ~half the writer's time at
 * 50k events/s. The writer folds marked items into `sold_items` in one pass
 * (writer.foldRemovals: before each sync's apply, and in slices once many are
 * marked). `items_live` (what readers query) leaves marked items out.
 */
export const migration013: Migration = {
  version: 13,
  name: 'live-removals',
  up(db) {
    db.exec(`
      ALTER TABLE item_prices ADD COLUMN listed_at INTEGER;
      ALTER TABLE item_prices ADD COLUMN removed_at INTEGER;
      DROP VIEW items_live;
      ${CREATE_ITEMS_LIVE_VIEW}
    `);
  },
};
