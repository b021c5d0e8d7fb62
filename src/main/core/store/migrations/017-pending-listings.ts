import { CREATE_ITEMS_LIVE_VIEW, CREATE_LIVE_REMOVALS_VIEW } from '../worker/rows';
import type { Migration } from './types';

/**
 * Live removals and re-listings wait in `item_prices_pending` too, folded with
 * the prices in item order (writer.foldPendingPriceSlice). Written straight into
 * `item_prices` (migration 013) each dirtied a random page of it, and a burst's
 * ~230 of them (9 % of the live-events mix) were 40 % of a commit's WAL pages
 * (writer-alone --wal-pages: 216 of 540). A pending row with `listed_at` set is a
 * re-listing, with `removed_at` set a removal; with neither, a price change.
 * `live_removals` lists the removals not folded yet, pending or not.
 */
export const migration017: Migration = {
  version: 17,
  name: 'pending-listings',
  up(db) {
    db.exec(`
      ALTER TABLE item_prices_pending ADD COLUMN listed_at INTEGER;
      ALTER TABLE item_prices_pending ADD COLUMN removed_at INTEGER;
      DROP VIEW items_live;
      ${CREATE_ITEMS_LIVE_VIEW}
      ${CREATE_LIVE_REMOVALS_VIEW}
    `);
  },
};
