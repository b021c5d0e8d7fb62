import { migration003 } from './003-item-hash';
import type { Migration } from './types';

/**
 * `items.hash` is recomputed with the current hashJson (two MurmurHash3 lanes
 * in JavaScript, replacing a native SHA-1 call that cost twice as much per item
 * during a sync), by the same statement as step 3, which uses whatever hashJson
 * is. Without it every stored hash would differ from what the next sync
 * computes, and that sync would take every item for a changed one.
 */
export const migration011: Migration = {
  version: 11,
  name: 'item-hash-murmur',
  up(db) {
    migration003.up(db);
  },
};
