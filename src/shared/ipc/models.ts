import type { Balance, BalanceTransaction, Item, Trade, TradeStatus, TransactionType } from '../api';
import type { KeyStoreInfo } from './keyStore';
import type { CatalogFilters } from './catalogSchemas';
import type { SeedList } from '../seedLists';

/**
 * What the engine shows its hosts (Electron renderer, web host). Plain data,
 * structured-clone safe. Money in cents, times in UTC ISO strings.
 */

export type ConnectionState =
  'connecting' | 'connected' | 'reconnecting' | 'polling' | 'offline' | 'maintenance' | 'unauthorized';

export interface ConnectionStatus {
  state: ConnectionState;
  /** One line for the status bar: why, and what happens next. */
  detail: string;
  /** When the next connection attempt is due, while reconnecting or polling. */
  nextAttemptAt: string | null;
  since: string;
}

export interface RateLimitStatus {
  /** Requests still available in the current window, per bucket. */
  catalogRemaining: number;
  catalogLimit: number;
  defaultRemaining: number;
  defaultLimit: number;
  /** Set while the server asked us to wait (429 or 503). */
  backoffUntil: string | null;
}

export type ProgressKind = 'catalog-sync' | 'history-backfill' | 'ledger-sync';

export interface ProgressStatus {
  kind: ProgressKind;
  /** Items received / applied of total for a catalog sync; pages for back-fills. */
  done: number;
  total: number | null;
  phase: string;
  startedAt: string;
  /** Seconds left at the measured pace of the work so far (a back-fill's pages); null while unknown. */
  etaSeconds: number | null;
}

/** A CSV export the engine writes to a file (never over the bridge): its progress, then where it ended. */
export interface ExportStatus {
  id: string;
  kind: 'trades' | 'ledger';
  /** The file's name (no folder). */
  filename: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  /** Rows written so far, of the rows the query matched when it started. */
  done: number;
  total: number;
  startedAt: string;
  finishedAt: string | null;
  /** Why it failed. */
  error: string | null;
  /**
   * What the page can do with the finished file: `download` it from the web host (`GET /exports/:id`), or ask the
   * desktop shell to `reveal` it in its folder.
   */
  delivery: 'download' | 'reveal';
}

export interface AccountSummary {
  merchantId: string | null;
  baseUrl: string | null;
  wsUrl: string | null;
  /** Whether an API key is stored (the key itself never leaves main). */
  apiKeyConfigured: boolean;
  /** Where API keys are kept on this machine (the keychain, safeStorage, the environment, or memory only). */
  keyStore: KeyStoreInfo;
  demo: boolean;
  /**
   * The account is open from its cache only: no key store holds its API key (read-only and offline until
   * the key is entered). Absent from older engines.
   */
  cacheOnly?: boolean;
  /**
   * The account's API key is awaited from an OS keychain slow to answer (busy, or locked until unlocked): neither
   * live nor read-only. The engine asks again until it answers, then goes live (or read-only if it holds no key);
   * the connection says so meanwhile. Absent from older engines.
   */
  awaitingKeyStore?: boolean;
  /**
   * The account saved in Settings, whichever one is in use (in demo mode the fields above
   * describe the demo sandbox); null when none was ever saved. Absent from older engines.
   */
  saved?: SavedAccount | null;
}

export interface SavedAccount {
  merchantId: string;
  baseUrl: string;
  wsUrl: string;
  /** Whether its API key is held by the key store. */
  apiKeyConfigured: boolean;
}

export interface CatalogInfo {
  totalItems: number;
  totalValue: number;
  /** The server's build time of the list we hold. */
  lastUpdate: string | null;
  /** When we last finished a sync. */
  syncedAt: string | null;
}

export interface AppSnapshot {
  account: AccountSummary;
  connection: ConnectionStatus;
  rateLimit: RateLimitStatus;
  progress: ProgressStatus[];
  balance: Balance | null;
  /** When the server gave `balance`; null when unknown (none yet, or cached before the time was kept). Absent from older engines. */
  balanceAt?: string | null;
  activeTrades: number;
  catalog: CatalogInfo;
  settings: AppSettings;
  unacknowledgedFirings: number;
  /** Auto-buy's guard rails and spend today. Absent from older engines. */
  autoBuy?: AutoBuyStatus;
  /** "While you were away": what the first sync after launch brought; null until then or when nothing changed. Absent from older engines. */
  awaySummary?: AwaySummary | null;
  /** Forwarding notifications to a chat webhook. Absent from older engines. */
  forwarding?: ForwardStatus;
  /** Unread lines of the notification centre (a run shown as one line counts once). Absent from older engines. */
  unreadNotifications?: number;
  /** This run's CSV exports, newest first. Absent from older engines. */
  exports?: ExportStatus[];
}

/** A catalog row as the table shows it: flat, small, no holder fields. */
export interface CatalogRow {
  itemId: number;
  assetId: string;
  market_hash_name: string;
  phase: string | null;
  price: number;
  float: number | null;
  paintSeed: number | null;
  rarityColor: string | null;
  img: string | null;
  stickerCount: number;
  stickerNames: string[];
  keyChainNames: string[];
  statTrak: boolean;
  souvenir: boolean;
  /** When this item first appeared in our cache. */
  listedAt: string;
  /** Direction of the last price move, for flashing. */
  lastMove: 'up' | 'down' | null;
  /**
   * The market for its name (and phase), from the cached listings on sale: see MarketStanding. Null in the
   * rows a live change brings (the writer does not rank the market; a page read does): keep the one shown.
   */
  market: MarketStanding | null;
}

/**
 * Where a listing stands in its name's market (its name and phase), computed from every listing on sale in
 * the cache and kept current by the feed. Off sale: as when it left.
 */
export interface MarketStanding {
  /**
   * The median price of the name's plain listings on sale, those without stickers or charms (two middle ones:
   * their mean, rounded down), cents: what the skin itself sells for, which a stickered listing is compared with
   * too. Null when none of the name on sale is plain.
   */
  reference: number | null;
  /** How many of the name are on sale. */
  listings: number;
  /** How many of them are plain: the listings the reference is the median of. */
  plainListings: number;
  /** How far under the reference, in percent ((reference − price) / reference × 100; negative: over it); null without a reference. */
  discount: number | null;
  /** 1 for the lowest float of its name on sale (ties: the lower itemId first); null without a float. */
  floatRank: number | null;
  /**
   * The same among its name's listings on sale with its paint seed, and how many have that seed and a float;
   * null without a seed or a float. In the detail, and in a page's rows when its query has a seed list.
   */
  seedRank?: { rank: number; of: number } | null;
}

/** A name's market (its listings on sale, by name and phase) after a live change moved it. */
export interface NameMarket extends Pick<MarketStanding, 'reference' | 'listings' | 'plainListings'> {
  name: string;
  phase: string | null;
}

export interface PricePoint {
  at: string;
  price: number;
}

export interface ItemDetail {
  item: Item;
  priceHistory: PricePoint[];
  onSale: boolean;
  /** Its market's numbers while it is on sale (null once it left sale). */
  market: (MarketStanding & { leftSale24h: number; median7d: number | null; observed7d: number }) | null;
}

export interface TradeTimelineEntry {
  status: TradeStatus;
  at: string;
  errorCode: number | null;
  failReason: string | null;
  /** Where we learned it: the feed, a poll, a buy answer or a reconcile. */
  source: 'buy' | 'feed' | 'poll' | 'reconcile' | 'backfill';
}

export interface TradeDetail {
  trade: Trade;
  timeline: TradeTimelineEntry[];
}

export interface Page<T> {
  rows: T[];
  total: number;
  /** `total` is a floor: more rows match (an id prefix most ids start with); pages reach that far. */
  totalCapped?: boolean;
  offset: number;
  limit: number;
}

export interface Recipient {
  id: string;
  label: string;
  tradeUrl: string;
  createdAt: string;
}

export interface AlertRule {
  id: string;
  name: string;
  enabled: boolean;
  /** What it matches: the catalog's filters (a rule stored before them has its conditions folded in when read). */
  filters: CatalogFilters;
  /** The most one item may cost, cents. */
  maxPrice: number | null;
  autoBuy: {
    enabled: boolean;
    recipientId: string | null;
    /** Total this rule may spend, cents. */
    spendCap: number;
    /** Total this rule may spend per UTC day, cents. */
    dailyCap: number;
    spent: number;
    /** Dry run: each match is recorded as "would buy at $X" and nothing is sent. Absent from older rules (off). */
    dryRun?: boolean;
  };
  createdAt: string;
}

/** What a rule matches in the cached catalog now (shown before saving or enabling an auto-buy rule). */
export interface AutoBuyPreview {
  count: number;
  /** Sum of the matches' prices, cents. */
  total: number;
  /** The cheapest matches, at most 20. */
  items: { itemId: number; market_hash_name: string; price: number }[];
}

/** Auto-buy skips of one rule on one UTC day, folded into one line. */
export interface AutoBuySkipLine {
  ruleId: string;
  ruleName: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  count: number;
  lastAt: string;
  /** Why, most frequent first. */
  reasons: { reason: string; count: number }[];
}

/** Auto-buy today across rules: the guard rails' state, for the status bar and the Alerts screen. */
export interface AutoBuyStatus {
  /** Stop-all is on: no auto-buy request leaves. */
  stopped: boolean;
  /** The budget day (UTC), YYYY-MM-DD. */
  day: string;
  /** Cents auto-buy spent today across all rules: buys bought, in flight, or whose outcome is not known yet (counted until looked up). */
  spentToday: number;
  /** Cents all rules together may spend per UTC day; null: no global budget (each rule's caps still hold). */
  dailyBudget: number | null;
  /** Auto-buy never leaves less than this available, cents. */
  balanceFloor: number;
  /** Rules with auto-buy on (dry run included) or spend or skips today. */
  rules: {
    ruleId: string;
    ruleName: string;
    spentToday: number;
    skippedToday: number;
    dryRun: boolean;
    enabled: boolean;
  }[];
}

export interface AlertFiring {
  id: string;
  ruleId: string;
  ruleName: string;
  itemId: number;
  market_hash_name: string;
  price: number;
  firedAt: string;
  acknowledged: boolean;
  /**
   * Set when auto-buy acted on it. `skipped`: a guard rail held it back (why); `dryRun`: recorded as
   * "would buy at price", nothing sent. Both absent from older engines.
   */
  autoBuy: { tradeId: string | null; error: string | null; skipped?: string | null; dryRun?: boolean } | null;
}

export interface AppSettings {
  theme: 'dark' | 'light';
  /** Statuses that raise a desktop notification. */
  notifyStatuses: TradeStatus[];
  notifyAlerts: boolean;
  alertsPaused: boolean;
  demoSandbox: boolean;
  closeToTray: boolean;
  /** Stop-all: no auto-buy request leaves until resumed. Absent from older engines (off). */
  autoBuyStopped?: boolean;
  /** Cents all auto-buy rules together may spend per UTC day; null or absent: no global budget. */
  autoBuyDailyBudget?: number | null;
  /** Auto-buy never leaves less than this available, cents (0 or absent: never more than is available). */
  autoBuyBalanceFloor?: number;
  /** Chat webhook (Discord-compatible, or a Telegram bot's sendMessage URL) notifications are forwarded to; null or absent: off. */
  forwardUrl?: string | null;
  /** Which notifications are forwarded (see Notification.category). */
  forwardCategories?: NotificationCategory[];
  /** Categories that play a short sound; empty or absent: silent (the default). */
  soundCategories?: NotificationCategory[];
  /** Mutes every sound and keeps the choice of categories. */
  soundMuted?: boolean;
  /** Named paint-seed lists the catalog's Seed list section saves and picks (see shared/seedLists.ts). */
  seedLists?: SeedList[];
  /**
   * The percentage of the API's request budget the desk's background work (back-fill, reconcile, ledger pages) may
   * use; the rest stays for buys and the merchant's own back end on the same key. Absent: 50.
   */
  bulkSharePercent?: number;
  /** Notify when the balance runway falls under this many hours (see BalanceRunway); null or absent: off. */
  runwayAlertHours?: number | null;
  /** Webhook replay (Operations → Webhook health): off unless switched on, and the merchant's own webhook URL. */
  webhookReplayEnabled?: boolean;
  webhookReplayUrl?: string | null;
  /** Desktop only: start with the session, to the tray (the shell keeps the OS's entry in step). Absent: off. */
  startWithSession?: boolean;
  /** The desktop app checks its update feed at start and every 6 hours. Absent from older engines (on). */
  checkForUpdates?: boolean;
}

/** Buying over one recent window, and how long what is available lasts at that window's rate. */
export interface RunwayWindow {
  /** Net spend, cents: buying debits less the refunds of the window (never below 0). */
  spent: number;
  /** How long `available` lasts at this rate, ms; null when nothing was spent in the window. */
  runwayMs: number | null;
}

/** The balance runway (core/operations/runway.ts): a handful of numbers, never rows. */
export interface BalanceRunway {
  /** When it was computed; the windows end here. */
  at: string;
  /** The server's balance (already net of what it holds for active trades), cents. */
  balance: number;
  creditLimit: number;
  /** Buys answered since that balance was read: not in it yet, cents. */
  inFlight: number;
  /** balance + creditLimit − inFlight, cents. */
  available: number;
  lastHour: RunwayWindow;
  lastDay: RunwayWindow;
  /** settings.runwayAlertHours when computed. */
  thresholdHours: number | null;
  /** The shorter runway is under the threshold. */
  below: boolean;
}

/** One attempt of an order's chain (core/operations/nextBuy.ts): a trade, or a by-name refusal this run saw. */
export interface OrderChainAttempt {
  externalId: string;
  /** 1 for the original order, then 2, 3… (`ORDER#2`). */
  n: number;
  trade: Trade | null;
  /** A buy by name the marketplace refused (no trade was made); remembered while the app runs. */
  refusal: { code: string; message: string; at: string } | null;
}

/** What "buy the next one" would buy: the same name (and phase) and recipient, at most the original's maximum. */
export interface NextBuyPlan {
  /** The original order id; the attempts are `root#2`, `root#3`, … */
  root: string;
  /** The order id of this attempt. */
  externalId: string;
  market_hash_name: string;
  phase: string | null;
  /** The original buy's maximum, cents: its confirmed price (a trade), or its maxPrice (a refused buy by name). */
  maxPrice: number;
  tradeUrl: string;
  /** The cheapest listing of the name (and phase) at or under maxPrice in the local catalog; null: none. */
  cheapest: { itemId: number; price: number } | null;
}

/** An order's attempts, oldest first, and whether the next one can be bought (else why not). */
export interface OrderChain {
  root: string | null;
  attempts: OrderChainAttempt[];
  next: NextBuyPlan | null;
  /** Why there is no next buy (null when `next` is set). */
  unavailable: string | null;
}

/** The key a look-up found a trade by. `chain`: an attempt of the order id looked up (`ORDER#2`). */
export type LookupKey = 'tradeId' | 'externalId' | 'chain' | 'offerId' | 'partner' | 'name';

/** An order look-up (core/operations/lookup.ts): the newest matching trades, each with the key it matched. */
export interface OrderLookupResult {
  query: string;
  /** The keys searched, in words ("order id, trade id, offer id"). */
  searched: LookupKey[];
  hits: { trade: Trade; matchedBy: LookupKey }[];
  /** More trades matched than are shown (the newest `limit` are). */
  truncated: boolean;
  limit: number;
}

export interface Notification {
  id: string;
  kind: 'trade' | 'alert' | 'system';
  title: string;
  body: string;
  /** What clicking it opens. */
  target: { type: 'trade'; tradeId: string } | { type: 'item'; itemId: number } | null;
  at: string;
  /** Set by the producer when its id does not tell (see shared/notifications.ts). */
  category?: NotificationCategory;
  severity?: NotificationSeverity;
}

/** What a click on a desktop or browser notification opens: its target, or Trades for one about several trades. */
export type NavigateTarget = NonNullable<Notification['target']> | { type: 'trades' };

/** The notification centre's filters and the sound choices are per category. */
export type NotificationCategory = 'trade' | 'alert' | 'auto-buy' | 'connection';
/** delivered: success (green); cancelled, failed, expired: danger (red); reversed: warning (amber); sent: neutral. */
export type NotificationSeverity = 'success' | 'danger' | 'warning' | 'neutral';

/** A notification kept in the account's store (the notification centre). */
export interface StoredNotification extends Notification {
  category: NotificationCategory;
  severity: NotificationSeverity;
  /** When it was marked read; null: unread. */
  readAt: string | null;
}

export interface NotificationPage {
  rows: StoredNotification[];
  /** Rows matching the filter. */
  total: number;
  /** Unread lines of the whole centre: a run shown as one line (groupNotifications) counts once. */
  unread: number;
}

/** "While you were away": what the first sync after launch found that the cache did not hold. */
export interface AwaySummary {
  /** The end of the last complete history sync before launch (about when the app last ran). */
  since: string;
  at: string;
  /** Trades that reached a status while away, counted once each by their latest status; price total in cents. */
  trades: { status: TradeStatus; count: number; total: number }[];
  /** Set when exactly one trade changed: the summary opens it. */
  onlyTradeId: string | null;
  /** New ledger entries and their net amount, cents. */
  ledger: { count: number; net: number };
  /** Alert matches recorded since launch (the first sync's listings included). */
  alertMatches: { count: number; autoBought: number };
}

/** The forwarder's state, for Settings. */
export interface ForwardStatus {
  /** The webhook's host (its path holds a token, never shown); null when forwarding is off. */
  host: string | null;
  pending: number;
  lastSentAt: string | null;
  /** The last failure, until a message gets through. */
  problem: string | null;
  nextAttemptAt: string | null;
}

export interface BalancePoint {
  at: string;
  balance: number;
}

export interface LedgerRow extends BalanceTransaction {
  /** Type shown as given by the server, kept for filters. */
  type: TransactionType;
}

/** A buy refused: the server's or our own check's code, with what to do next. */
export interface BuyFailure {
  code: string;
  message: string;
  nextStep: string;
  retryable: boolean;
  /** price_changed: the new price, to offer a one-click re-buy. */
  newPrice?: number;
  /** partner_blocked: until when. */
  blockedUntil?: string;
  /** insufficient_balance: what is available. */
  available?: number;
}

export type BuyOutcome =
  { ok: true; trade: Trade; externalId: string } | { ok: false; failure: BuyFailure; externalId: string };

export interface BuyWarning {
  code: 'owner-near-limit' | 'owner-blocked' | 'holder-near-limit' | 'owner-near-block' | 'low-funds' | 'order-id-used';
  message: string;
}

export interface ConnectionTestResult {
  ok: boolean;
  message: string;
  merchantId: string | null;
  balance: Balance | null;
}
