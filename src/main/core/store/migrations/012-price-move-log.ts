import type { Migration } from './types';

/**
 * Live price moves go to the change log (`item_changes.at / moved / previous`),
 * one appended row each, and are folded into `price_moves` in large sorted
 * batches (writer.foldPriceMoves): an insert into `price_moves` per event dirtied
 * one random page of it per event, written again at every commit. Readers add
 * the log's moves after `moves.folded` to an item's history. Nothing is unfolded
 * yet: the mark starts at the log's end.
 */
export const migration012: Migration = {
  version: 12,
  name: 'price-move-log',
  up(db) {
    db.exec(`
      ALTER TABLE item_changes ADD COLUMN at INTEGER;
      ALTER TABLE item_changes ADD COLUMN moved INTEGER;
      ALTER TABLE item_changes ADD COLUMN previous INTEGER;
      INSERT OR REPLACE INTO meta (key, value) SELECT 'moves.folded', coalesce(max(seq), 0) FROM item_changes;
    `);
  },
};
