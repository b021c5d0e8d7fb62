import type { z } from 'zod';
import type { SerializedStoreError } from './errors';
import type { BalanceTransaction, Item, PriceChange, Trade, TradeStatus } from '../../../shared/api';
import type {
  AlertFiring,
  AlertRule,
  AppSettings,
  BalancePoint,
  CatalogInfo,
  CatalogRow,
  ItemDetail,
  LedgerRow,
  NotificationPage,
  Page,
  Recipient,
  StoredNotification,
  TradeDetail,
  TradeTimelineEntry,
} from '../../../shared/ipc';
import type { CatalogFilters, NotificationMarkRead, ParsedNotificationQuery, ParsedSavedSearchInput, SavedSearch } from '../../../shared/ipc/contract';
import type { NotificationInsertResult } from './notifications';
import type {
  alertRuleInputSchema,
  catalogQuerySchema,
  ledgerQuerySchema,
  recipientInputSchema,
  settingsPatchSchema,
  tradeQuerySchema,
} from '../../../shared/ipc/contract';

/** Queries after their zod schema filled the defaults. */
export type ParsedCatalogQuery = z.output<typeof catalogQuerySchema>;
export type ParsedTradeQuery = z.output<typeof tradeQuerySchema>;
export type ParsedLedgerQuery = z.output<typeof ledgerQuerySchema>;
export type ParsedAlertRuleInput = z.output<typeof alertRuleInputSchema>;
export type RecipientInput = z.output<typeof recipientInputSchema>;
export type SettingsPatch = z.output<typeof settingsPatchSchema>;

export type TradeSource = TradeTimelineEntry['source'];

/** One price that moved; `previous` is null for an item new to the cache. */
export interface PriceMove {
  itemId: number;
  price: number;
  previous: number | null;
}

/** The cached catalog's count and value after a live change (the summary follows the feed, not only syncs). */
export interface CatalogTotals {
  totalItems: number;
  totalValue: number;
}

export interface ItemUpsertResult {
  /** Rows added or changed (unchanged items are left out). */
  upserted: CatalogRow[];
  /** Prices that are new or moved. */
  prices: PriceMove[];
  totals: CatalogTotals;
}

export interface ItemRemovalResult {
  /** The ids that were in the cache and are gone now. */
  removed: number[];
  totals: CatalogTotals;
}

export interface PriceChangeResult {
  /** The moves (a price move is the whole change: the UI updates its rows from these). */
  prices: PriceMove[];
  /** Ids we do not hold: the caller may fetch them (SearchItems). */
  unknown: number[];
  totals: CatalogTotals;
}

export interface TradeUpsertResult {
  /** Trades whose record changed, latest state each. */
  changed: Trade[];
  /** Each status seen for the first time (notify once per entry). */
  newStatuses: { tradeId: string; status: TradeStatus }[];
}

/** The body of a trade_updated webhook or feed frame. */
export interface TradeUpdate {
  tradeId: string;
  status: TradeStatus;
  externalId: string | null;
  offerId: string | null;
  failReason: string | null;
  errorCode: number | null;
}

export type TradeUpdateResult =
  | { unknown: true; tradeId: string }
  | {
      unknown: false;
      /** The stored trade after the update. */
      trade: Trade;
      changed: boolean;
      /** Set when this update brought a status we had not seen for this trade. */
      newStatus: TradeStatus | null;
    };

export interface LedgerInsertResult {
  /** Entries that were new (an id already held is skipped). */
  inserted: BalanceTransaction[];
}

export interface FiringInput {
  ruleId: string;
  ruleName: string;
  itemId: number;
  market_hash_name: string;
  price: number;
  firedAt?: string;
  /** Auto-buy held this match back (a guard rail): stored acknowledged, with the reason, folded into a skip line. */
  autoBuySkipped?: string;
  /** A dry-run rule's match: "would buy at price", nothing sent. */
  autoBuyDryRun?: boolean;
}

/** A rule's auto-buy day: spend (firings with a trade) and skips since the start of the day. */
export interface AutoBuyDayRow {
  ruleId: string;
  spent: number;
  skipped: number;
}

/** Skipped firings grouped by rule, UTC day and reason. */
export interface AutoBuySkipRow {
  ruleId: string;
  ruleName: string;
  day: string;
  reason: string;
  count: number;
  lastAt: string;
}

export interface FiringQuery {
  limit?: number;
  unacknowledgedOnly?: boolean;
}

export interface CatalogSyncRequest {
  url: string;
  /** Authentication headers; Accept-Encoding: gzip is added. */
  headers: Record<string, string>;
  /** Fail when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
}

export interface CatalogSyncProgress {
  phase: 'receiving' | 'applying' | 'done';
  /** Items received so far. */
  received: number;
  /** The envelope's totalItems once seen (it usually comes first). */
  total: number | null;
  /** Items written to the catalog (set when applying is over). */
  applied: number;
}

export type CatalogSyncResult =
  | {
      ok: true;
      added: number;
      updated: number;
      removed: number;
      /** Items in the cache after the sync. */
      total: number;
      /** The envelope's totalItems (the server's count). */
      serverTotal: number | null;
      lastUpdate: string | null;
      /** Whole sync, and the final apply transaction alone (the writer serves nothing else meanwhile). */
      ms: number;
      applyMs: number;
      /** Items that failed the shape check and were left out. */
      skipped: number;
      firstSkipReason: string | null;
      /** Items the feed changed while the list streamed: kept as the feed left them. */
      keptFromFeed: number;
      /** Items whose bytes were unchanged since the last sync (hashed, not parsed). */
      unchanged: number;
    }
  | {
      ok: false;
      status: number;
      headers: Record<string, string>;
      /** The first 64 KB of the (decompressed) body. */
      bodyText: string;
    };

/**
 * Live item changes of one kind; a list of them, in feed order, is written in one transaction (one commit per burst).
 * Price changes packed as (itemId, price) pairs (priceChanges.ts): a burst crosses threads as one copy. */
export type ItemChangeGroup = { kind: 'upserts'; items: Item[] } | { kind: 'prices'; changes: Float64Array } | { kind: 'removals'; itemIds: number[] };

/** Each change's price before it, in order: NaN for an item not held, its own price for no move (priceChangeOutcome). */
export interface PackedPriceChangeResult {
  previous: Float64Array;
  totals: CatalogTotals;
}

export type ItemChangeGroupResult =
  | { kind: 'upserts'; result: ItemUpsertResult }
  | { kind: 'prices'; result: PackedPriceChangeResult }
  | { kind: 'removals'; result: ItemRemovalResult };

/** The saved searches by name, and the rows whose stored query no longer passes the catalog query's schema (left out). */
export interface SavedSearchList {
  searches: SavedSearch[];
  skipped: { id: string; name: string; problem: string }[];
}

/** Methods served by the writer thread. Each runs in one transaction unless noted. */
export interface WriterMethods {
  applyItemUpserts(items: Item[]): ItemUpsertResult;
  applyItemRemovals(itemIds: number[]): ItemRemovalResult;
  applyPriceChanges(changes: PriceChange[]): PriceChangeResult;
  applyItemChanges(groups: ItemChangeGroup[]): ItemChangeGroupResult[];
  upsertTrades(trades: Trade[], source: TradeSource): TradeUpsertResult;
  applyTradeUpdate(update: TradeUpdate, source: TradeSource): TradeUpdateResult;
  insertLedger(entries: BalanceTransaction[]): LedgerInsertResult;
  saveRecipient(input: RecipientInput): Recipient;
  deleteRecipient(id: string): { deleted: boolean };
  saveAlertRule(input: ParsedAlertRuleInput): AlertRule;
  deleteAlertRule(id: string): { deleted: boolean };
  setAlertRuleEnabled(id: string, enabled: boolean): AlertRule | null;
  addAlertRuleSpend(id: string, cents: number): AlertRule | null;
  recordFiring(input: FiringInput): AlertFiring | null;
  acknowledgeFiring(id: string): AlertFiring | null;
  acknowledgeAllFirings(): { acknowledged: number };
  setFiringAutoBuy(id: string, autoBuy: { tradeId: string | null; error: string | null }): AlertFiring | null;
  deleteFiringsForRule(ruleId: string): { deleted: number };
  /** Replaces the listings a rule's auto-buy must never buy ("only new listings"). */
  setAutoBuyBaseline(ruleId: string, itemIds: number[]): { stored: number };
  updateSettings(patch: SettingsPatch): AppSettings;
  setMeta(key: string, value: unknown): void;
  /** The notification centre (worker/notificationRows.ts). */
  insertNotifications(list: StoredNotification[]): NotificationInsertResult;
  markNotificationsRead(input: NotificationMarkRead): { marked: number; unread: number };
  /** Creates (no id) or renames/replaces (id) a saved search; a name another search holds is refused. */
  saveSearch(input: ParsedSavedSearchInput): SavedSearch;
  deleteSearch(id: string): { deleted: boolean };
  /** Streams GET /Items/GetAllItemsOnSale into the catalog (see catalogSync.ts). Not one transaction. */
  syncCatalog(request: CatalogSyncRequest): Promise<CatalogSyncResult>;
}

/** Methods served by the read-only reader thread(s). */
export interface ReaderMethods {
  queryCatalog(query: ParsedCatalogQuery): Page<CatalogRow>;
  getItem(itemId: number): ItemDetail | null;
  findItemsByIds(itemIds: number[]): Item[];
  /** Which of these items on sale the filters match (market standing included). */
  matchingItemIds(filters: CatalogFilters, itemIds: number[]): number[];
  catalogInfo(): CatalogInfo;
  queryTrades(query: ParsedTradeQuery): Page<Trade>;
  getTrade(tradeId: string): TradeDetail | null;
  activeTrades(): Trade[];
  findTradeByExternalId(externalId: string): Trade | null;
  queryLedger(query: ParsedLedgerQuery): Page<LedgerRow>;
  balanceSeries(query: ParsedLedgerQuery): BalancePoint[];
  latestLedgerCreatedAt(): string | null;
  listRecipients(): Recipient[];
  getRecipient(id: string): Recipient | null;
  listAlertRules(): AlertRule[];
  getAlertRule(id: string): AlertRule | null;
  listFirings(query: FiringQuery): AlertFiring[];
  firingKeys(): string[];
  unacknowledgedFiringCount(): number;
  /** Per rule (deleted ones too): auto-buy spend and skips on firings at or after `sinceIso`. */
  autoBuyDay(sinceIso: string): AutoBuyDayRow[];
  /** Skipped firings grouped by rule, UTC day and reason, newest days first. */
  autoBuySkips(limit: number): AutoBuySkipRow[];
  /** `ruleId:itemId` of every listing held back by "only new listings". */
  autoBuyBaseline(): string[];
  getSettings(): AppSettings;
  getMeta(key: string): unknown;
  listNotifications(query: ParsedNotificationQuery): NotificationPage;
  unreadNotificationCount(): number;
  listSearches(): SavedSearchList;
}

export type WorkerRole = 'writer' | 'reader';

export interface WorkerInit {
  role: WorkerRole;
  file: string;
  /** Log a call slower than this many ms back to the host. */
  slowCallMs: number;
  /**
   * Load the code but open the file only on an `open` message: readers boot while the
   * writer is still migrating the file (their module loading is most of a cold start).
   */
  deferOpen?: boolean;
}

// ---- Messages between the host and a worker

export type HostMessage =
  | { kind: 'open' }
  | { kind: 'call'; id: number; method: string; args: unknown[] }
  | { kind: 'abort'; id: number }
  | { kind: 'close'; id: number };

export type WorkerMessage =
  | { kind: 'ready'; schemaVersion: number; migratedFrom: number | null }
  | { kind: 'init-error'; error: SerializedStoreError }
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: SerializedStoreError }
  | { kind: 'progress'; id: number; progress: CatalogSyncProgress }
  | { kind: 'slow'; method: string; ms: number };
