import type { Migration } from './types';

/** `items.keyChainCount`, so the catalog sorts by charms like by stickers; the view gains it. */
export const migration008: Migration = {
  version: 8,
  name: 'keychain-count',
  up(db) {
    db.exec(`
      ALTER TABLE items ADD COLUMN keyChainCount INTEGER NOT NULL DEFAULT 0;
      UPDATE items SET keyChainCount = coalesce((SELECT json_array_length(j.json, '$.keyChains') FROM item_json j WHERE j.itemId = items.itemId), 0);
      DROP VIEW items_live;
      -- The view as it was at this step (013 changes it: worker/rows.ts has the current one).
      CREATE VIEW items_live AS
      SELECT i.itemId AS itemId, i.assetId AS assetId, i.name_id AS name_id, i.name AS name, i.phase AS phase,
             coalesce(o.price, i.price) AS price, i.float AS float, i.paintSeed AS paintSeed, i.paintIndex AS paintIndex,
             i.rarityColor AS rarityColor, i.rarity_rank AS rarity_rank, i.img AS img, i.statTrak AS statTrak,
             i.souvenir AS souvenir, i.stickerCount AS stickerCount, i.stickerNames AS stickerNames,
             i.keyChainNames AS keyChainNames, i.keyChainCount AS keyChainCount, i.listed_at AS listed_at,
             coalesce(o.updated_at, i.updated_at) AS updated_at, coalesce(o.last_move, i.last_move) AS last_move,
             CASE WHEN o.itemId IS NULL THEN i.hash ELSE 0 END AS hash
      FROM items i LEFT JOIN item_prices o ON o.itemId = i.itemId;
    `);
  },
};
