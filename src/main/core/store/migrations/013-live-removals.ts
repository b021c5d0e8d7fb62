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
 * marked). `items_live` (what readers query) leaves marked items out. (The view as
 * this step made it, spelled out: later steps lay more over it, see rows.ts.)
 */
export const migration013: Migration = {
  version: 13,
  name: 'live-removals',
  up(db) {
    db.exec(`
      ALTER TABLE item_prices ADD COLUMN listed_at INTEGER;
      ALTER TABLE item_prices ADD COLUMN removed_at INTEGER;
      DROP VIEW items_live;
      CREATE VIEW items_live AS
      SELECT i.itemId AS itemId, i.assetId AS assetId, i.name_id AS name_id, i.name AS name, i.phase AS phase,
             coalesce(o.price, i.price) AS price, i.float AS float, i.paintSeed AS paintSeed, i.paintIndex AS paintIndex,
             i.rarityColor AS rarityColor, i.rarity_rank AS rarity_rank, i.img AS img, i.statTrak AS statTrak,
             i.souvenir AS souvenir, i.stickerCount AS stickerCount, i.stickerNames AS stickerNames,
             i.keyChainNames AS keyChainNames, i.keyChainCount AS keyChainCount, coalesce(o.listed_at, i.listed_at) AS listed_at,
             coalesce(o.updated_at, i.updated_at) AS updated_at, coalesce(o.last_move, i.last_move) AS last_move,
             CASE WHEN o.itemId IS NULL THEN i.hash ELSE 0 END AS hash
      FROM items i LEFT JOIN item_prices o ON o.itemId = i.itemId
      WHERE o.removed_at IS NULL;
    `);
  },
};
