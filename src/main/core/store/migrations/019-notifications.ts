import type { Migration } from './types';

/**
 * The notification centre: every notification the engine raised (trade
 * status changes, alert firings, auto-buys and skips, connection changes),
 * newest first by `at`, with when it was read (null: unread). `target` is the
 * notification's target as JSON. The partial index keeps the unread count a
 * look-up however long the history grows.
 */
export const migration019: Migration = {
  version: 19,
  name: 'notifications',
  up(db) {
    db.exec(`
      CREATE TABLE notifications (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        category TEXT NOT NULL,
        severity TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        target TEXT,
        at TEXT NOT NULL,
        readAt TEXT
      );
      CREATE INDEX notifications_at ON notifications(at DESC, id);
      CREATE INDEX notifications_unread ON notifications(at) WHERE readAt IS NULL;
    `);
  },
};
