import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { parseTradeUrl } from '../../../shared/api';
import { versionError } from './errors';

/** The user's records: `PRAGMA user_version`, kept by migrations. The catalog cache: CACHE_VERSION, another one re-created empty. */
export const SCHEMA_VERSION = 29;
/** The last pre-release layout: its user tables are this release's; its catalog tables are dropped. */
const PRE_RELEASE_VERSION = 19;
export const CACHE_VERSION = 4;
const CACHE_VERSION_KEY = 'cache.version';
/** A new id each time the cache is created: what a reader's saved snapshot belongs to. */
export const CACHE_ID_KEY = 'cache.id';
/** Sets a key of `meta` (key, value: its JSON text). */
export const SET_META_SQL =
  'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value';
/** The trade history back-fill's high-water mark in `meta` (engine/session/tradePages.ts): the cache holds the history. */
export const HISTORY_MARK_META = 'trades_history_mark';
/** A history back-fill under way in `meta` (engine/session/historyFill.ts): what is left to page, so a restart resumes it. */
export const HISTORY_FILL_META = 'trades_history_fill';
/** A ledger sync that stopped before its last page (engine/session/walletSync.ts): the range it has left to page. */
export const LEDGER_FILL_META = 'ledger_fill';
/** The catalog's keys in `meta`, dropped with the cache. */
export const CATALOG_META = {
  /** The writer's transaction counter (`items.version` of what it wrote last), which readers follow. */
  version: 'catalog.version',
  lastUpdate: 'catalog.lastUpdate',
  syncedAt: 'catalog.syncedAt',
  serverTotalItems: 'catalog.serverTotalItems',
  serverTotalValue: 'catalog.serverTotalValue',
  historyPrunedAt: 'catalog.historyPrunedAt',
  /** Set while a sync writes new items' texts ahead of its final transaction; left set by one that failed. */
  syncUnfinished: 'catalog.syncUnfinished',
} as const;

/** The trade statuses the failures board counts (the outcome table's failures, and a rejected request). */
export const FAILURE_STATUSES = ['EXPIRED', 'CANCELLED', 'FAILED', 'REJECTED'] as const;
const FAILURE_STATUS_LIST = FAILURE_STATUSES.map((status) => `'${status}'`).join(', ');
/**
 * A reversal the buyer (the recipient) made: the failReason's leading word, as `whoReversed` (shared/api/reversal.ts)
 * reads it: spaces skipped, any case, not followed by a letter. 1 or 0, never null.
 */
const buyerReversedOf = (t: 'new.' | 'old.' | '') =>
  `iif(${t}status = 'REVERSED' AND (lower(ltrim(${t}failReason, ' ')) || ' ') GLOB 'buyer[^a-z]*', 1, 0)`;
/** A trade's share of its recipient's totals: 1 or 0 per column, `value` the price of a delivered trade. */
const shareOf = (t: 'new.' | 'old.' | '') => ({
  active: `(${t}status IN ('PENDING', 'SENT', 'CREATING'))`,
  delivered: `(${t}status = 'COMPLETED')`,
  cancelled: `(${t}status IN ('CANCELLED', 'EXPIRED', 'FAILED', 'REJECTED'))`,
  reversed: `(${t}status = 'REVERSED')`,
  buyerReversed: buyerReversedOf(t),
  value: `iif(${t}status = 'COMPLETED', ${t}price, 0)`,
});
const addShare = (t: 'new' | 'old') => {
  const s = shareOf(`${t}.`);
  return `INSERT INTO recipient_totals (partner, trades, active, delivered, cancelled, reversed, value, lastCreatedAt,
        buyerReversed)
      SELECT ${t}.partner, 1, ${s.active}, ${s.delivered}, ${s.cancelled}, ${s.reversed}, ${s.value}, ${t}.createdAt,
        ${s.buyerReversed}
      WHERE ${t}.partner IS NOT NULL
      ON CONFLICT(partner) DO UPDATE SET trades = trades + 1, active = active + excluded.active,
        delivered = delivered + excluded.delivered, cancelled = cancelled + excluded.cancelled,
        reversed = reversed + excluded.reversed, buyerReversed = buyerReversed + excluded.buyerReversed,
        value = value + excluded.value,
        lastCreatedAt = max(coalesce(lastCreatedAt, ''), excluded.lastCreatedAt);`;
};
const dropShare = (t: 'new' | 'old') => {
  const s = shareOf(`${t}.`);
  return `UPDATE recipient_totals SET trades = trades - 1, active = active - ${s.active},
      delivered = delivered - ${s.delivered}, cancelled = cancelled - ${s.cancelled},
      reversed = reversed - ${s.reversed}, buyerReversed = buyerReversed - ${s.buyerReversed},
      value = value - ${s.value} WHERE partner = ${t}.partner;`;
};

/**
 * Trades by recipient: counts by outcome (and of the reversals, those the buyer made), the value delivered and the newest
 * trade's creation (sorting by last trade reads this column, not each recipient's trades; a bound from above once a
 * trade is deleted), kept on every write (a year holds millions of trades).
 */
const RECIPIENT_TOTALS = `
  CREATE TABLE IF NOT EXISTS recipient_totals (partner INTEGER PRIMARY KEY, trades INTEGER NOT NULL, active INTEGER NOT NULL,
    delivered INTEGER NOT NULL, cancelled INTEGER NOT NULL, reversed INTEGER NOT NULL, value INTEGER NOT NULL,
    lastCreatedAt TEXT, buyerReversed INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
  CREATE TRIGGER IF NOT EXISTS recipient_totals_insert AFTER INSERT ON trades WHEN new.partner IS NOT NULL BEGIN
    ${addShare('new')}
  END;
  CREATE TRIGGER IF NOT EXISTS recipient_totals_update AFTER UPDATE OF status, price, partner, failReason ON trades
    WHEN old.status IS NOT new.status OR old.price IS NOT new.price OR old.partner IS NOT new.partner
      OR old.failReason IS NOT new.failReason BEGIN
    ${dropShare('old')}
    ${addShare('new')}
  END;
  CREATE INDEX IF NOT EXISTS trades_protection ON trades(endProtection, price) WHERE status = 'COMPLETED' AND stage = 1;
  CREATE TRIGGER IF NOT EXISTS recipient_totals_delete AFTER DELETE ON trades WHEN old.partner IS NOT NULL BEGIN
    ${dropShare('old')}
  END;
`;

/** A file from before 24 (or one filled with its triggers set aside): the recipients' totals from the rows. */
export const RECIPIENT_TOTALS_FROM_ROWS = `
  DELETE FROM recipient_totals;
  INSERT INTO recipient_totals (partner, trades, active, delivered, cancelled, reversed, value, lastCreatedAt, buyerReversed)
    SELECT partner, count(*), sum(${shareOf('').active}), sum(${shareOf('').delivered}), sum(${shareOf('').cancelled}),
      sum(${shareOf('').reversed}), sum(${shareOf('').value}), max(createdAt), sum(${shareOf('').buyerReversed})
    FROM trades WHERE partner IS NOT NULL GROUP BY partner;
`;

/** A file of 24 to 27: each recipient's newest trade, one partner-index look-up per recipient. */
const RECIPIENT_LAST_FROM_ROWS = `
  UPDATE recipient_totals SET lastCreatedAt = (SELECT max(createdAt) FROM trades t WHERE t.partner = recipient_totals.partner);
`;

/**
 * A file of 24 to 28: each recipient's reversals by the buyer, from the REVERSED trades alone (the status index: a
 * year's 3.6 M trades hold some tens of thousands of reversals); the other recipients keep the column's 0.
 */
export const RECIPIENT_BUYER_REVERSED_FROM_ROWS = `
  UPDATE recipient_totals SET buyerReversed = r.n FROM (
    SELECT partner, count(*) AS n FROM trades INDEXED BY trades_status
    WHERE status = 'REVERSED' AND partner IS NOT NULL AND ${buyerReversedOf('')} = 1 GROUP BY partner) AS r
  WHERE recipient_totals.partner = r.partner;
`;

const ADD_NAME = `INSERT INTO trade_names (name, lastAt) VALUES (new.market_hash_name, new.createdAt)
      ON CONFLICT(name) DO UPDATE SET lastAt = max(lastAt, excluded.lastAt);`;

/**
 * The item names traded, each once with its newest trade's `createdAt` (kept by triggers; a bound from above once a
 * trade is deleted), and the trades by name (`trades_name`): the order look-up matches a part of a name against these
 * few rows, then reads each matching name's newest trades, newest name first, until older names cannot make the list.
 */
const TRADE_NAMES = `
  CREATE TABLE IF NOT EXISTS trade_names (name TEXT PRIMARY KEY, lastAt TEXT NOT NULL) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS trades_name ON trades(market_hash_name, createdAt);
  CREATE TRIGGER IF NOT EXISTS trade_names_insert AFTER INSERT ON trades BEGIN
    ${ADD_NAME}
  END;
  CREATE TRIGGER IF NOT EXISTS trade_names_update AFTER UPDATE OF market_hash_name, createdAt ON trades
    WHEN old.market_hash_name IS NOT new.market_hash_name OR old.createdAt IS NOT new.createdAt BEGIN
    ${ADD_NAME}
  END;
`;

/** A file from before 27 (or one filled with its triggers set aside): the traded names from the rows. */
export const TRADE_NAMES_FROM_ROWS = `
  DELETE FROM trade_names;
  INSERT INTO trade_names (name, lastAt) SELECT market_hash_name, max(createdAt) FROM trades GROUP BY market_hash_name;
`;

/**
 * What "buy the next one" needs of a refused buy by name (25): its phase and recipient, and whether it was one (a
 * buy by name the marketplace refused; the desk's own refusals sent nothing and leave the order id free).
 */
const BUY_REFUSAL_CHAIN_COLUMNS = ['phase TEXT', 'tradeUrl TEXT', 'byName INTEGER NOT NULL DEFAULT 0'];

/**
 * Created where missing when the schema version moves (21 added `saved_searches`: catalog queries by name; 22
 * `auto_buys`: each auto-buy, written before its request leaves, with what became of it; 23 the trades' `partner`,
 * the indexes of the trades' and ledger's filters (`trades_order`, the page order, holds both ids and replaces
 * `trades_created`), and the roll-ups their triggers keep: `trade_days` and `ledger_days` count rows by UTC day and status/type (totals and deep pages), `ledger_hours` holds each hour's
 * count and last balance by type, and of every type as type '*' (the balance chart); 24 the failures board's:
 * `trade_failure_days`, the failed trades' count and value by UTC day, status and errorCode (0 for none), kept by
 * triggers like `trade_days`; `trades_error`, the failed trades by errorCode; `buy_refusals`, the buy refusals the
 * desk saw (store/worker/failuresQuery.ts); and `recipient_totals`, the trades by recipient (partner) that
 * Operations → Recipients lists, kept by its triggers (RECIPIENT_TOTALS), and `trades_protection`, the completed
 * trades still reversible by their end of protection (Operations → Reversals); 25 `trades_offer`, the trades by offer id (order look-up), and the refused buys by name in
 * `buy_refusals` (BUY_REFUSAL_CHAIN_COLUMNS, `buy_refusals_chain`), which "buy the next one" continues after a restart; 26 `trades_webhook_failed_at`, the failed deliveries by status
 * time, covering Operations → Webhook health's counts and list, and `trades_updated`, the cache's last change; 27 `trade_names` and `trades_name`,
 * the order look-up by a part of an item's name: TRADE_NAMES; 28 `recipient_totals.lastCreatedAt`, Recipients by last
 * trade; 29 `recipient_totals.buyerReversed`, the reversals the recipient made: Reversals' recipients who reversed).
 */
const RECORD_TABLES = `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS trades (tradeId TEXT PRIMARY KEY, externalId TEXT, status TEXT NOT NULL, status_rank INTEGER NOT NULL,
    price INTEGER NOT NULL, itemId INTEGER NOT NULL, assetId TEXT NOT NULL, offerId TEXT, tradeUrl TEXT NOT NULL,
    market_hash_name TEXT NOT NULL, phase TEXT, float REAL, webhookStatus TEXT, failReason TEXT, errorCode INTEGER,
    createdAt TEXT NOT NULL, updatedAt TEXT NOT NULL, completedAt TEXT, cancelledAt TEXT, endProtection TEXT,
    rollbackAt TEXT, stage INTEGER NOT NULL, updated_at INTEGER NOT NULL, partner INTEGER) WITHOUT ROWID;
  DROP INDEX IF EXISTS trades_created;
  CREATE INDEX IF NOT EXISTS trades_order ON trades(createdAt, tradeId, externalId);
  CREATE INDEX IF NOT EXISTS trades_status ON trades(status, createdAt);
  CREATE INDEX IF NOT EXISTS trades_external ON trades(externalId) WHERE externalId IS NOT NULL;
  CREATE INDEX IF NOT EXISTS trades_external_nocase ON trades(externalId COLLATE NOCASE, createdAt) WHERE externalId IS NOT NULL;
  CREATE INDEX IF NOT EXISTS trades_id_nocase ON trades(tradeId COLLATE NOCASE, createdAt);
  CREATE INDEX IF NOT EXISTS trades_partner ON trades(partner, createdAt) WHERE partner IS NOT NULL;
  CREATE INDEX IF NOT EXISTS trades_webhook_failed ON trades(createdAt) WHERE webhookStatus = 'failed';
  CREATE INDEX IF NOT EXISTS trades_offer ON trades(offerId) WHERE offerId IS NOT NULL;
  CREATE INDEX IF NOT EXISTS trades_webhook_failed_at ON trades(updatedAt, tradeId, status) WHERE webhookStatus = 'failed';
  CREATE INDEX IF NOT EXISTS trades_updated ON trades(updatedAt);
  CREATE TABLE IF NOT EXISTS trade_days (day TEXT NOT NULL, status TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (day, status)) WITHOUT ROWID;
  CREATE TRIGGER IF NOT EXISTS trade_days_insert AFTER INSERT ON trades BEGIN
    INSERT INTO trade_days (day, status, n) VALUES (substr(new.createdAt, 1, 10), new.status, 1)
      ON CONFLICT(day, status) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS trade_days_update AFTER UPDATE OF status, createdAt ON trades
    WHEN old.status IS NOT new.status OR old.createdAt IS NOT new.createdAt BEGIN
    UPDATE trade_days SET n = n - 1 WHERE day = substr(old.createdAt, 1, 10) AND status = old.status;
    INSERT INTO trade_days (day, status, n) VALUES (substr(new.createdAt, 1, 10), new.status, 1)
      ON CONFLICT(day, status) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS trade_days_delete AFTER DELETE ON trades BEGIN
    UPDATE trade_days SET n = n - 1 WHERE day = substr(old.createdAt, 1, 10) AND status = old.status;
  END;
  CREATE INDEX IF NOT EXISTS trades_error ON trades(errorCode, createdAt) WHERE errorCode IS NOT NULL;
  CREATE TABLE IF NOT EXISTS trade_failure_days (day TEXT NOT NULL, status TEXT NOT NULL, errorCode INTEGER NOT NULL,
    n INTEGER NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (day, status, errorCode)) WITHOUT ROWID;
  CREATE TRIGGER IF NOT EXISTS trade_failure_days_insert AFTER INSERT ON trades
    WHEN new.status IN (${FAILURE_STATUS_LIST}) BEGIN
    INSERT INTO trade_failure_days (day, status, errorCode, n, value)
      VALUES (substr(new.createdAt, 1, 10), new.status, coalesce(new.errorCode, 0), 1, new.price)
      ON CONFLICT(day, status, errorCode) DO UPDATE SET n = n + 1, value = value + excluded.value;
  END;
  CREATE TRIGGER IF NOT EXISTS trade_failure_days_update_old AFTER UPDATE OF status, createdAt, errorCode, price ON trades
    WHEN old.status IN (${FAILURE_STATUS_LIST}) BEGIN
    UPDATE trade_failure_days SET n = n - 1, value = value - old.price
      WHERE day = substr(old.createdAt, 1, 10) AND status = old.status AND errorCode = coalesce(old.errorCode, 0);
  END;
  CREATE TRIGGER IF NOT EXISTS trade_failure_days_update_new AFTER UPDATE OF status, createdAt, errorCode, price ON trades
    WHEN new.status IN (${FAILURE_STATUS_LIST}) BEGIN
    INSERT INTO trade_failure_days (day, status, errorCode, n, value)
      VALUES (substr(new.createdAt, 1, 10), new.status, coalesce(new.errorCode, 0), 1, new.price)
      ON CONFLICT(day, status, errorCode) DO UPDATE SET n = n + 1, value = value + excluded.value;
  END;
  CREATE TRIGGER IF NOT EXISTS trade_failure_days_delete AFTER DELETE ON trades
    WHEN old.status IN (${FAILURE_STATUS_LIST}) BEGIN
    UPDATE trade_failure_days SET n = n - 1, value = value - old.price
      WHERE day = substr(old.createdAt, 1, 10) AND status = old.status AND errorCode = coalesce(old.errorCode, 0);
  END;
  CREATE TABLE IF NOT EXISTS buy_refusals (id INTEGER PRIMARY KEY, at TEXT NOT NULL, code TEXT NOT NULL, itemId INTEGER,
    market_hash_name TEXT, price INTEGER NOT NULL, partner INTEGER, externalId TEXT, detail TEXT NOT NULL,
    ${BUY_REFUSAL_CHAIN_COLUMNS.join(', ')});
  CREATE INDEX IF NOT EXISTS buy_refusals_at ON buy_refusals(at);
  CREATE INDEX IF NOT EXISTS buy_refusals_chain ON buy_refusals(externalId) WHERE byName = 1;
  CREATE TABLE IF NOT EXISTS trade_timeline (tradeId TEXT NOT NULL REFERENCES trades(tradeId) ON DELETE CASCADE, status TEXT NOT NULL, at TEXT NOT NULL,
    errorCode INTEGER, failReason TEXT, source TEXT NOT NULL, PRIMARY KEY (tradeId, status)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY, type TEXT NOT NULL, amount INTEGER NOT NULL, balanceBefore INTEGER NOT NULL,
    balanceAfter INTEGER NOT NULL, tradeId TEXT, note TEXT, createdAt TEXT NOT NULL, market_hash_name TEXT, phase TEXT);
  CREATE INDEX IF NOT EXISTS ledger_created ON ledger(createdAt, id);
  CREATE INDEX IF NOT EXISTS ledger_trade ON ledger(tradeId) WHERE tradeId IS NOT NULL;
  CREATE INDEX IF NOT EXISTS ledger_trade_nocase ON ledger(tradeId COLLATE NOCASE, createdAt) WHERE tradeId IS NOT NULL;
  CREATE INDEX IF NOT EXISTS ledger_type ON ledger(type, createdAt);
  CREATE TABLE IF NOT EXISTS ledger_days (day TEXT NOT NULL, type TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (day, type)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS ledger_hours (hour TEXT NOT NULL, type TEXT NOT NULL, n INTEGER NOT NULL, lastAt TEXT NOT NULL,
    lastId INTEGER NOT NULL, balance INTEGER NOT NULL, PRIMARY KEY (type, hour)) WITHOUT ROWID;
  CREATE TRIGGER IF NOT EXISTS ledger_rollup_insert AFTER INSERT ON ledger BEGIN
    INSERT INTO ledger_days (day, type, n) VALUES (substr(new.createdAt, 1, 10), new.type, 1)
      ON CONFLICT(day, type) DO UPDATE SET n = n + 1;
    INSERT INTO ledger_hours (hour, type, n, lastAt, lastId, balance)
      VALUES (substr(new.createdAt, 1, 13), new.type, 1, new.createdAt, new.id, new.balanceAfter)
      ON CONFLICT(type, hour) DO UPDATE SET n = n + 1,
        lastAt = iif((excluded.lastAt, excluded.lastId) > (lastAt, lastId), excluded.lastAt, lastAt),
        lastId = iif((excluded.lastAt, excluded.lastId) > (lastAt, lastId), excluded.lastId, lastId),
        balance = iif((excluded.lastAt, excluded.lastId) > (lastAt, lastId), excluded.balance, balance);
    INSERT INTO ledger_hours (hour, type, n, lastAt, lastId, balance)
      VALUES (substr(new.createdAt, 1, 13), '*', 1, new.createdAt, new.id, new.balanceAfter)
      ON CONFLICT(type, hour) DO UPDATE SET n = n + 1,
        lastAt = iif((excluded.lastAt, excluded.lastId) > (lastAt, lastId), excluded.lastAt, lastAt),
        lastId = iif((excluded.lastAt, excluded.lastId) > (lastAt, lastId), excluded.lastId, lastId),
        balance = iif((excluded.lastAt, excluded.lastId) > (lastAt, lastId), excluded.balance, balance);
  END;
${RECIPIENT_TOTALS}
${TRADE_NAMES}
  CREATE TABLE IF NOT EXISTS recipients (id TEXT PRIMARY KEY, label TEXT NOT NULL, tradeUrl TEXT NOT NULL, createdAt TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS alert_rules (id TEXT PRIMARY KEY, json TEXT NOT NULL, createdAt TEXT NOT NULL) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS alert_firings (id TEXT PRIMARY KEY, ruleId TEXT NOT NULL, ruleName TEXT NOT NULL, itemId INTEGER NOT NULL,
    market_hash_name TEXT NOT NULL, price INTEGER NOT NULL, firedAt TEXT NOT NULL, acknowledged INTEGER NOT NULL DEFAULT 0,
    autoBuyTradeId TEXT, autoBuyError TEXT, autoBuyDone INTEGER NOT NULL DEFAULT 0, autoBuySkipped TEXT,
    autoBuyDryRun INTEGER NOT NULL DEFAULT 0, UNIQUE (ruleId, itemId, price)) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS alert_firings_fired ON alert_firings(firedAt);
  CREATE INDEX IF NOT EXISTS alert_firings_unack ON alert_firings(acknowledged) WHERE acknowledged = 0;
  CREATE INDEX IF NOT EXISTS alert_firings_skipped ON alert_firings(ruleId, firedAt) WHERE autoBuySkipped IS NOT NULL;
  CREATE TABLE IF NOT EXISTS auto_buys (externalId TEXT PRIMARY KEY, ruleId TEXT NOT NULL, itemId INTEGER NOT NULL, price INTEGER NOT NULL,
    at TEXT NOT NULL, state TEXT NOT NULL, tradeId TEXT) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS auto_buys_at ON auto_buys(at);
  CREATE INDEX IF NOT EXISTS auto_buys_open ON auto_buys(state) WHERE state IN ('in_flight', 'unknown');
  CREATE TABLE IF NOT EXISTS auto_buy_baseline (ruleId TEXT NOT NULL, itemId INTEGER NOT NULL, PRIMARY KEY (ruleId, itemId)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS notifications (id TEXT PRIMARY KEY, kind TEXT NOT NULL, category TEXT NOT NULL, severity TEXT NOT NULL, title TEXT NOT NULL,
    body TEXT NOT NULL, target TEXT, at TEXT NOT NULL, readAt TEXT);
  CREATE INDEX IF NOT EXISTS notifications_at ON notifications(at DESC, id);
  CREATE INDEX IF NOT EXISTS notifications_unread ON notifications(at) WHERE readAt IS NULL;
  CREATE TABLE IF NOT EXISTS saved_searches (id TEXT PRIMARY KEY, name TEXT NOT NULL, query TEXT NOT NULL, createdAt TEXT NOT NULL, updatedAt TEXT NOT NULL) WITHOUT ROWID;
  CREATE UNIQUE INDEX IF NOT EXISTS saved_searches_name ON saved_searches(name COLLATE NOCASE);
`;
const RECORD_TABLE_NAMES = new Set(
  Array.from(RECORD_TABLES.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g), ([, name]) => name),
);

/**
 * A file from before 23: each trade's recipient (`partner`, from its trade URL) and the roll-ups the triggers keep
 * from now on (trades and ledger entries by day, the ledger's last balance by hour), from the rows.
 */
export const ROLLUPS_FROM_ROWS = `
  UPDATE trades SET partner = partner_of(tradeUrl);
  DELETE FROM trade_days;
  INSERT INTO trade_days (day, status, n) SELECT substr(createdAt, 1, 10), status, count(*) FROM trades GROUP BY 1, 2;
  DELETE FROM ledger_days;
  INSERT INTO ledger_days (day, type, n) SELECT substr(createdAt, 1, 10), type, count(*) FROM ledger GROUP BY 1, 2;
  DELETE FROM ledger_hours;
  INSERT INTO ledger_hours (hour, type, n, lastAt, lastId, balance)
    SELECT hour, type, n, createdAt, id, balanceAfter FROM (
      SELECT substr(createdAt, 1, 13) AS hour, type, createdAt, id, balanceAfter,
        count(*) OVER (PARTITION BY substr(createdAt, 1, 13), type) AS n,
        row_number() OVER (PARTITION BY substr(createdAt, 1, 13), type ORDER BY createdAt DESC, id DESC) AS rank
      FROM ledger) WHERE rank = 1;
  INSERT INTO ledger_hours (hour, type, n, lastAt, lastId, balance)
    SELECT hour, '*', n, createdAt, id, balanceAfter FROM (
      SELECT substr(createdAt, 1, 13) AS hour, createdAt, id, balanceAfter,
        count(*) OVER (PARTITION BY substr(createdAt, 1, 13)) AS n,
        row_number() OVER (PARTITION BY substr(createdAt, 1, 13) ORDER BY createdAt DESC, id DESC) AS rank
      FROM ledger) WHERE rank = 1;
`;

/** A file from before 24: the failures board's roll-up from the rows (the triggers keep it from now on). */
export const FAILURE_DAYS_FROM_ROWS = `
  DELETE FROM trade_failure_days;
  INSERT INTO trade_failure_days (day, status, errorCode, n, value)
    SELECT substr(createdAt, 1, 10), status, coalesce(errorCode, 0), count(*), sum(price) FROM trades
    WHERE status IN (${FAILURE_STATUS_LIST}) GROUP BY 1, 2, 3;
`;

/** The recipient of a trade: the partner number of its trade URL (null when the URL is not one). */
export function partnerOf(tradeUrl: string): number | null {
  const partner = parseTradeUrl(tradeUrl)?.partner;
  return partner === undefined ? null : Number(partner);
}

/**
 * A file from before `auto_buys`: the buys its firings recorded become bought records, so the day's spend
 * survives the upgrade (order ids as auto-buy makes them: auto-<rule id's first 12>-<item>-<price>).
 */
const AUTO_BUYS_FROM_FIRINGS = `
  INSERT OR IGNORE INTO auto_buys (externalId, ruleId, itemId, price, at, state, tradeId)
  SELECT 'auto-' || substr(ruleId, 1, 12) || '-' || itemId || '-' || price, ruleId, itemId, price, firedAt, 'bought', autoBuyTradeId
    FROM alert_firings WHERE autoBuyTradeId IS NOT NULL;
`;

/** `items.version`: the writer's transaction counter (CATALOG_META.version), which readers follow; `item_json` holds no price (the row does). */
const CACHE_TABLES = `
  CREATE TABLE names (name_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
  CREATE TABLE items (itemId INTEGER PRIMARY KEY, name_id INTEGER NOT NULL, price INTEGER NOT NULL, float REAL, paintSeed INTEGER,
    phase TEXT, rarity INTEGER, statTrak INTEGER NOT NULL, souvenir INTEGER NOT NULL, stickerCount INTEGER NOT NULL,
    keyChainCount INTEGER NOT NULL, stickerNames TEXT NOT NULL, keyChainNames TEXT NOT NULL, keyChainPatterns TEXT NOT NULL, listed_at INTEGER NOT NULL,
    last_move INTEGER NOT NULL DEFAULT 0, removed_at INTEGER, hash INTEGER NOT NULL, version INTEGER NOT NULL);
  CREATE INDEX items_version ON items(version);
  CREATE INDEX items_removed ON items(removed_at) WHERE removed_at IS NOT NULL;
  CREATE TABLE item_json (itemId INTEGER PRIMARY KEY, json TEXT NOT NULL);
  CREATE TABLE price_history (itemId INTEGER NOT NULL, at INTEGER NOT NULL, price INTEGER NOT NULL, listing INTEGER NOT NULL);
  CREATE INDEX price_history_item ON price_history(itemId, at);
`;

/**
 * The last catalog version committed: the counter in meta (rows the retention dropped may have held the highest
 * version), or the rows' highest for a file from before the counter.
 */
export function catalogVersion(db: Database): number {
  return db
    .prepare<[string], number>(
      'SELECT max((SELECT coalesce(max(version), 0) FROM items), coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0))',
    )
    .pluck()
    .get(CATALOG_META.version) as number;
}

/** Refuses (before anything is written) a file this build cannot read: a newer one, or an early pre-release layout. */
export function checkSchemaVersion(version: number, file: string): void {
  if (version > SCHEMA_VERSION) throw versionError(file, version, SCHEMA_VERSION);
  if (version > 0 && version < PRE_RELEASE_VERSION)
    throw versionError(file, version, SCHEMA_VERSION, 'an early pre-release layout this version cannot read');
}

/** Brings the user's tables to SCHEMA_VERSION and the catalog cache to CACHE_VERSION, in one transaction; returns the version it found. */
export function prepareSchema(db: Database, file: string): number {
  const found = db.pragma('user_version', { simple: true }) as number;
  checkSchemaVersion(found, file);
  db.transaction(() => {
    // Re-read inside the (immediate) transaction: another process may have migrated meanwhile.
    const current = db.pragma('user_version', { simple: true }) as number;
    checkSchemaVersion(current, file);
    if (current !== SCHEMA_VERSION) {
      const tradeColumns = db.prepare<[], string>("SELECT name FROM pragma_table_info('trades')").pluck().all();
      if (tradeColumns.length > 0 && !tradeColumns.includes('partner'))
        db.exec('ALTER TABLE trades ADD COLUMN partner INTEGER');
      const refusalColumns = db.prepare<[], string>("SELECT name FROM pragma_table_info('buy_refusals')").pluck().all();
      if (refusalColumns.length > 0 && !refusalColumns.includes('byName'))
        for (const column of BUY_REFUSAL_CHAIN_COLUMNS) db.exec(`ALTER TABLE buy_refusals ADD COLUMN ${column}`);
      const totalsColumns = db
        .prepare<[], string>("SELECT name FROM pragma_table_info('recipient_totals')")
        .pluck()
        .all();
      if (totalsColumns.length > 0 && !totalsColumns.includes('lastCreatedAt'))
        db.exec('ALTER TABLE recipient_totals ADD COLUMN lastCreatedAt TEXT');
      if (totalsColumns.length > 0 && !totalsColumns.includes('buyerReversed')) {
        db.exec('ALTER TABLE recipient_totals ADD COLUMN buyerReversed INTEGER NOT NULL DEFAULT 0');
        // Created again below, writing the new columns (and the update one on a failReason change too).
        db.exec(`DROP TRIGGER IF EXISTS recipient_totals_insert; DROP TRIGGER IF EXISTS recipient_totals_update;
          DROP TRIGGER IF EXISTS recipient_totals_delete;`);
      }
      db.exec(RECORD_TABLES);
      if (current > 0 && current < 22) db.exec(AUTO_BUYS_FROM_FIRINGS);
      if (current > 0 && current < 23) {
        db.function('partner_of', { deterministic: true }, (url: unknown) =>
          typeof url === 'string' ? partnerOf(url) : null,
        );
        db.exec(ROLLUPS_FROM_ROWS);
      }
      if (current > 0 && current < 24) db.exec(FAILURE_DAYS_FROM_ROWS + RECIPIENT_TOTALS_FROM_ROWS);
      if (current > 0 && current < 27) db.exec(TRADE_NAMES_FROM_ROWS);
      if (current >= 24 && current < 28) db.exec(RECIPIENT_LAST_FROM_ROWS);
      if (current >= 24 && current < 29) db.exec(RECIPIENT_BUYER_REVERSED_FROM_ROWS);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }
    const cacheVersion = db
      .prepare<[string], string>('SELECT value FROM meta WHERE key = ?')
      .pluck()
      .get(CACHE_VERSION_KEY);
    if (cacheVersion !== String(CACHE_VERSION)) resetCache(db);
  }).immediate();
  return found;
}

/** Drops every table that is not the user's (the old or current cache) and creates the cache empty. */
function resetCache(db: Database): void {
  const objects = db
    .prepare<[], { name: string; type: string }>("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')")
    .all();
  for (const { name, type } of objects) {
    if (RECORD_TABLE_NAMES.has(name) || name === 'sqlite_sequence') continue;
    // IF EXISTS: a dropped FTS table has taken its shadow tables with it.
    db.exec(`DROP ${type === 'view' ? 'VIEW' : 'TABLE'} IF EXISTS "${name}"`);
  }
  db.prepare("DELETE FROM meta WHERE key LIKE 'catalog.%' OR key LIKE 'priceHistory.%' OR key LIKE 'moves.%'").run();
  db.exec(CACHE_TABLES);
  const setMeta = db.prepare(SET_META_SQL);
  setMeta.run(CACHE_VERSION_KEY, String(CACHE_VERSION));
  setMeta.run(CACHE_ID_KEY, JSON.stringify(randomUUID()));
}
