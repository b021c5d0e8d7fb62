import type { Migration } from './types';

/**
 * The first schema. Times are epoch milliseconds (INTEGER) where they are
 * sorted or ranged on, ISO strings where they are only shown.
 */
export const migration001: Migration = {
  version: 1,
  name: 'initial',
  up(db) {
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

      -- Distinct market hash names. Search looks names up here (a few thousand rows)
      -- and only then touches items through items.name_id.
      CREATE TABLE names (
        name_id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        item_count INTEGER NOT NULL DEFAULT 0
      );
      CREATE VIRTUAL TABLE names_fts USING fts5(name, content='names', content_rowid='name_id', tokenize='trigram');
      CREATE TRIGGER names_ai AFTER INSERT ON names BEGIN
        INSERT INTO names_fts(rowid, name) VALUES (new.name_id, new.name);
      END;
      CREATE TRIGGER names_ad AFTER DELETE ON names BEGIN
        INSERT INTO names_fts(names_fts, rowid, name) VALUES ('delete', old.name_id, old.name);
      END;

      -- The on-sale catalog. name_id has no FOREIGN KEY on purpose: names is a lookup
      -- structure kept in step by the writer, and an FK check per row slows a 1M-row sync.
      CREATE TABLE items (
        itemId INTEGER PRIMARY KEY,
        assetId TEXT NOT NULL,
        name_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        phase TEXT,
        price INTEGER NOT NULL,
        float REAL,
        paintSeed INTEGER,
        paintIndex INTEGER,
        rarityColor TEXT,
        rarity_rank INTEGER,
        img TEXT,
        statTrak INTEGER NOT NULL,
        souvenir INTEGER NOT NULL,
        stickerCount INTEGER NOT NULL,
        stickerNames TEXT NOT NULL,
        keyChainNames TEXT NOT NULL,
        json TEXT NOT NULL,
        listed_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        last_move INTEGER NOT NULL DEFAULT 0
      );
      -- One index per sortable/filterable column the catalog view offers; the rowid
      -- (itemId) is the implicit last column of each, so "ORDER BY col, itemId" is
      -- served straight from the index in either direction.
      CREATE INDEX items_price ON items(price);
      CREATE INDEX items_name ON items(name);
      CREATE INDEX items_name_id ON items(name_id);
      CREATE INDEX items_float ON items(float);
      CREATE INDEX items_paint_seed ON items(paintSeed);
      CREATE INDEX items_phase ON items(phase);
      CREATE INDEX items_sticker_count ON items(stickerCount);
      CREATE INDEX items_listed_at ON items(listed_at);
      CREATE INDEX items_rarity ON items(rarity_rank);

      -- Items that left sale, kept a while so an open detail view or a trade can still show them.
      CREATE TABLE sold_items (
        itemId INTEGER PRIMARY KEY,
        json TEXT NOT NULL,
        removed_at INTEGER NOT NULL
      );
      CREATE INDEX sold_items_removed_at ON sold_items(removed_at);

      CREATE TABLE price_points (
        itemId INTEGER NOT NULL,
        at INTEGER NOT NULL,
        price INTEGER NOT NULL
      );
      CREATE INDEX price_points_item ON price_points(itemId, at);

      CREATE TABLE trades (
        tradeId TEXT PRIMARY KEY,
        externalId TEXT,
        status TEXT NOT NULL,
        status_rank INTEGER NOT NULL,
        price INTEGER NOT NULL,
        itemId INTEGER NOT NULL,
        assetId TEXT NOT NULL,
        offerId TEXT,
        tradeUrl TEXT NOT NULL,
        market_hash_name TEXT NOT NULL,
        phase TEXT,
        float REAL,
        webhookStatus TEXT,
        failReason TEXT,
        errorCode INTEGER,
        createdAt TEXT NOT NULL,
        updatedAt TEXT NOT NULL,
        completedAt TEXT,
        cancelledAt TEXT,
        endProtection TEXT,
        rollbackAt TEXT,
        stage INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX trades_created ON trades(createdAt, tradeId);
      CREATE INDEX trades_status ON trades(status, createdAt);
      CREATE INDEX trades_external ON trades(externalId) WHERE externalId IS NOT NULL;

      CREATE TABLE trade_timeline (
        tradeId TEXT NOT NULL REFERENCES trades(tradeId) ON DELETE CASCADE,
        status TEXT NOT NULL,
        at TEXT NOT NULL,
        errorCode INTEGER,
        failReason TEXT,
        source TEXT NOT NULL,
        PRIMARY KEY (tradeId, status)
      ) WITHOUT ROWID;

      CREATE TABLE ledger (
        id INTEGER PRIMARY KEY,
        type TEXT NOT NULL,
        amount INTEGER NOT NULL,
        balanceBefore INTEGER NOT NULL,
        balanceAfter INTEGER NOT NULL,
        tradeId TEXT,
        note TEXT,
        createdAt TEXT NOT NULL,
        market_hash_name TEXT,
        phase TEXT
      );
      CREATE INDEX ledger_created ON ledger(createdAt, id);
      CREATE INDEX ledger_trade ON ledger(tradeId) WHERE tradeId IS NOT NULL;

      CREATE TABLE recipients (
        id TEXT PRIMARY KEY,
        label TEXT NOT NULL,
        tradeUrl TEXT NOT NULL,
        createdAt TEXT NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE alert_rules (
        id TEXT PRIMARY KEY,
        json TEXT NOT NULL,
        createdAt TEXT NOT NULL
      ) WITHOUT ROWID;

      -- History outlives its rule (the firing keeps ruleName), so no foreign key.
      CREATE TABLE alert_firings (
        id TEXT PRIMARY KEY,
        ruleId TEXT NOT NULL,
        ruleName TEXT NOT NULL,
        itemId INTEGER NOT NULL,
        market_hash_name TEXT NOT NULL,
        price INTEGER NOT NULL,
        firedAt TEXT NOT NULL,
        acknowledged INTEGER NOT NULL DEFAULT 0,
        autoBuyTradeId TEXT,
        autoBuyError TEXT,
        autoBuyDone INTEGER NOT NULL DEFAULT 0,
        UNIQUE (ruleId, itemId, price)
      ) WITHOUT ROWID;
      CREATE INDEX alert_firings_fired ON alert_firings(firedAt);
      CREATE INDEX alert_firings_unack ON alert_firings(acknowledged) WHERE acknowledged = 0;
    `);
  },
};
