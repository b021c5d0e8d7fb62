import type { Migration } from './types';

/**
 * The 53-bit string hash (cyrb53, public domain) this step stored; kept here,
 * frozen, because a shipped migration never changes (003 replaces the hashes).
 */
function hashText(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Catalog layout for 1M-item catalogs:
 * - the full Item JSON moves out of `items` into `item_json`, so `items` rows
 *   stay narrow (~200 bytes) and filter scans stay in cache; `items.hash` (a
 *   53-bit hash of that JSON, hashText below) is what a sync diff
 *   compares instead of the JSON text;
 * - `names` ids are never reused (AUTOINCREMENT): readers cache name ranks by id;
 * - `item_changes` logs changed itemIds for the readers' in-memory catalog
 *   index (worker/catalogIndex.ts); 0 = reload everything.
 */
export const migration002: Migration = {
  version: 2,
  name: 'catalog-layout',
  up(db) {
    db.function('md_hash_text', { deterministic: true }, (text: unknown) => hashText(String(text)));
    db.exec(`
      CREATE TABLE item_json (
        itemId INTEGER PRIMARY KEY,
        json TEXT NOT NULL
      );
      INSERT INTO item_json (itemId, json) SELECT itemId, json FROM items;
      ALTER TABLE items ADD COLUMN hash INTEGER NOT NULL DEFAULT 0;
      UPDATE items SET hash = md_hash_text(json);
      ALTER TABLE items DROP COLUMN json;

      DROP TRIGGER names_ai;
      DROP TRIGGER names_ad;
      CREATE TABLE names_next (
        name_id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        item_count INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO names_next (name_id, name, item_count) SELECT name_id, name, item_count FROM names;
      DROP TABLE names;
      ALTER TABLE names_next RENAME TO names;
      CREATE TRIGGER names_ai AFTER INSERT ON names BEGIN
        INSERT INTO names_fts(rowid, name) VALUES (new.name_id, new.name);
      END;
      CREATE TRIGGER names_ad AFTER DELETE ON names BEGIN
        INSERT INTO names_fts(names_fts, rowid, name) VALUES ('delete', old.name_id, old.name);
      END;
      INSERT INTO names_fts(names_fts) VALUES ('rebuild');

      CREATE TABLE item_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        itemId INTEGER NOT NULL
      );
      INSERT INTO item_changes (itemId) VALUES (0);
    `);
  },
};
