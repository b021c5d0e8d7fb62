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
/** The view as this step made it (later steps lay more over it, see rows.ts). */
const ITEMS_LIVE_016 = `
  CREATE VIEW items_live AS
  SELECT i.itemId AS itemId, i.assetId AS assetId, i.name_id AS name_id, i.name AS name, i.phase AS phase,
         coalesce(p.price, o.price, i.price) AS price, i.float AS float, i.paintSeed AS paintSeed, i.paintIndex AS paintIndex,
         i.rarityColor AS rarityColor, i.rarity_rank AS rarity_rank, i.img AS img, i.statTrak AS statTrak,
         i.souvenir AS souvenir, i.stickerCount AS stickerCount, i.stickerNames AS stickerNames,
         i.keyChainNames AS keyChainNames, i.keyChainCount AS keyChainCount, coalesce(o.listed_at, i.listed_at) AS listed_at,
         coalesce(p.updated_at, o.updated_at, i.updated_at) AS updated_at, coalesce(p.last_move, o.last_move, i.last_move) AS last_move,
         CASE WHEN o.itemId IS NULL AND p.itemId IS NULL THEN i.hash ELSE 0 END AS hash
  FROM items i LEFT JOIN item_prices o ON o.itemId = i.itemId LEFT JOIN item_prices_pending p ON p.itemId = i.itemId
  WHERE o.removed_at IS NULL;
`;

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
      ${ITEMS_LIVE_016}
    `);
  },
};
