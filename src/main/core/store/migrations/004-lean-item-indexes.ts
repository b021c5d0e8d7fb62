import type { Migration } from './types';

/**
 * Catalog filters and sorts are answered by the readers' in-memory catalog
 * index (worker/catalogIndex.ts); SQL answers them only for the second or two
 * the index takes to build after opening or after a large sync. Of the per-column
 * indexes only these stay: items_price (the default sort, so the first page after
 * a cold start comes from an index) and items_name_id (search by name). The
 * others cost every write (nine b-trees per feed event) and ~1.5 s per 500k-row
 * first sync, to speed up a query path that is used for a moment.
 */
export const migration004: Migration = {
  version: 4,
  name: 'lean-item-indexes',
  up(db) {
    db.exec(`
      DROP INDEX IF EXISTS items_name;
      DROP INDEX IF EXISTS items_float;
      DROP INDEX IF EXISTS items_paint_seed;
      DROP INDEX IF EXISTS items_phase;
      DROP INDEX IF EXISTS items_sticker_count;
      DROP INDEX IF EXISTS items_listed_at;
      DROP INDEX IF EXISTS items_rarity;
    `);
  },
};
