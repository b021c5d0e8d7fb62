/** The store's data types (plain types only: the calls and messages between the threads are in protocol.ts). */
import type { z } from 'zod';
import type { BalanceTransaction, Item, Trade, TradeStatus } from '../../../shared/api';
import type {
  AlertFiring,
  AutoBuySkipLine,
  CatalogInfo,
  CatalogRow,
  PriceMove,
  StoredNotification,
  TradeTimelineEntry,
} from '../../../shared/ipc';
import type {
  alertRuleInputSchema,
  catalogQuerySchema,
  ledgerQuerySchema,
  SavedSearch,
  tradeQuerySchema,
} from '../../../shared/ipc/contract';

/** Queries after their zod schema filled the defaults. */
export type ParsedCatalogQuery = z.output<typeof catalogQuerySchema>;
export type ParsedTradeQuery = z.output<typeof tradeQuerySchema>;
export type ParsedLedgerQuery = z.output<typeof ledgerQuerySchema>;
export type ParsedAlertRuleInput = z.output<typeof alertRuleInputSchema>;

export type TradeSource = TradeTimelineEntry['source'];

export type { PriceMove } from '../../../shared/ipc';

/** The cached catalog's count and value after a live change (the summary follows the feed, not only syncs). */
export type CatalogTotals = Pick<CatalogInfo, 'totalItems' | 'totalValue'>;

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

export interface TradeUpsertResult {
  /** Trades whose record changed, latest state each. */
  changed: Trade[];
  /** Each status seen for the first time (notify once per entry). */
  newStatuses: { tradeId: string; status: TradeStatus }[];
  /**
   * The trades whose webhookStatus this write made 'failed' (held as anything else before, or new): a trade held as
   * failed and written again keeps the same failure, told or summed up already (operations/webhookWatch.ts).
   */
  newlyFailed: string[];
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

export interface NotificationInsertResult {
  /** The notifications that were new (an id already held is left as it is, read or not). */
  inserted: StoredNotification[];
  unread: number;
}

export interface LedgerInsertResult {
  /** Entries that were new (an id already held is skipped). */
  inserted: BalanceTransaction[];
}

export interface FiringInput extends Pick<
  AlertFiring,
  'ruleId' | 'ruleName' | 'itemId' | 'market_hash_name' | 'price'
> {
  firedAt?: string;
  /** Auto-buy held this match back (a guard rail): stored acknowledged, with the reason, folded into a skip line. */
  autoBuySkipped?: string;
  /** A dry-run rule's match: "would buy at price", nothing sent. */
  autoBuyDryRun?: boolean;
}

/**
 * What became of an auto-buy: `in_flight` while its request is out (in the table: replayed from the journal,
 * the app stopped first); `unknown` when no answer said (a lost answer whose order id could not be looked up);
 * `bought` or `not_bought`.
 */
export type AutoBuyState = 'in_flight' | 'unknown' | 'bought' | 'not_bought';

/** One auto-buy (table `auto_buys`), by its order id. */
export interface AutoBuyRecord {
  externalId: string;
  ruleId: string;
  itemId: number;
  price: number;
  /** When it was decided, before its request left: its budget day is this UTC day. */
  at: string;
  state: AutoBuyState;
  tradeId: string | null;
}

/** An auto-buy as the journal holds it before its request leaves. */
export type AutoBuyRecordInput = Omit<AutoBuyRecord, 'state' | 'tradeId'>;

export interface AutoBuySettlement extends AutoBuyRecordInput {
  state: Exclude<AutoBuyState, 'in_flight'>;
  tradeId: string | null;
  /** Shown on the buy's firing. */
  error: string | null;
  /** Held back before it was sent (stop-all while it waited for a rate slot): its firing becomes a skip with this reason. */
  skipped?: string;
}

/**
 * `counted`: this outcome made the order id bought (its price added to its rule's spend). `earlier`: the order
 * id was bought already (an earlier attempt), left as it was and not counted again. `firing`: the buy's firing
 * as it is now, when there is one and it changed.
 */
export interface AutoBuySettled {
  counted: boolean;
  earlier: AutoBuyRecord | null;
  firing: AlertFiring | null;
}

/** A rule's auto-buy day: spend (auto-buys bought) and skips since the start of the day. */
export interface AutoBuyDayRow {
  ruleId: string;
  spent: number;
  skipped: number;
}

/** Skipped firings grouped by rule, UTC day and reason (the engine folds the reasons into a skip line). */
export type AutoBuySkipRow = Omit<AutoBuySkipLine, 'reasons'> & { reason: string };

export interface CatalogSyncRequest {
  url: string;
  /** Authentication headers; Accept-Encoding: gzip is added. */
  headers: Record<string, string>;
  /** Fail when no byte arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
  /** What the download is, in its errors (default "the catalog"). */
  label?: string;
}

/** A new cache's first fill: the 14-day window streamed into the store (worker/tradeWindow.ts). */
export interface TradeWindowRequest extends CatalogSyncRequest {
  /** A trade changed at or after this time (the account's opening) is handed back as news. */
  since: string;
  /** The meta key and the back-fill's position written with the last chunk, `to` set to the window's oldest trade. */
  fillKey: string;
  fill: { to: string };
}

export type TradeWindowResult =
  | {
      ok: true;
      /** Trades stored (every one the window held). */
      stored: number;
      /** The oldest createdAt the window held; null for an empty window. */
      oldest: string | null;
      /** The envelope's total. */
      total: number | null;
      /** The writes of trades changed since `since` (what a catch-up tells), and the newest delivered one. */
      recent: TradeUpsertResult;
    }
  | { ok: false; status: number; headers: Record<string, string>; bodyText: string };

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
export type ItemChangeGroup =
  | { kind: 'upserts'; items: Item[] }
  | { kind: 'prices'; changes: Float64Array }
  | { kind: 'removals'; itemIds: number[] };

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

/** Where an export's next chunk starts: the last row written, by the screen's order (createdAt, then id). */
export interface ExportKey {
  createdAt: string;
  /** tradeId of a trade, id of a ledger entry. */
  id: string | number;
}

/** One chunk of a CSV export, formatted in the reader thread. */
export interface ExportChunk {
  /** CSV lines (CRLF each), no header. */
  csv: string;
  rows: number;
  /** The key to ask the next chunk after; null when this chunk was the last. */
  next: ExportKey | null;
  /** Rows the query matches, counted with the first chunk (null on the others). */
  total: number | null;
}
