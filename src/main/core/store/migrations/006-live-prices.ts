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
      -- The view as it was at this step (008 adds a column: worker/rows.ts has the current one).
      CREATE VIEW items_live AS
      SELECT i.itemId AS itemId, i.assetId AS assetId, i.name_id AS name_id, i.name AS name, i.phase AS phase,
      coalesce(o.price, i.price) AS price, i.float AS float, i.paintSeed AS paintSeed, i.paintIndex AS paintIndex,
      i.rarityColor AS rarityColor, i.rarity_rank AS rarity_rank, i.img AS img, i.statTrak AS statTrak,
      i.souvenir AS souvenir, i.stickerCount AS stickerCount, i.stickerNames AS stickerNames,
      i.keyChainNames AS keyChainNames, i.listed_at AS listed_at,
      coalesce(o.updated_at, i.updated_at) AS updated_at, coalesce(o.last_move, i.last_move) AS last_move,
      CASE WHEN o.itemId IS NULL THEN i.hash ELSE 0 END AS hash
      FROM items i LEFT JOIN item_prices o ON o.itemId = i.itemId;
    `);
  },
};
