/**
 * The sandbox's schema as numbered migrations; `user_version` records the last applied.
 * Timestamps are integer epoch milliseconds of the sandbox clock; money is integer cents.
 */
export const SANDBOX_MIGRATIONS: readonly string[] = [
  /* 1 */ `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;

  CREATE TABLE merchants (
    merchant_id TEXT PRIMARY KEY,
    api_key TEXT NOT NULL,
    balance INTEGER NOT NULL DEFAULT 0,
    credit_limit INTEGER NOT NULL DEFAULT 0,
    webhook_url TEXT,
    ip_allowlist TEXT NOT NULL DEFAULT '[]',
    reveal_steam_id INTEGER NOT NULL DEFAULT 0,
    reveal_inspect INTEGER NOT NULL DEFAULT 0,
    reveal_trade_url INTEGER NOT NULL DEFAULT 0,
    webhook_failures INTEGER NOT NULL DEFAULT 0,
    webhook_pauses INTEGER NOT NULL DEFAULT 0,
    webhook_paused_until INTEGER,
    created_at INTEGER NOT NULL
  ) STRICT;

  -- json holds the Item without steamId/inspectInGame/tradeUrl, which are columns
  -- because each merchant sees them only when an administrator enabled them.
  CREATE TABLE items (
    item_id INTEGER PRIMARY KEY,
    asset_id TEXT NOT NULL,
    market_hash_name TEXT NOT NULL,
    phase TEXT,
    price INTEGER NOT NULL,
    steam_id TEXT,
    inspect_in_game TEXT,
    trade_url TEXT,
    json TEXT NOT NULL,
    on_sale INTEGER NOT NULL DEFAULT 1,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX items_on_sale_name ON items (market_hash_name, price) WHERE on_sale = 1;

  CREATE TABLE trades (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    trade_id TEXT NOT NULL UNIQUE,
    merchant_id TEXT NOT NULL REFERENCES merchants (merchant_id),
    external_id TEXT,
    status TEXT NOT NULL,
    price INTEGER NOT NULL,
    item_id INTEGER NOT NULL,
    asset_id TEXT NOT NULL,
    offer_id TEXT,
    trade_url TEXT NOT NULL,
    partner TEXT NOT NULL,
    holder TEXT,
    market_hash_name TEXT NOT NULL,
    phase TEXT,
    float REAL,
    webhook_status TEXT,
    fail_reason TEXT,
    error_code INTEGER,
    trade_duration_seconds INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    sent_at INTEGER,
    expires_at INTEGER,
    completed_at INTEGER,
    cancelled_at INTEGER,
    end_protection INTEGER,
    rollback_at INTEGER,
    UNIQUE (merchant_id, external_id)
  ) STRICT;
  CREATE INDEX trades_by_merchant ON trades (merchant_id, created_at DESC, seq DESC);
  CREATE INDEX trades_active_partner ON trades (partner) WHERE status IN ('PENDING', 'SENT', 'CREATING');
  CREATE INDEX trades_active_holder ON trades (holder) WHERE status IN ('PENDING', 'SENT', 'CREATING');
  CREATE INDEX trades_expiring ON trades (expires_at) WHERE status = 'SENT';

  CREATE TABLE ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    merchant_id TEXT NOT NULL REFERENCES merchants (merchant_id),
    type TEXT NOT NULL,
    amount INTEGER NOT NULL,
    balance_before INTEGER NOT NULL,
    balance_after INTEGER NOT NULL,
    trade_id TEXT,
    note TEXT,
    created_at INTEGER NOT NULL,
    market_hash_name TEXT,
    phase TEXT,
    CHECK (balance_after = balance_before + amount)
  ) STRICT;
  CREATE INDEX ledger_by_merchant ON ledger (merchant_id, created_at DESC, id DESC);

  -- Declines and expiries per trade URL owner, for the partner block.
  CREATE TABLE partner_strikes (
    partner TEXT NOT NULL,
    at INTEGER NOT NULL,
    trade_id TEXT NOT NULL
  ) STRICT;
  CREATE INDEX partner_strikes_by_partner ON partner_strikes (partner, at);
  CREATE TABLE partner_blocks (partner TEXT PRIMARY KEY, until INTEGER NOT NULL) STRICT;

  CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    merchant_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    trade_id TEXT,
    url TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    http_status INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    last_attempt_at INTEGER,
    next_attempt_at INTEGER
  ) STRICT;
  CREATE INDEX webhook_deliveries_by_merchant ON webhook_deliveries (merchant_id, id);
  CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (state) WHERE state IN ('queued', 'retrying', 'paused');
  `,
  /* 2 */ `
  -- Webhooks: one trade_updated per status of a trade, and the trade's webhookStatus from its newest settled delivery.
  CREATE INDEX webhook_deliveries_by_trade ON webhook_deliveries (trade_id, id) WHERE trade_id IS NOT NULL;
  -- A merchant's waiting deliveries without walking its whole delivery log (queries repeat the WHERE).
  CREATE INDEX webhook_deliveries_waiting_by_merchant ON webhook_deliveries (merchant_id, state, id)
    WHERE state IN ('queued', 'retrying', 'paused');
  `,
  /* 3 */ `
  -- The trade's wire JSON without its clock-dependent \`stage\` (and without the closing brace), kept
  -- current by every write (domain/trades.ts): Trades/History answers by concatenation. NULL = not yet
  -- computed (rows written before this column existed); the reader computes and stores it.
  ALTER TABLE trades ADD COLUMN wire TEXT;
  -- A history page reads only this index (the JSON comes from memory or the row, by id).
  CREATE INDEX trades_page ON trades (merchant_id, created_at DESC, seq DESC, status, end_protection, trade_id);
  `,
  /* 4 */ `
  -- Repricings wrote the new price into the item's JSON as a REAL (\`"price":67.0\`): the spec's integer again.
  UPDATE items SET json = json_set(json, '$.price', price) WHERE json_type(json, '$.price') = 'real';
  `,
  /* 5 */ `
  -- BalanceHistory of one type (the desk reads every TRADE ROLLBACK since a date): its count and its pages walk only
  -- that type's entries, not the merchant's whole ledger.
  CREATE INDEX ledger_by_type ON ledger (merchant_id, type, created_at DESC, id DESC);
  `,
  /* 6 */ `
  -- Trades/History by status (a desk's reconcile asks for PENDING, SENT and CREATING) or by webhookStatus (the
  -- failed deliveries, asked every minute): their count and pages walk only the matching trades, not every trade of
  -- the merchant (docs/sandbox.md). By status, covering a page as trades_page does (else the planner walks that one).
  CREATE INDEX trades_by_status ON trades (merchant_id, status, created_at DESC, seq DESC, end_protection, trade_id);
  CREATE INDEX trades_by_webhook_status ON trades (merchant_id, webhook_status, created_at DESC, seq DESC);
  `,
];
