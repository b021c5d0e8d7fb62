/**
 * The writer thread's service: owns the only write connection. Every method
 * runs synchronously in one transaction (except syncCatalog, which stages in
 * short transactions and applies in one), so the host sees each call as atomic.
 */
import { randomUUID } from 'node:crypto';
import type { BalanceTransaction, Item, PriceChange, Trade, TradeStatus } from '../../../../shared/api';
import type { AlertFiring, AlertRule, AppSettings, CatalogRow, Recipient } from '../../../../shared/ipc';
import type {
  CatalogTotals,
  CatalogSyncProgress,
  CatalogSyncRequest,
  CatalogSyncResult,
  FiringInput,
  ItemChangeGroup,
  ItemChangeGroupResult,
  ItemRemovalResult,
  ItemUpsertResult,
  LedgerInsertResult,
  PackedPriceChangeResult,
  ParsedAlertRuleInput,
  PriceChangeResult,
  PriceMove,
  RecipientInput,
  SettingsPatch,
  TradeSource,
  TradeUpdate,
  TradeUpdateResult,
  TradeUpsertResult,
  WriterMethods,
} from '../types';
import { CatalogSyncError } from '../errors';
import { packPriceChanges, priceChangeOutcome } from '../priceChanges';
import { runCatalogSync } from './catalogSync';
import { LivePrices } from './livePrices';
import { BatchedInsert } from './batchedInsert';
import { openWriteConnection, useWriterSettings, type Db } from './open';
import { PriceHistory } from './priceHistory';
import { insertNotifications, markNotificationsRead } from './notificationRows';
import type { NotificationInsertResult } from '../notifications';
import type { NotificationMarkRead } from '../../../../shared/ipc/contract';
import type { StoredNotification } from '../../../../shared/ipc';
import {
  CHANGE_LOG_KEEP,
  FOLD_MOVES_AT,
  FOLD_PRICES_AT,
  FOLD_PRICES_MAX_SLICE,
  FOLD_PRICES_SLICE,
  FOLD_REMOVALS_AT,
  FOLD_REMOVALS_SLICE,
  canAdvance,
  catalogRowFromColumns,
  DEFAULT_SETTINGS,
  FIRING_SELECT,
  firingOf,
  hashJson,
  ITEM_COLUMNS,
  itemColumns,
  itemValues,
  jsonAtPrice,
  META,
  recipientOf,
  sameTrade,
  settingsOf,
  STATUS_RANK,
  statusTimeOf,
  TRADE_FIELDS,
  TRADE_SELECT,
  tradeOf,
  type ItemColumns,
} from './rows';

/** itemId → hash of every row of `items` (two sorted columns) as of change-log entry `seq`. */
export interface KnownItemsSnapshot {
  ids: Float64Array;
  hashes: Float64Array;
  seq: number;
  /** How it was made: a scan of the table, or the previous one patched from the change log. */
  readBy: 'scan' | 'log';
}

/** An item's row with its live overrides (`item_prices`), removed live or not. */
interface ExistingItem {
  name_id: number;
  name: string;
  /** The live price (the override's, else the row's). */
  price: number;
  /** The row's own price and hash: those of its stored JSON. */
  row_price: number;
  row_hash: number;
  /** 0 when a live override is laid over the row (its JSON is stale). */
  hash: number;
  listed_at: number;
  /** The row's own listing time (an override may hold a later one). */
  row_listed_at: number;
  last_move: number;
  /** Set when the item was removed live and its row waits for the fold. */
  removed_at: number | null;
}

/** What a live removal needs of a held item. */
interface HeldItem {
  price: number;
  nameId: number;
}

/** Tables whose size live events change by the second: no planner statistics (see refreshStatistics). */
const VOLATILE_TABLES = ['item_changes', 'item_prices', 'item_prices_pending', 'price_moves', 'price_move_runs'] as const;
/** The size the planner assumes for the change log: large, so `seq > ?` is always a rowid seek. */
const CHANGE_LOG_PLANNED_ROWS = 1_000_000;

function sign(delta: number): number {
  return delta > 0 ? 1 : delta < 0 ? -1 : 0;
}

function prepareStatements(db: Db) {
  const itemInsertColumns = [...ITEM_COLUMNS, 'name_id', 'listed_at', 'updated_at', 'last_move'];
  return {
    selectItem: db.prepare<[number], ExistingItem>(
      `SELECT i.name_id AS name_id, i.name AS name, coalesce(p.price, o.price, i.price) AS price, i.price AS row_price, i.hash AS row_hash,
              CASE WHEN o.itemId IS NULL AND p.itemId IS NULL THEN i.hash ELSE 0 END AS hash, coalesce(p.listed_at, o.listed_at, i.listed_at) AS listed_at,
              i.listed_at AS row_listed_at, coalesce(p.last_move, o.last_move, i.last_move) AS last_move,
              CASE WHEN p.removed_at IS NOT NULL OR p.listed_at IS NOT NULL THEN p.removed_at ELSE o.removed_at END AS removed_at
       FROM items i LEFT JOIN item_prices o ON o.itemId = i.itemId LEFT JOIN item_prices_pending p ON p.itemId = i.itemId WHERE i.itemId = ?`,
    ),
    selectPrice: db.prepare<[number], { price: number }>('SELECT price FROM items_live WHERE itemId = ?'),
    // A live price change waits in the small pending table for the fold (migration 016).
    // Rows of (itemId, price, last_move, updated_at); a later row of an item wins.
    upsertPendingPrices: new BatchedInsert(
      db,
      4,
      (values) =>
        `INSERT INTO item_prices_pending (itemId, price, last_move, updated_at) VALUES ${values} ON CONFLICT(itemId) DO UPDATE SET price = excluded.price, last_move = excluded.last_move, updated_at = excluded.updated_at`,
    ),
    // The fold of an itemId range (after, upTo] (a slice, all, or one item), in item order: each page of item_prices written once.
    // A re-listing (listed_at) clears a removal; a removal (removed_at) keeps the listing time; a price change keeps both.
    foldPendingPrices: db.prepare<[number, number]>(
      `INSERT INTO item_prices (itemId, price, last_move, updated_at, listed_at, removed_at)
       SELECT itemId, price, last_move, updated_at, listed_at, removed_at FROM item_prices_pending WHERE itemId > ? AND itemId <= ? ORDER BY itemId
       ON CONFLICT(itemId) DO UPDATE SET price = excluded.price, last_move = excluded.last_move, updated_at = excluded.updated_at,
         listed_at = coalesce(excluded.listed_at, item_prices.listed_at),
         removed_at = CASE WHEN excluded.listed_at IS NOT NULL THEN NULL ELSE coalesce(excluded.removed_at, item_prices.removed_at) END`,
    ),
    clearPendingPrices: db.prepare<[number, number]>('DELETE FROM item_prices_pending WHERE itemId > ? AND itemId <= ?'),
    countPending: db.prepare<[], number>('SELECT count(*) FROM item_prices_pending').pluck(),
    // Where a slice of n pending rows after an itemId ends (none: fewer are left).
    pendingSliceEnd: db.prepare<[number, number], number>('SELECT itemId FROM item_prices_pending WHERE itemId > ? ORDER BY itemId LIMIT 1 OFFSET ?').pluck(),
    deleteLivePrice: db.prepare<[number]>('DELETE FROM item_prices WHERE itemId = ?'),
    // A live removal: the item's row, JSON and index entries stay until the fold (foldRemovals); the mark waits in
    // the pending table with the price it left at (migration 017). A mark's move is never read (a sold item keeps
    // its JSON and price; a re-listing writes its own).
    markRemoved: db.prepare<[number, number, number, number]>(
      'INSERT OR REPLACE INTO item_prices_pending (itemId, price, last_move, updated_at, listed_at, removed_at) VALUES (?, ?, 0, ?, NULL, ?)',
    ),
    // A live re-listing whose JSON differs only in price: the row stays, the pending row carries price and listing time.
    markRelisted: db.prepare<[number, number, number, number]>(
      'INSERT OR REPLACE INTO item_prices_pending (itemId, price, last_move, updated_at, listed_at, removed_at) VALUES (?, ?, 0, ?, ?, NULL)',
    ),
    setListedAt: db.prepare<[number, number]>('UPDATE items SET listed_at = ? WHERE itemId = ?'),
    setNameId: db.prepare<[number, number]>('UPDATE items SET name_id = ? WHERE itemId = ?'),
    countRemoved: db.prepare<[], number>('SELECT count(*) FROM live_removals').pluck(),
    // Folding removed items: sold (JSON and the price they left at), logged again for the snapshot, then deleted.
    foldSold: db.prepare<[number]>(
      `INSERT OR REPLACE INTO sold_items (itemId, json, price, removed_at)
       SELECT o.itemId, j.json, o.price, o.removed_at FROM item_prices o CROSS JOIN item_json j ON j.itemId = o.itemId
       WHERE o.removed_at IS NOT NULL AND o.itemId <= ? ORDER BY o.itemId`,
    ),
    foldLog: db.prepare<[number]>('INSERT INTO item_changes (itemId) SELECT itemId FROM item_prices WHERE removed_at IS NOT NULL AND itemId <= ? ORDER BY itemId'),
    foldItems: db.prepare<[number]>('DELETE FROM items WHERE itemId IN (SELECT itemId FROM item_prices WHERE removed_at IS NOT NULL AND itemId <= ?)'),
    foldJson: db.prepare<[number]>('DELETE FROM item_json WHERE itemId IN (SELECT itemId FROM item_prices WHERE removed_at IS NOT NULL AND itemId <= ?)'),
    foldMarks: db.prepare<[number]>('DELETE FROM item_prices WHERE removed_at IS NOT NULL AND itemId <= ?'),
    // A re-listing's time into its row (before a sync, which drops the overrides of the items it rewrites).
    // Driven from item_prices (CROSS JOIN): as `UPDATE … FROM`, the planner walked all of items (~30 ms at 500k).
    foldListedAt: db.prepare(
      `UPDATE items SET listed_at = (SELECT o.listed_at FROM item_prices o WHERE o.itemId = items.itemId)
       WHERE itemId IN (SELECT o.itemId FROM item_prices o CROSS JOIN items i ON i.itemId = o.itemId WHERE o.listed_at IS NOT NULL AND o.listed_at <> i.listed_at)`,
    ),
    clearListedAt: db.prepare('UPDATE item_prices SET listed_at = NULL WHERE listed_at IS NOT NULL'),
    foldSliceEnd: db.prepare<[number], number>('SELECT itemId FROM item_prices WHERE removed_at IS NOT NULL ORDER BY itemId LIMIT 1 OFFSET ?').pluck(),
    upsertJson: db.prepare<[number, string]>('INSERT OR REPLACE INTO item_json (itemId, json) VALUES (?, ?)'),
    // Positional parameters: better-sqlite3 binds them ~3× faster than named ones (live item events).
    insertItem: db.prepare(`INSERT INTO items (${itemInsertColumns.join(', ')}) VALUES (${itemInsertColumns.map(() => '?').join(', ')})`),
    updateItem: db.prepare(
      `UPDATE items SET ${[...ITEM_COLUMNS.filter((c) => c !== 'itemId'), 'name_id', 'updated_at', 'last_move'].map((c) => `${c} = ?`).join(', ')} WHERE itemId = ?`,
    ),
    deleteItem: db.prepare<[number]>('DELETE FROM items WHERE itemId = ?'),
    selectName: db.prepare<[string], { name_id: number }>('SELECT name_id FROM names WHERE name = ?'),
    insertName: db.prepare<[string]>('INSERT INTO names (name, item_count) VALUES (?, 1)'),
    bumpName: db.prepare<[number, number]>('UPDATE names SET item_count = item_count + ? WHERE name_id = ?'),
    dropEmptyName: db.prepare<[number]>('DELETE FROM names WHERE name_id = ? AND item_count <= 0'),
    deleteSold: db.prepare<[number]>('DELETE FROM sold_items WHERE itemId = ?'),
    countUnfolded: db.prepare<[number], number>('SELECT count(*) FROM item_changes WHERE seq > ? AND moved IS NOT NULL').pluck(),
    logChange: db.prepare<[number]>('INSERT INTO item_changes (itemId) VALUES (?)'),
    // A live price change: the new price for the readers' indexes, and the move for the history.
    // Rows of (itemId, price, at, moved, previous).
    logPriceChanges: new BatchedInsert(db, 5, (values) => `INSERT INTO item_changes (itemId, price, at, moved, previous) VALUES ${values}`),
    // An item written whole whose price moved: readers read the row again; the move is for the history.
    logMove: db.prepare<[number, number, number, number]>('INSERT INTO item_changes (itemId, at, moved, previous) VALUES (?, ?, ?, ?)'),
    lastChange: db.prepare<[], number>('SELECT coalesce(max(seq), 0) FROM item_changes').pluck(),
    // Never entries whose moves are not folded yet.
    trimChanges: db.prepare<[number, number]>('DELETE FROM item_changes WHERE seq <= min((SELECT max(seq) FROM item_changes) - ?, ?)'),
    getMeta: db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?'),
    setMeta: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    selectTrade: db.prepare<[string], Record<string, unknown>>(`SELECT ${TRADE_SELECT} FROM trades WHERE tradeId = ?`),
    insertTrade: db.prepare(
      `INSERT INTO trades (${TRADE_FIELDS.join(', ')}, status_rank, updated_at) VALUES (${TRADE_FIELDS.map((f) => `@${f}`).join(', ')}, @status_rank, @updated_at)`,
    ),
    updateTrade: db.prepare(
      `UPDATE trades SET ${TRADE_FIELDS.filter((f) => f !== 'tradeId')
        .map((f) => `${f} = @${f}`)
        .join(', ')}, status_rank = @status_rank, updated_at = @updated_at WHERE tradeId = @tradeId`,
    ),
    insertTimeline: db.prepare<[string, string, string, number | null, string | null, string]>(
      'INSERT OR IGNORE INTO trade_timeline (tradeId, status, at, errorCode, failReason, source) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertLedger: db.prepare(
      `INSERT OR IGNORE INTO ledger (id, type, amount, balanceBefore, balanceAfter, tradeId, note, createdAt, market_hash_name, phase)
       VALUES (@id, @type, @amount, @balanceBefore, @balanceAfter, @tradeId, @note, @createdAt, @market_hash_name, @phase)`,
    ),
    selectRecipient: db.prepare<[string], Record<string, unknown>>('SELECT id, label, tradeUrl, createdAt FROM recipients WHERE id = ?'),
    upsertRecipient: db.prepare<[string, string, string, string]>(
      'INSERT INTO recipients (id, label, tradeUrl, createdAt) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET label = excluded.label, tradeUrl = excluded.tradeUrl',
    ),
    deleteRecipient: db.prepare<[string]>('DELETE FROM recipients WHERE id = ?'),
    selectRule: db.prepare<[string], { json: string }>('SELECT json FROM alert_rules WHERE id = ?'),
    upsertRule: db.prepare<[string, string, string]>(
      'INSERT INTO alert_rules (id, json, createdAt) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json',
    ),
    deleteRule: db.prepare<[string]>('DELETE FROM alert_rules WHERE id = ?'),
    insertFiring: db.prepare<[string, string, string, number, string, number, string, string | null, number, number, number]>(
      `INSERT OR IGNORE INTO alert_firings (id, ruleId, ruleName, itemId, market_hash_name, price, firedAt, autoBuySkipped, autoBuyDryRun, autoBuyDone, acknowledged)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteBaseline: db.prepare<[string]>('DELETE FROM auto_buy_baseline WHERE ruleId = ?'),
    insertBaseline: db.prepare<[string, number]>('INSERT OR IGNORE INTO auto_buy_baseline (ruleId, itemId) VALUES (?, ?)'),
    selectFiring: db.prepare<[string], Record<string, unknown>>(`SELECT ${FIRING_SELECT} FROM alert_firings WHERE id = ?`),
    acknowledgeFiring: db.prepare<[string]>('UPDATE alert_firings SET acknowledged = 1 WHERE id = ?'),
    acknowledgeAll: db.prepare('UPDATE alert_firings SET acknowledged = 1 WHERE acknowledged = 0'),
    setFiringAutoBuy: db.prepare<[string | null, string | null, string]>(
      'UPDATE alert_firings SET autoBuyTradeId = ?, autoBuyError = ?, autoBuyDone = 1 WHERE id = ?',
    ),
    deleteFiringsForRule: db.prepare<[string]>('DELETE FROM alert_firings WHERE ruleId = ?'),
    allSettings: db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings'),
    setSetting: db.prepare<[string, string]>('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
  };
}

type WriterStatements = ReturnType<typeof prepareStatements>;

export interface SyncContext {
  signal: AbortSignal;
  progress: (progress: CatalogSyncProgress) => void;
}

export class WriterService implements Omit<WriterMethods, 'syncCatalog'> {
  readonly db: Db;
  readonly file: string;
  readonly migratedFrom: number | null;
  private readonly s: WriterStatements;
  /** The price history's runs: appended per fold, merged while idle (idleWork). */
  readonly priceHistory: PriceHistory;
  /** Items the feed touched while a sync streams: the sync leaves them as the feed set them. */
  syncTouched: Set<number> | null = null;
  /** The items' ids and hashes as the last sync read them; the next one patches it from the change log. */
  knownItemsSnapshot: KnownItemsSnapshot | null = null;
  /** Every held item's live price, while it has seen every catalog write (see trustedLivePrices). */
  private livePrices: LivePrices | null = null;
  private syncRunning = false;
  private catalogCount: number;
  private writesSinceTrim = 0;
  /** Pending rows written (prices, removals, re-listings) since the last check for a fold (a hint, like unfoldedMoves). */
  private pendingSinceSlice = 0;
  /** Where the next slice of pending prices starts: after this itemId (0: the table's start). */
  private pendingSliceAfter = 0;
  /** Live moves logged since the last fold (a hint: a rolled-back write may leave it high, which only folds early). */
  private unfoldedMoves: number;
  /** Items removed live whose rows wait for the fold (foldRemovals). */
  private removedMarks: number;
  private catalogValue: number;
  /** The held count or value moved in the open transaction: saved before it commits (saveChangedTotals). */
  private totalsChanged = false;

  constructor(file: string) {
    this.file = file;
    const { db, migratedFrom } = openWriteConnection(file);
    this.db = db;
    this.migratedFrom = migratedFrom;
    this.s = prepareStatements(db);
    this.priceHistory = new PriceHistory(db, this);
    this.unfoldedMoves = this.s.countUnfolded.get(this.movesFolded()) as number;
    this.removedMarks = this.s.countRemoved.get() as number;
    const count = this.readMeta(META.count);
    const value = this.readMeta(META.value);
    if (typeof count === 'number' && typeof value === 'number') {
      this.catalogCount = count;
      this.catalogValue = value;
    } else {
      const totals = db.prepare<[], { n: number; v: number }>('SELECT count(*) AS n, coalesce(sum(price), 0) AS v FROM items_live').get() as { n: number; v: number };
      this.catalogCount = totals.n;
      this.catalogValue = totals.v;
    }
  }

  close(): void {
    try {
      this.db.pragma('optimize');
    } catch {
      // Best effort: statistics only.
    }
    this.db.close();
  }

  // ---- meta

  readMeta(key: string): unknown {
    const row = this.s.getMeta.get(key);
    return row ? (JSON.parse(row.value) as unknown) : null;
  }

  setMeta(key: string, value: unknown): void {
    this.s.setMeta.run(key, JSON.stringify(value ?? null));
  }

  /** Recomputes the held count and value (after a sync) and stores them. */
  resetCatalogTotals(count: number, value: number): void {
    this.catalogCount = count;
    this.catalogValue = value;
    this.saveCatalogTotals();
  }

  /**
   * ANALYZE with a row limit per index: good enough statistics for the planner, fast at 1M rows. The
   * tables live events grow and shrink keep none: taken right after a sync (a change log of 2 rows),
   * they made the planner scan the change log whole for every `seq > ?` instead of seeking by rowid
   * (each trim ~20 ms, each reader catch-up a scan of 250k rows). Without statistics the planner takes
   * a table to be large and seeks. One transaction: readers reload the statistics once.
   */
  refreshStatistics(): void {
    this.db.pragma('analysis_limit = 2000');
    const tables = this.db
      .prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'")
      .pluck()
      .all()
      .filter((table) => !(VOLATILE_TABLES as readonly string[]).includes(table));
    this.db.transaction(() => {
      for (const table of tables) this.db.exec(`ANALYZE "${table}"`);
      // Left by earlier versions, which analyzed every table. The change log is pinned large: a connection
      // that analyzed it keeps its estimate until a statistics row replaces it.
      this.db.exec(`DELETE FROM sqlite_stat1 WHERE tbl IN (${VOLATILE_TABLES.map((table) => `'${table}'`).join(', ')})`);
      this.db.exec(`INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('item_changes', NULL, '${CHANGE_LOG_PLANNED_ROWS}')`);
      // This connection reads them again now; the others (readers) when they next run a statement after
      // the schema change below (ANALYZE alone does not make them).
      this.db.exec('ANALYZE sqlite_master');
      this.db.exec('CREATE TABLE md_statistics_reload (x); DROP TABLE md_statistics_reload;');
    })();
  }

  /** Keeps the change log short; readers that fell further behind rebuild their index. */
  trimChangeLog(): void {
    if (++this.writesSinceTrim < 256) return;
    this.writesSinceTrim = 0;
    this.trimChangeLogNow();
  }

  /** Keeps the last CHANGE_LOG_KEEP entries, and every entry whose move is not folded yet. */
  trimChangeLogNow(): void {
    this.s.trimChanges.run(CHANGE_LOG_KEEP, this.movesFolded());
  }

  /** The change log's last entry (0 when empty). */
  lastChange(): number {
    return this.s.lastChange.get() as number;
  }

  /** Marks "everything changed" for the readers' catalog index (after a large sync). */
  logFullReload(): void {
    this.s.logChange.run(0);
  }

  private catalogTotals(): CatalogTotals {
    return { totalItems: this.catalogCount, totalValue: this.catalogValue };
  }

  private saveCatalogTotals(): void {
    this.setMeta(META.count, this.catalogCount);
    this.setMeta(META.value, this.catalogValue);
  }

  // ---- items

  private acquireName(name: string): number {
    const row = this.s.selectName.get(name);
    if (row) {
      this.s.bumpName.run(1, row.name_id);
      return row.name_id;
    }
    return Number(this.s.insertName.run(name).lastInsertRowid);
  }

  private releaseName(nameId: number): void {
    this.s.bumpName.run(-1, nameId);
    this.s.dropEmptyName.run(nameId);
  }

  /**
   * Moves the live price moves logged since the last fold into price_moves, as a new run
   * (priceHistory.ts: appended pages, where a move at a time dirtied one page per event).
   * Called inside a write transaction: when it rolls back, so does the fold.
   */
  foldPriceMoves(): void {
    const folded = this.movesFolded();
    const last = this.lastChange();
    this.unfoldedMoves = 0;
    if (last === folded) return;
    this.priceHistory.appendLiveMoves(folded);
    this.setMeta(META.movesFolded, last);
  }

  /** An item rewritten whole: its live price override, pending or folded, goes. */
  private dropLivePrice(itemId: number): void {
    this.s.deleteLivePrice.run(itemId);
    this.s.clearPendingPrices.run(itemId - 1, itemId);
  }

  /** Every pending live price into item_prices (before a sync's apply; inside a write transaction). */
  foldPendingPrices(): void {
    this.s.foldPendingPrices.run(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    this.s.clearPendingPrices.run(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    this.pendingSinceSlice = 0;
    this.pendingSliceAfter = 0;
  }

  /**
   * The next slice of pending live prices into item_prices: up to `rows` rows after where the last one ended,
   * round the table. Returns how many rows it folded. Inside a write transaction.
   */
  foldPendingPriceSlice(rows = FOLD_PRICES_SLICE): number {
    this.pendingSinceSlice = 0;
    const after = this.pendingSliceAfter;
    const end = this.s.pendingSliceEnd.get(after, rows - 1);
    const upTo = end ?? Number.MAX_SAFE_INTEGER;
    const folded = this.s.foldPendingPrices.run(after, upTo).changes;
    this.s.clearPendingPrices.run(after, upTo);
    this.pendingSliceAfter = end ?? 0;
    return folded;
  }

  /**
   * After `rows` writes to the pending table (price changes, removals, re-listings): once a slice's worth came,
   * folded down to a slice below the cap. As many rows go as came since the last check (a fixed slice per check
   * folded fewer than arrived whenever calls overshot it, and the table grew without bound), at most a few slices
   * at once while a backlog drains.
   */
  private pendingRowsWritten(rows: number): void {
    this.pendingSinceSlice += rows;
    if (this.pendingSinceSlice < FOLD_PRICES_SLICE) return;
    this.pendingSinceSlice = 0;
    const excess = (this.s.countPending.get() as number) - FOLD_PRICES_AT;
    if (excess >= 0) this.foldPendingPriceSlice(Math.min(excess + FOLD_PRICES_SLICE, FOLD_PRICES_MAX_SLICE));
  }

  /** The change log's entries up to this seq have their moves in price_moves. */
  private movesFolded(): number {
    return (this.readMeta(META.movesFolded) as number | null) ?? 0;
  }

  /** Moves logged: folded once there are enough of them. */
  private movedLive(moves = 1): void {
    this.unfoldedMoves += moves;
    if (this.unfoldedMoves >= FOLD_MOVES_AT) this.foldPriceMoves();
  }

  applyItemUpserts(items: Item[]): ItemUpsertResult {
    return this.keepingTotals(() => this.upsertItems(items));
  }

  private upsertItems(items: Item[]): ItemUpsertResult {
    const now = Date.now();
    const upserted: CatalogRow[] = [];
    const prices: PriceMove[] = [];
    let relisted = 0;
    this.oneTransaction(() => {
      const live = this.trustedLivePrices();
      /** A new listing written: logged, counted, and reported at its price (no price before). */
      const listed = (columns: ItemColumns, nameId: number) => {
        this.s.logChange.run(columns.itemId);
        this.catalogCount += 1;
        this.catalogValue += columns.price;
        live?.set(columns.itemId, columns.price, nameId);
        upserted.push(catalogRowFromColumns(columns, now, 0));
        prices.push({ itemId: columns.itemId, price: columns.price, previous: null });
      };
      for (const item of items) {
        this.syncTouched?.add(item.itemId);
        const columns = itemColumns(item);
        let old = this.s.selectItem.get(item.itemId);
        if (old && old.removed_at !== null) {
          // Listed again after a live removal.
          this.removedMarks--;
          if (this.onlyPriceDiffers(item, columns, old)) {
            // Its row, JSON and index entries still hold the listing: the override carries the new price and time.
            const nameId = this.acquireName(columns.name);
            this.s.markRelisted.run(item.itemId, columns.price, now, now);
            // Its name's row went with its last item (releaseName) and came back under a new id.
            if (nameId !== old.name_id) this.s.setNameId.run(nameId, item.itemId);
            listed(columns, nameId);
            relisted++;
            continue;
          }
          this.s.deleteItem.run(item.itemId);
          old = undefined;
        }
        if (!old) {
          const nameId = this.acquireName(columns.name);
          this.s.insertItem.run(...itemValues(columns), nameId, now, now, 0);
          this.dropLivePrice(item.itemId);
          this.s.upsertJson.run(item.itemId, columns.json);
          this.s.deleteSold.run(item.itemId);
          listed(columns, nameId);
          continue;
        }
        if (old.hash === columns.hash) continue;
        let nameId = old.name_id;
        if (old.name !== columns.name) {
          this.releaseName(old.name_id);
          nameId = this.acquireName(columns.name);
        }
        let lastMove = old.last_move;
        const moved = old.price !== columns.price;
        if (moved) {
          lastMove = sign(columns.price - old.price);
          this.catalogValue += columns.price - old.price;
          prices.push({ itemId: item.itemId, price: columns.price, previous: old.price });
        }
        this.s.updateItem.run(...itemValues(columns).slice(1), nameId, now, lastMove, item.itemId);
        // A re-listing's time lived in the override dropped below: the row takes it.
        if (old.listed_at !== old.row_listed_at) this.s.setListedAt.run(old.listed_at, item.itemId);
        this.dropLivePrice(item.itemId);
        this.s.upsertJson.run(item.itemId, columns.json);
        if (moved) {
          this.s.logMove.run(item.itemId, now, columns.price, old.price);
          this.movedLive();
        } else {
          this.s.logChange.run(item.itemId);
        }
        live?.set(item.itemId, columns.price, nameId);
        upserted.push(catalogRowFromColumns(columns, old.listed_at, lastMove));
      }
      this.totalsChanged = true;
      this.pendingRowsWritten(relisted);
      this.trimChangeLog();
      this.livePricesFollowed(live);
    });
    return { upserted, prices, totals: this.catalogTotals() };
  }

  /** Whether `item` is the row's stored item but for its price (a re-listing at a new price). */
  private onlyPriceDiffers(item: Item, columns: ItemColumns, old: ExistingItem): boolean {
    return hashJson(jsonAtPrice(item, columns.json, old.row_price)) === old.row_hash;
  }

  /**
   * Items removed live (marked in item_prices) become sold items: JSON and the price they left at to
   * `sold_items`, their rows, JSON and index entries deleted, in item order, the lowest `limit` ids
   * (all by default). Logged again, so the sync's snapshot reads them as gone. Inside a write
   * transaction: before each sync's apply, and a slice at a time once many are marked.
   */
  foldRemovals(limit = Number.POSITIVE_INFINITY): number {
    if (this.removedMarks === 0) return 0;
    // Marks (and the re-listings that undo them) still pending go to item_prices first, where the fold reads them.
    this.foldPendingPrices();
    const upTo = Number.isFinite(limit) ? (this.s.foldSliceEnd.get(limit - 1) ?? Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
    this.s.foldSold.run(upTo);
    this.s.foldLog.run(upTo);
    this.s.foldJson.run(upTo);
    this.s.foldItems.run(upTo);
    const folded = this.s.foldMarks.run(upTo).changes;
    this.removedMarks -= folded;
    return folded;
  }

  /**
   * Before a sync's apply: every live removal folded (see foldRemovals) and every re-listing's time
   * moved into its row, so that the sync sees the catalog as plain rows and price overrides.
   */
  foldLiveListings(): void {
    this.foldPendingPrices();
    this.foldRemovals();
    this.s.foldListedAt.run();
    this.s.clearListedAt.run();
  }

  applyItemRemovals(itemIds: number[]): ItemRemovalResult {
    return this.keepingTotals(() => this.removeItems(itemIds));
  }

  private removeItems(itemIds: number[]): ItemRemovalResult {
    const now = Date.now();
    const removed: number[] = [];
    this.oneTransaction(() => {
      const live = this.livePricesToUse();
      for (const itemId of itemIds) {
        this.syncTouched?.add(itemId);
        const held = live ? this.heldInCopy(live, itemId) : this.heldInStore(itemId);
        if (!held) continue;
        // Marked, not deleted: the row, its JSON and index entries wait for the fold (a re-listing may come first).
        // The mark (a pending row: it replaces a pending price) takes the live price with it.
        this.s.markRemoved.run(itemId, held.price, now, now);
        this.removedMarks++;
        this.s.logChange.run(itemId);
        this.releaseName(held.nameId);
        this.catalogCount -= 1;
        this.catalogValue -= held.price;
        live?.delete(itemId);
        removed.push(itemId);
      }
      if (removed.length > 0) this.totalsChanged = true;
      this.pendingRowsWritten(removed.length);
      if (this.removedMarks >= FOLD_REMOVALS_AT) this.foldRemovals(FOLD_REMOVALS_SLICE);
      this.trimChangeLog();
      this.livePricesFollowed(live);
    });
    return { removed, totals: this.catalogTotals() };
  }

  /**
   * Live changes of every kind in feed order, in one transaction (the groups share it: no
   * savepoints): a burst of events costs one commit, and a page dirtied by many events is written once.
   */
  applyItemChanges(groups: ItemChangeGroup[]): ItemChangeGroupResult[] {
    return this.keepingTotals(() =>
      this.oneTransaction(() =>
        groups.map((group): ItemChangeGroupResult => {
          switch (group.kind) {
            case 'upserts':
              return { kind: 'upserts', result: this.upsertItems(group.items) };
            case 'prices':
              return { kind: 'prices', result: this.changePackedPrices(group.changes) };
            case 'removals':
              return { kind: 'removals', result: this.removeItems(group.itemIds) };
          }
        }),
      ),
    );
  }

  /**
   * Runs `write` in a transaction, or in the caller's when one is open: no savepoint, whose journal
   * would copy every page the write touches (to a temp file) in case it rolled back alone. A burst's
   * groups (applyItemChanges) succeed or fail together anyway. The outermost one saves the changed
   * catalog totals before it commits.
   */
  private oneTransaction<T>(write: () => T): T {
    if (this.db.inTransaction) return write();
    return this.db.transaction(() => {
      const result = write();
      this.saveChangedTotals();
      return result;
    })();
  }

  /** The held count and value into meta once a transaction, not once a group (two upserts of one page each time). */
  private saveChangedTotals(): void {
    if (!this.totalsChanged) return;
    this.totalsChanged = false;
    this.saveCatalogTotals();
  }

  /** Runs a catalog write; when it throws (its transaction rolled back), the held count and value go back too. */
  private keepingTotals<T>(write: () => T): T {
    const count = this.catalogCount;
    const value = this.catalogValue;
    try {
      return write();
    } catch (error) {
      this.catalogCount = count;
      this.catalogValue = value;
      this.totalsChanged = false;
      this.removedMarks = this.s.countRemoved.get() as number;
      // It may hold prices of the writes that were rolled back.
      this.livePrices = null;
      throw error;
    }
  }

  /** The live price copy if it has seen every catalog write so far; otherwise it is dropped. */
  /** The copy, read now if it is not trusted (~0.5 s at 500k, once after a sync); none while a sync streams (memory). */
  private livePricesToUse(): LivePrices | null {
    return this.trustedLivePrices() ?? (this.syncRunning ? null : (this.livePrices = LivePrices.read(this.db, this.lastChange())));
  }

  /** A held item's live price and name from the copy (its row unread). */
  private heldInCopy(live: LivePrices, itemId: number): HeldItem | null {
    const price = live.get(itemId);
    const nameId = live.nameOf(itemId);
    return price === undefined || nameId === undefined ? null : { price, nameId };
  }

  /** A held item's live price and name read from its row (no trusted copy). */
  private heldInStore(itemId: number): HeldItem | null {
    const old = this.s.selectItem.get(itemId);
    return !old || old.removed_at !== null ? null : { price: old.price, nameId: old.name_id };
  }

  private trustedLivePrices(): LivePrices | null {
    if (this.livePrices && this.livePrices.seq !== this.lastChange()) this.livePrices = null;
    return this.livePrices;
  }

  /** After a write the copy followed: it reflects the log up to here. */
  private livePricesFollowed(live: LivePrices | null): void {
    if (live) live.seq = this.lastChange();
  }

  /**
   * A price change goes to `item_prices_pending` (a small table: a burst dirties a few hundred
   * pages, not those of `items` and its price index, nor all of `item_prices`), folded into
   * `item_prices` a slice at a time (foldPendingPriceSlice); both override the row's price and move until the row is
   * next written. The stored JSON keeps the price it arrived with (readers see `items_live`),
   * and the next sync reads the item again.
   */
  applyPriceChanges(changes: PriceChange[]): PriceChangeResult {
    const packed = packPriceChanges(changes);
    const { previous, totals } = this.keepingTotals(() => this.changePackedPrices(packed));
    return { ...priceChangeOutcome(packed, previous), totals };
  }

  /** Changes packed as (itemId, price) pairs; returns each one's price before it (see PackedPriceChangeResult). */
  private changePackedPrices(changes: Float64Array): PackedPriceChangeResult {
    const now = Date.now();
    const count = changes.length / 2;
    const previousPrices = new Float64Array(count);
    const pending: number[] = [];
    const logged: number[] = [];
    this.oneTransaction(() => {
      const live = this.livePricesToUse();
      // Without the copy (a sync streams), the rows are read; they are written after the loop, so an item's
      // second change in this call takes its first one's price from here.
      const changedHere = live ? null : new Map<number, number>();
      for (let i = 0; i < count; i++) {
        const itemId = changes[2 * i] as number;
        const price = changes[2 * i + 1] as number;
        this.syncTouched?.add(itemId);
        const previous = live ? live.get(itemId) : (changedHere?.get(itemId) ?? this.s.selectPrice.get(itemId)?.price);
        previousPrices[i] = previous ?? Number.NaN;
        if (previous === undefined || previous === price) continue;
        pending.push(itemId, price, sign(price - previous), now);
        logged.push(itemId, price, now, price, previous);
        live?.set(itemId, price);
        changedHere?.set(itemId, price);
        this.catalogValue += price - previous;
      }
      if (pending.length > 0) {
        // Many rows a statement (BatchedInsert): a statement's own cost was most of these two writes.
        this.s.upsertPendingPrices.run(pending);
        this.s.logPriceChanges.run(logged);
        this.totalsChanged = true;
        this.movedLive(logged.length / 5);
      }
      this.pendingRowsWritten(count);
      this.trimChangeLog();
      this.livePricesFollowed(live);
    });
    return { previous: previousPrices, totals: this.catalogTotals() };
  }

  async syncCatalog(request: CatalogSyncRequest, context: SyncContext): Promise<CatalogSyncResult> {
    if (this.syncRunning) throw new CatalogSyncError('busy', 'a catalog sync is already running');
    this.syncRunning = true;
    // Its memory is the sync's; it is read again after (the sync moves the change log on).
    this.livePrices = null;
    useWriterSettings(this.db, 'sync');
    try {
      return await runCatalogSync(this, request, context);
    } finally {
      useWriterSettings(this.db, 'live');
      this.syncRunning = false;
      this.syncTouched = null;
    }
  }

  /**
   * Work that waits for a quiet moment (the worker calls it once no call came for a while): one slice
   * of merging the price history's runs, in its own transaction. Returns whether more is left. Never
   * while a sync runs: its stages commit between awaits.
   */
  idleWork(): boolean {
    if (this.syncRunning) return false;
    let more = false;
    this.db.transaction(() => {
      more = this.priceHistory.mergeStep(Date.now());
    })();
    return more;
  }

  // ---- trades

  private tradeParams(trade: Trade, now: number): Record<string, unknown> {
    const params: Record<string, unknown> = { status_rank: STATUS_RANK[trade.status], updated_at: now };
    for (const field of TRADE_FIELDS) params[field] = trade[field];
    return params;
  }

  upsertTrades(trades: Trade[], source: TradeSource): TradeUpsertResult {
    const now = Date.now();
    const changed: Trade[] = [];
    const newStatuses: { tradeId: string; status: TradeStatus }[] = [];
    this.db.transaction(() => {
      for (const incoming of trades) {
        const row = this.s.selectTrade.get(incoming.tradeId);
        const stored = row ? tradeOf(row) : null;
        if (stored === null) {
          this.s.insertTrade.run(this.tradeParams(incoming, now));
        } else if (stored.status === incoming.status) {
          // Same status: the server's record is the newer word on the other fields (offerId, webhookStatus, …).
          if (sameTrade(stored, incoming)) continue;
          this.s.updateTrade.run(this.tradeParams(incoming, now));
        } else if (canAdvance(stored.status, incoming.status)) {
          this.s.updateTrade.run(this.tradeParams(incoming, now));
        } else {
          // An older status arriving late (SENT after COMPLETED): ignored whole.
          continue;
        }
        changed.push(incoming);
        const added = this.s.insertTimeline.run(
          incoming.tradeId,
          incoming.status,
          statusTimeOf(incoming),
          incoming.errorCode,
          incoming.failReason,
          source,
        );
        if (added.changes > 0) newStatuses.push({ tradeId: incoming.tradeId, status: incoming.status });
      }
    })();
    return { changed, newStatuses };
  }

  applyTradeUpdate(update: TradeUpdate, source: TradeSource): TradeUpdateResult {
    return this.db.transaction((): TradeUpdateResult => {
      const row = this.s.selectTrade.get(update.tradeId);
      if (!row) return { unknown: true, tradeId: update.tradeId };
      const stored = tradeOf(row);
      const nowMs = Date.now();
      const nowIso = new Date(nowMs).toISOString();
      let next: Trade;
      if (stored.status === update.status) {
        next = {
          ...stored,
          externalId: update.externalId ?? stored.externalId,
          offerId: update.offerId ?? stored.offerId,
          failReason: update.failReason ?? stored.failReason,
          errorCode: update.errorCode ?? stored.errorCode,
        };
        if (sameTrade(stored, next)) return { unknown: false, trade: stored, changed: false, newStatus: null };
      } else if (canAdvance(stored.status, update.status)) {
        next = {
          ...stored,
          status: update.status,
          externalId: update.externalId ?? stored.externalId,
          offerId: update.offerId ?? stored.offerId,
          failReason: update.failReason,
          errorCode: update.errorCode,
          updatedAt: nowIso,
          completedAt: update.status === 'COMPLETED' ? (stored.completedAt ?? nowIso) : stored.completedAt,
          cancelledAt: update.status === 'CANCELLED' ? (stored.cancelledAt ?? nowIso) : stored.cancelledAt,
          rollbackAt: update.status === 'REVERSED' ? (stored.rollbackAt ?? nowIso) : stored.rollbackAt,
        };
      } else {
        return { unknown: false, trade: stored, changed: false, newStatus: null };
      }
      this.s.updateTrade.run(this.tradeParams(next, nowMs));
      let newStatus: TradeStatus | null = null;
      if (next.status !== stored.status) {
        const added = this.s.insertTimeline.run(next.tradeId, next.status, nowIso, update.errorCode, update.failReason, source);
        if (added.changes > 0) newStatus = next.status;
      }
      return { unknown: false, trade: next, changed: true, newStatus };
    })();
  }

  // ---- ledger

  insertLedger(entries: BalanceTransaction[]): LedgerInsertResult {
    const inserted: BalanceTransaction[] = [];
    this.db.transaction(() => {
      for (const entry of entries) {
        if (this.s.insertLedger.run(entry).changes > 0) inserted.push(entry);
      }
    })();
    return { inserted };
  }

  // ---- recipients

  saveRecipient(input: RecipientInput): Recipient {
    return this.db.transaction(() => {
      const id = input.id ?? randomUUID();
      const existing = this.s.selectRecipient.get(id);
      const createdAt = existing ? (existing['createdAt'] as string) : new Date().toISOString();
      this.s.upsertRecipient.run(id, input.label, input.tradeUrl, createdAt);
      return recipientOf({ id, label: input.label, tradeUrl: input.tradeUrl, createdAt });
    })();
  }

  deleteRecipient(id: string): { deleted: boolean } {
    return { deleted: this.s.deleteRecipient.run(id).changes > 0 };
  }

  // ---- alert rules and firings

  private readRule(id: string): AlertRule | null {
    const row = this.s.selectRule.get(id);
    return row ? (JSON.parse(row.json) as AlertRule) : null;
  }

  private writeRule(rule: AlertRule): AlertRule {
    this.s.upsertRule.run(rule.id, JSON.stringify(rule), rule.createdAt);
    return rule;
  }

  saveAlertRule(input: ParsedAlertRuleInput): AlertRule {
    return this.db.transaction(() => {
      const id = input.id ?? randomUUID();
      const existing = this.readRule(id);
      return this.writeRule({
        id,
        name: input.name,
        enabled: input.enabled,
        namePattern: input.namePattern,
        phase: input.phase,
        floatMin: input.floatMin,
        floatMax: input.floatMax,
        maxPrice: input.maxPrice,
        stickerNames: [...input.stickerNames],
        autoBuy: {
          enabled: input.autoBuy.enabled,
          recipientId: input.autoBuy.recipientId,
          spendCap: input.autoBuy.spendCap,
          dailyCap: input.autoBuy.dailyCap,
          spent: existing?.autoBuy.spent ?? 0,
          dryRun: input.autoBuy.dryRun,
        },
        createdAt: existing?.createdAt ?? new Date().toISOString(),
      });
    })();
  }

  deleteAlertRule(id: string): { deleted: boolean } {
    return this.db.transaction(() => {
      this.s.deleteBaseline.run(id);
      return { deleted: this.s.deleteRule.run(id).changes > 0 };
    })();
  }

  setAutoBuyBaseline(ruleId: string, itemIds: number[]): { stored: number } {
    return this.db.transaction(() => {
      this.s.deleteBaseline.run(ruleId);
      let stored = 0;
      for (const itemId of itemIds) stored += this.s.insertBaseline.run(ruleId, itemId).changes;
      return { stored };
    })();
  }

  setAlertRuleEnabled(id: string, enabled: boolean): AlertRule | null {
    return this.db.transaction(() => {
      const rule = this.readRule(id);
      return rule ? this.writeRule({ ...rule, enabled }) : null;
    })();
  }

  addAlertRuleSpend(id: string, cents: number): AlertRule | null {
    return this.db.transaction(() => {
      const rule = this.readRule(id);
      return rule ? this.writeRule({ ...rule, autoBuy: { ...rule.autoBuy, spent: rule.autoBuy.spent + cents } }) : null;
    })();
  }

  recordFiring(input: FiringInput): AlertFiring | null {
    const id = randomUUID();
    const firedAt = input.firedAt ?? new Date().toISOString();
    const skipped = input.autoBuySkipped ?? null;
    const dryRun = input.autoBuyDryRun === true;
    // A skip or a dry run is decided at once (nothing sent); a skip is folded into its rule's skip line, so it counts as seen.
    const decided = skipped !== null || dryRun ? 1 : 0;
    const result = this.s.insertFiring.run(
      id, input.ruleId, input.ruleName, input.itemId, input.market_hash_name, input.price, firedAt, skipped, dryRun ? 1 : 0, decided, skipped !== null ? 1 : 0,
    );
    if (result.changes === 0) return null;
    return firingOf(this.s.selectFiring.get(id) as Record<string, unknown>);
  }

  acknowledgeFiring(id: string): AlertFiring | null {
    this.s.acknowledgeFiring.run(id);
    const row = this.s.selectFiring.get(id);
    return row ? firingOf(row) : null;
  }

  acknowledgeAllFirings(): { acknowledged: number } {
    return { acknowledged: this.s.acknowledgeAll.run().changes };
  }

  setFiringAutoBuy(id: string, autoBuy: { tradeId: string | null; error: string | null }): AlertFiring | null {
    this.s.setFiringAutoBuy.run(autoBuy.tradeId, autoBuy.error, id);
    const row = this.s.selectFiring.get(id);
    return row ? firingOf(row) : null;
  }

  deleteFiringsForRule(ruleId: string): { deleted: number } {
    return { deleted: this.s.deleteFiringsForRule.run(ruleId).changes };
  }

  // ---- notification centre (notificationRows.ts)

  insertNotifications(list: StoredNotification[]): NotificationInsertResult {
    return insertNotifications(this.db, list);
  }

  markNotificationsRead(input: NotificationMarkRead): { marked: number; unread: number } {
    return markNotificationsRead(this.db, input, new Date().toISOString());
  }

  // ---- settings

  updateSettings(patch: SettingsPatch): AppSettings {
    return this.db.transaction(() => {
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined || !(key in DEFAULT_SETTINGS)) continue;
        this.s.setSetting.run(key, JSON.stringify(value));
      }
      return settingsOf(this.s.allSettings.all());
    })();
  }
}
