import { hashJson } from '../worker/rows';
import type { Migration } from './types';

/**
 * `items.hash` becomes hashJson (SHA-1 based) of the stored item JSON, the
 * hash a sync computes over each item's bytes as they arrive, so it can skip
 * parsing unchanged items (worker/catalogSync.ts).
 */
export const migration003: Migration = {
  version: 3,
  name: 'item-hash',
  up(db) {
    db.function('md_hash_json', { deterministic: true }, (text: unknown) => hashJson(String(text)));
    db.exec('UPDATE items SET hash = coalesce((SELECT md_hash_json(j.json) FROM item_json j WHERE j.itemId = items.itemId), 0)');
  },
};
