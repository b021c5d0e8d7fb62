import type { Migration } from './types';

/**
 * Auto-buy guard rails. A firing auto-buy skipped (a cap, the daily budget,
 * the balance floor, stop-all, a listing older than the rule) keeps the reason
 * in `autoBuySkipped`, so the Alerts screen folds skips into one line per rule
 * and day; a dry-run firing is marked `autoBuyDryRun`. `auto_buy_baseline`
 * holds the listings on sale when a rule was saved or enabled with "only new
 * listings": auto-buy never buys them.
 */
export const migration018: Migration = {
  version: 18,
  name: 'auto-buy-guards',
  up(db) {
    db.exec(`
      ALTER TABLE alert_firings ADD COLUMN autoBuySkipped TEXT;
      ALTER TABLE alert_firings ADD COLUMN autoBuyDryRun INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX alert_firings_skipped ON alert_firings(ruleId, firedAt) WHERE autoBuySkipped IS NOT NULL;
      CREATE TABLE auto_buy_baseline (
        ruleId TEXT NOT NULL,
        itemId INTEGER NOT NULL,
        PRIMARY KEY (ruleId, itemId)
      ) WITHOUT ROWID;
    `);
  },
};
