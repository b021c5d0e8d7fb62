import { CREATE_ITEMS_LIVE_VIEW } from '../worker/rows';
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
      ${CREATE_ITEMS_LIVE_VIEW}
    `);
  },
};
