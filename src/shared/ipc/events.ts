import type { Balance, Trade } from '../api';
import type {
  AlertFiring,
  AppSettings,
  AutoBuyStatus,
  BalanceRunway,
  AwaySummary,
  CatalogInfo,
  CatalogRow,
  ConnectionStatus,
  NameMarket,
  NavigateTarget,
  ForwardStatus,
  Notification,
  ExportStatus,
  ProgressStatus,
  RateLimitStatus,
} from './models';
import type { SavedSearch } from './catalogSchemas';
import type { UpdateStatus } from './updates';
import type { DeepLinkTarget } from '../deepLinks';

/** One price that moved; `previous` is null for an item new to the cache. */
export interface PriceMove {
  itemId: number;
  price: number;
  previous: number | null;
}

/** What changed in the saved searches: each saved one as it is now, and the ids deleted. */
export interface SavedSearchChanges {
  saved: SavedSearch[];
  deleted: string[];
}

/**
 * One coalesced flush of engine events (at most ~20 a second). Absent fields
 * did not change. Price moves are merged per item: only the latest survives.
 */
export interface EngineEventBatch {
  seq: number;
  at: string;
  connection?: ConnectionStatus;
  rateLimit?: RateLimitStatus;
  /** The full list of running progress entries when any changed. */
  progress?: ProgressStatus[];
  /** This run's CSV exports (newest first) when any changed: progress, done, failed, cancelled. */
  exports?: ExportStatus[];
  balance?: Balance;
  /** When the server gave `balance` (sent with it; null: a balance cached before the time was kept). */
  balanceAt?: string | null;
  activeTrades?: number;
  catalog?: CatalogInfo;
  /** Trades whose record changed, latest state each (at most MAX_TRADES_PER_BATCH). */
  trades?: Trade[];
  /** More trades changed than a batch carries (a back-fill, a catch-up): re-query the trades on screen. */
  tradesInvalidated?: boolean;
  items?: {
    upserted: CatalogRow[];
    removed: number[];
    prices: PriceMove[];
    /** A bulk change (full sync) happened: re-query what is on screen. */
    invalidated: boolean;
  };
  /**
   * The markets live changes moved, latest each (by name and phase): the rows and an open detail of those names
   * take the new reference and their discount against it without a read.
   */
  markets?: NameMarket[];
  ledgerChanged?: boolean;
  /** A failed trade or a buy refusal was stored: Operations → Failures reads its board again. */
  failuresChanged?: boolean;
  /** Trades moved or a recipient's block was recorded: Operations → Recipients re-reads its page. */
  recipientsChanged?: boolean;
  /** The balance runway after a change of its numbers. */
  runway?: BalanceRunway;
  /** Another account was opened (a switch made in any window, a start): read the snapshot again. */
  accountChanged?: boolean;
  /** The settings after a change, whoever made it. */
  settings?: AppSettings;
  /** Saved searches saved (created, renamed, replaced) or deleted, whoever did it: apply them to the list held. */
  savedSearches?: SavedSearchChanges;
  firings?: AlertFiring[];
  notifications?: Notification[];
  /** Unread lines of the centre (a run shown as one line counts once), after any change. */
  unreadNotifications?: number;
  unacknowledgedFirings?: number;
  /** Auto-buy's spend today, skips and stop-all, after any change. */
  autoBuy?: AutoBuyStatus;
  /** "While you were away", once the first sync after launch is done. */
  awaySummary?: AwaySummary;
  /** The forwarder's state after any change. */
  forwarding?: ForwardStatus;
  /**
   * Electron only: the user clicked a desktop notification or opened a `merchantdesk://` link; open this (a
   * notification's target is one of these places). Sent by the shell in a batch of its own that repeats the last
   * `seq` (so it is not a gap).
   */
  navigate?: NavigateTarget | DeepLinkTarget;
  /** Electron only: the app update's state after a change, in a batch of the shell's own (like `navigate`). */
  update?: UpdateStatus;
}
