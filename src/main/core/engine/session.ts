import type { Balance, FeedFrame, Item, PriceChange, Trade } from '../../../shared/api';
import { CATALOG_REBUILD_INTERVAL_MS, HISTORY_MAX_LIMIT, isActiveStatus } from '../../../shared/api';
import type { CatalogInfo, CatalogRow, ConnectionStatus, ProgressKind, ProgressStatus } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import { ApiRequestError, ClientRateLimiter, MerchantApiClient } from '../api';
import type { EventBatcher } from '../events/batcher';
import { EngineError } from '../ipc/engineService';
import { FeedConnection } from '../feed';
import { packPriceChanges, priceChangeOutcome, type ItemChangeGroup, type LocalStore } from '../store';
import type { CatalogTotals, PriceMove, TradeSource } from '../store/types';
import { tradeNotifications } from './notifications';
import { ItemWriteQueue, type ItemFrame } from './itemWriteQueue';

export interface AccountCredentials {
  baseUrl: string;
  wsUrl: string;
  merchantId: string;
  apiKey: string;
}

/** An account as a session opens it: without its API key, its cache only (read-only, offline). */
export type SessionAccount = Omit<AccountCredentials, 'apiKey'> & { apiKey: string | null };

/** Why an account open without its key is offline, and what to do about it. */
export function noKeyDetail(merchantId: string): string {
  return `Read-only: no API key for ${merchantId} on this machine. Enter your API key in Settings → Connection to go live.`;
}

export interface SessionHooks {
  /** Items arrived or changed (feed frames, syncs): alerts evaluate them. */
  onItems(rows: { items?: Item[]; itemIds?: number[]; writtenIds?: number[] }): void;
  /** After each completed catalog sync. */
  onCatalogSynced(): void;
  notifyStatuses(): readonly string[];
  /** Trades stored, with the statuses each reached for the first time (every source, back-fill included). */
  onTradesStored?(changed: readonly Trade[], newStatuses: readonly { tradeId: string; status: Trade['status'] }[]): void;
  /** Once: the first reconcile since start completed without a failure. */
  onFirstSync?(): void;
  /** After every reconcile that brought the active trades (start-up, each reconnect, polls): auto-buy looks up its unknown outcomes. */
  onReconciled?(): void;
  log(line: string): void;
}

/** The status while the feed is back but what happened meanwhile is not reconciled yet. */
const CATCHING_UP_DETAIL = 'Feed connected; catching up on balance, active trades and the catalog…';
/** How often trades are polled while no feed is possible (spec's polling mode). */
export const POLL_INTERVAL_MS = 15_000;
/** How often catalog freshness is checked against lastUpdate + 5 min. */
const FRESHNESS_CHECK_MS = 30_000;
/** Grace after the server's next expected rebuild before we fetch. */
const FRESHNESS_GRACE_MS = 20_000;
/** A stale cached catalog is refreshed this long after the session started (see syncCatalogIfStale). */
const START_SYNC_DELAY_MS = 3000;
/** Two catalog syncs never start closer than this (the limit is 10 a minute). */
const MIN_CATALOG_SYNC_GAP_MS = 10_000;
const BALANCE_DEBOUNCE_MS = 250;
const LEDGER_DEBOUNCE_MS = 1_000;
/**
 * The history back-fill's high-water mark: the fixed `to` of the last complete run. Each run pages
 * `Trades/History?from=<mark − overlap>&to=<now>`, so trades made while the app was closed for longer than
 * the 14-day `isActive` window are still found. No mark (a new cache): the whole history.
 */
const HISTORY_MARK_META = 'trades_history_mark';
/**
 * The base URL the cached catalog was last synced from: its picture URLs point there. A cache synced from
 * another address (the demo restarted on another port, the account moved) is synced again at once.
 */
const CATALOG_BASE_URL_META = 'catalog_base_url';
/** When the server gave the cached balance (meta `balance`): a cached figure shows that time, not when it was read again. */
const BALANCE_AT_META = 'balance_at';
/** Each run re-reads this much before the mark: trades stamped by a server clock a little behind ours. */
const HISTORY_OVERLAP_MS = 10 * 60_000;
/** Trades/History?webhookStatus=failed is asked at most this often (the user's filter for failed webhooks). */
const WEBHOOK_FAILED_REFRESH_MS = 60_000;
/** After a failed API call the cache may be stale: reconcile again after 5 s, doubling up to 2 min (never before a server backoff ends). */
const RECOVERY_FIRST_MS = 5_000;
const RECOVERY_MAX_MS = 120_000;

/**
 * One account's live connection: REST client and shared limiter, the one
 * feed, and the sync that keeps the local cache current. API → core →
 * SQLite → coalesced events; nothing here talks to a UI directly.
 */
/** At most this many item events in one writer call (a transaction of a few tenths of a second at most). */
const MAX_ITEM_EVENTS_PER_WRITE = 20_000;
/** Under a flood, the next writer call is sent while one is under way, once this many events wait (see ItemWriteQueue). */
const MIN_ITEM_EVENTS_TO_OVERLAP = 5_000;
/** Smaller writer calls go at most this often under a steady flow (see ItemWriteQueue). */
const MIN_MS_BETWEEN_ITEM_WRITES = 50;

/** Frames in arrival order as groups for the writer: each run of frames of one kind becomes one group. */
export function itemChangeGroups(frames: readonly ItemFrame[]): ItemChangeGroup[] {
  type Building = { kind: 'upserts'; items: Item[] } | { kind: 'prices'; changes: PriceChange[] } | { kind: 'removals'; itemIds: number[] };
  const groups: Building[] = [];
  for (const frame of frames) {
    const last = groups[groups.length - 1];
    switch (frame.type) {
      case 'item_upserted':
        if (last?.kind === 'upserts') for (const item of frame.items) last.items.push(item);
        else groups.push({ kind: 'upserts', items: frame.items.slice() });
        break;
      case 'price_changed':
        if (last?.kind === 'prices') for (const change of frame.items) last.changes.push(change);
        else groups.push({ kind: 'prices', changes: frame.items.slice() });
        break;
      case 'item_removed':
        if (last?.kind === 'removals') for (const itemId of frame.itemIds) last.itemIds.push(itemId);
        else groups.push({ kind: 'removals', itemIds: frame.itemIds.slice() });
        break;
    }
  }
  return groups.map((group) => (group.kind === 'prices' ? { kind: 'prices', changes: packPriceChanges(group.changes) } : group));
}

export class AccountSession {
  /** The account's rate budget: the engine's one per merchant, shared with "Test connection" and later sessions. */
  readonly limiter: ClientRateLimiter;
  /** The API and the feed; null for an account open without its key. */
  private readonly api: { client: MerchantApiClient; feed: FeedConnection } | null;
  connection: ConnectionStatus;
  balance: Balance | null = null;
  /** When the server gave that balance (null: held since before the app kept the time). */
  balanceAt: string | null = null;
  activeTrades = 0;
  catalog: CatalogInfo = { totalItems: 0, totalValue: 0, lastUpdate: null, syncedAt: null };
  private readonly progress = new Map<ProgressKind, ProgressStatus>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private catalogSync: Promise<void> | null = null;
  private catalogAgain = false;
  private lastCatalogSyncAt = 0;
  private balanceTimer: ReturnType<typeof setTimeout> | null = null;
  private ledgerTimer: ReturnType<typeof setTimeout> | null = null;
  private ledgerSync: Promise<void> | null = null;
  private stopped = false;
  private backfilling: Promise<void> | null = null;
  private reconciling: Promise<void> | null = null;
  private reconcileAgain: string | null = null;
  private recoveryTimer: ReturnType<typeof setTimeout> | null = null;
  private recoveryAttempt = 0;
  private lastFailureAt = 0;
  /** The feed is connected but what happened while it was away is not reconciled yet: not "Live" until it is. */
  private catchingUp = false;
  private feedState: ConnectionStatus['state'] | null = null;
  /** Bumped at each feed (re)connect; a reconcile started before the latest one does not end the catch-up. */
  private connectGeneration = 0;
  /** A REST call answered 401: the only thing that stops polling (a refused feed alone does not). */
  private restUnauthorized = false;
  /**
   * A REST failure with no state of its own (answers past the time-out, answers not understood): shown as the
   * connection's detail until REST answers again, so the user sees it, not only the log.
   */
  private restProblem: string | null = null;
  private startedAt = Date.now();
  private startSyncScheduled = false;
  /** Settles when the session's first catalog sync ends (or the session stops): the summary after launch waits for a due one. */
  private firstCatalogSyncEnded!: () => void;
  private readonly firstCatalogSync = new Promise<void>((resolve) => (this.firstCatalogSyncEnded = resolve));
  /** The cached catalog came from another base URL than this session's (see CATALOG_BASE_URL_META). */
  private catalogFromElsewhere = false;
  /** Item frames on their way to the writer, in arrival order. */
  private readonly itemWrites = new ItemWriteQueue({
    write: (frames) => this.applyItemFrames(frames),
    onError: (error) => this.fail('applying item frames', error),
    maxEventsPerWrite: MAX_ITEM_EVENTS_PER_WRITE,
    maxWritesInFlight: 2,
    minEventsToOverlap: MIN_ITEM_EVENTS_TO_OVERLAP,
    minMsBetweenWrites: MIN_MS_BETWEEN_ITEM_WRITES,
  });
  private webhookFailedSync: Promise<void> | null = null;
  private firstSyncDone = false;
  private webhookFailedAt = 0;
  private readonly abort = new AbortController();
  private readonly unsubscribers: (() => void)[] = [];

  constructor(
    readonly credentials: SessionAccount,
    readonly store: LocalStore,
    private readonly events: EventBatcher,
    private readonly hooks: SessionHooks,
    limiter: ClientRateLimiter = new ClientRateLimiter(),
    /**
     * When the app began opening this account (a launch, a switch): a trade changed since then is this session's
     * news, whichever path brings it. A host shows the app, and the merchant trades, before start() runs.
     */
    private readonly openedAt: number = Date.now(),
  ) {
    this.limiter = limiter;
    const { apiKey } = credentials;
    this.api =
      apiKey === null
        ? null
        : {
            client: new MerchantApiClient({ ...credentials, apiKey }, { limiter: this.limiter }),
            feed: new FeedConnection({ wsUrl: credentials.wsUrl, merchantId: credentials.merchantId, apiKey }),
          };
    this.connection = this.api
      ? { state: 'connecting', detail: 'Connecting to the live feed', nextAttemptAt: null, since: toUtcIso(Date.now()) }
      : { state: 'offline', detail: noKeyDetail(credentials.merchantId), nextAttemptAt: null, since: toUtcIso(Date.now()) };
  }

  /** Whether the account has its key: without it nothing goes over the network. */
  get live(): boolean {
    return this.api !== null;
  }

  get client(): MerchantApiClient {
    return this.liveApi().client;
  }

  get feed(): FeedConnection {
    return this.liveApi().feed;
  }

  private liveApi(): { client: MerchantApiClient; feed: FeedConnection } {
    if (!this.api) throw new EngineError('unavailable', noKeyDetail(this.merchantId));
    return this.api;
  }

  get merchantId(): string {
    return this.credentials.merchantId;
  }

  progressList(): ProgressStatus[] {
    return [...this.progress.values()];
  }

  /** Cached data is readable before anything goes over the network: offline browsing. */
  async start(): Promise<void> {
    this.startedAt = Date.now();
    this.catalog = await this.store.catalogInfo();
    this.catalogFromElsewhere = this.catalog.totalItems > 0 && (await this.store.getMeta(CATALOG_BASE_URL_META)) !== this.credentials.baseUrl;
    this.activeTrades = (await this.store.activeTrades()).length;
    await this.loadRecipientLabels();
    const cachedBalance = (await this.store.getMeta('balance')) as Balance | null;
    if (cachedBalance) {
      this.balance = cachedBalance;
      const at = await this.store.getMeta(BALANCE_AT_META);
      this.balanceAt = typeof at === 'string' ? at : null;
    }
    this.events.push({ catalog: this.catalog, activeTrades: this.activeTrades, ...(this.balance ? { balance: this.balance, balanceAt: this.balanceAt } : {}) });
    if (!this.api) return; // no key: the cache only, and nothing over the network

    this.unsubscribers.push(
      this.limiter.onChange(() => this.events.push({ rateLimit: this.limiter.status() })),
      this.feed.onState((status) => this.onFeedState(status)),
      this.feed.onConnected(() => {
        void this.reconcile('feed connected');
        void this.backfillHistory(); // from the high-water mark: what was created while we were away
      }),
      this.feed.onFrame((frame) => void this.onFrame(frame).catch((error: unknown) => this.fail('applying a feed frame', error))),
      this.feed.onProblem((problem) => this.hooks.log(`feed: ${problem.kind}: ${problem.message}`)),
    );
    this.feed.start();
    this.every(FRESHNESS_CHECK_MS, () => void this.syncCatalogIfStale());
    void this.syncCatalogIfStale();
    void this.backfillHistory();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.firstCatalogSyncEnded();
    this.itemWrites.stop();
    this.abort.abort();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.balanceTimer) clearTimeout(this.balanceTimer);
    if (this.ledgerTimer) clearTimeout(this.ledgerTimer);
    if (this.recoveryTimer) clearTimeout(this.recoveryTimer);
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    await this.api?.feed.stop();
    await Promise.allSettled([this.catalogSync, this.ledgerSync]);
  }

  // ---- Feed

  private onFeedState(status: ConnectionStatus): void {
    if (status.state === 'connected' && this.feedState !== 'connected') {
      // The feed is back, so the server is: a maintenance Retry-After must not hold the catch-up.
      this.catchingUp = true;
      this.connectGeneration++;
      this.limiter.endMaintenanceBackoff();
    } else if (status.state !== 'connected') {
      this.catchingUp = false;
    }
    this.feedState = status.state;
    this.connection =
      status.state === 'connected' && this.catchingUp
        ? { state: 'connecting', detail: CATCHING_UP_DETAIL, nextAttemptAt: null, since: status.since }
        : { state: status.state, detail: this.restProblem ?? status.detail, nextAttemptAt: status.nextAttemptAt, since: status.since };
    this.events.push({ connection: this.connection });
    const live = status.state === 'connected' || status.state === 'connecting';
    if (live && this.pollTimer) {
      clearInterval(this.pollTimer);
      this.pollTimer = null;
    } else if (!live && !this.pollTimer && !this.restUnauthorized) {
      // No feed, whatever the reason the feed gives (a 403 of a proxy, the connection limit, even its own 401):
      // keep trades current by polling, within the rate budget. Only a REST 401 stops it (see fail()).
      this.pollTimer = setInterval(() => void this.reconcile('polling'), POLL_INTERVAL_MS);
      void this.reconcile('feed lost');
    }
  }

  private async onFrame(frame: FeedFrame): Promise<void> {
    switch (frame.type) {
      case 'connected':
        return;
      case 'trade_updated': {
        const { type: _type, ...update } = frame;
        const result = await this.store.applyTradeUpdate(update, 'feed');
        if (result.unknown) {
          await this.fetchTrades({ tradeId: frame.tradeId }, 'feed');
          return;
        }
        const newStatuses = result.newStatus ? [{ tradeId: result.trade.tradeId, status: result.newStatus }] : [];
        if (result.changed) {
          this.hooks.onTradesStored?.([result.trade], newStatuses);
          this.announceTrades([result.trade], newStatuses);
        }
        // A frame carries no timestamps: a status that sets completedAt, endProtection,
        // cancelledAt or rollbackAt is worth the one request for the full record.
        if (result.newStatus && !isActiveStatus(result.newStatus)) await this.fetchTrades({ tradeId: frame.tradeId }, 'feed');
        this.walletChanged();
        return;
      }
      case 'item_upserted':
        // Alerts (and auto-buy) see the items at once; the cache write waits its turn.
        this.hooks.onItems({ items: frame.items });
        return this.itemWrites.push(frame);
      case 'price_changed':
      case 'item_removed':
        return this.itemWrites.push(frame);
    }
  }

  private async applyItemFrames(frames: ItemFrame[]): Promise<void> {
    const groups = itemChangeGroups(frames);
    const results = await this.store.applyItemChanges(groups);
    const unknown: number[] = [];
    for (const [i, entry] of results.entries()) {
      switch (entry.kind) {
        case 'upserts':
          this.announceItems(entry.result.totals, { upserted: entry.result.upserted, prices: entry.result.prices });
          if (entry.result.upserted.length > 0) this.hooks.onItems({ writtenIds: entry.result.upserted.map((row) => row.itemId) });
          break;
        case 'prices': {
          const group = groups[i] as Extract<ItemChangeGroup, { kind: 'prices' }>;
          const outcome = priceChangeOutcome(group.changes, entry.result.previous);
          const moves = outcome.prices;
          if (moves.length > 0) {
            this.announceItems(entry.result.totals, { prices: moves });
            this.hooks.onItems({ itemIds: moves.map((move) => move.itemId) });
          }
          for (const itemId of outcome.unknown) unknown.push(itemId);
          break;
        }
        case 'removals':
          if (entry.result.removed.length > 0) this.announceItems(entry.result.totals, { removed: entry.result.removed });
          break;
      }
    }
    if (unknown.length === 0) return;
    // Repriced items we never saw are fetched whole, unless the same burst removed them. The next burst may be
    // written meanwhile (ItemWriteQueue); a removal in it was made on the server before its frame was sent,
    // so the fetch, made later, does not bring the item back.
    const removed = new Set(groups.flatMap((group) => (group.kind === 'removals' ? group.itemIds : [])));
    await this.fetchUnknownItems(unknown.filter((itemId) => !removed.has(itemId)));
  }

  /**
   * A live change of cached items, with the catalog summary after it (a `catalog` patch only when the count or value
   * moved), then the markets of their names: another listing's move shifts the reference of every row of its name.
   */
  private announceItems(totals: CatalogTotals, change: { upserted?: CatalogRow[]; removed?: number[]; prices?: PriceMove[] }): void {
    const items = { upserted: change.upserted ?? [], removed: change.removed ?? [], prices: change.prices ?? [], invalidated: false };
    for (const itemId of [...items.upserted.map((row) => row.itemId), ...items.removed, ...items.prices.map((move) => move.itemId)]) this.marketItems.push(itemId);
    this.marketsRead ??= this.announceMarkets();
    if (totals.totalItems === this.catalog.totalItems && totals.totalValue === this.catalog.totalValue) {
      this.events.push({ items });
      return;
    }
    this.catalog = { ...this.catalog, ...totals };
    this.events.push({ catalog: this.catalog, items });
  }

  /** Items whose names' markets are read next: one read at a time, and what changes meanwhile joins the next one. */
  private marketItems: number[] = [];
  private marketsRead: Promise<void> | null = null;

  private async announceMarkets(): Promise<void> {
    try {
      while (this.marketItems.length > 0) {
        const markets = await this.store.nameMarkets(this.marketItems.splice(0));
        if (markets.length > 0) this.events.push({ markets });
      }
    } catch (error) {
      // The store closes under a pending read when the session stops.
      this.fail('reading the markets of changed items', error);
    } finally {
      this.marketsRead = null;
    }
  }

  /** Items a price change named that the cache never held: fetched whole, 500 ids per request. */
  private async fetchUnknownItems(itemIds: number[]): Promise<void> {
    for (let i = 0; i < itemIds.length; i += 500) {
      const found = await this.client.searchItems({ itemId: itemIds.slice(i, i + 500) }, { signal: this.abort.signal });
      if (found.items.length === 0) continue;
      this.hooks.onItems({ items: found.items });
      const [written] = await this.store.applyItemChanges([{ kind: 'upserts', items: found.items }]);
      if (written?.kind !== 'upserts') continue;
      const upserted = written.result;
      this.announceItems(upserted.totals, { upserted: upserted.upserted, prices: upserted.prices });
      if (upserted.upserted.length > 0) this.hooks.onItems({ writtenIds: upserted.upserted.map((row) => row.itemId) });
    }
  }

  // ---- Trades

  /** Trade URL → the recipient's label, for trade notifications (which never show a trade URL). */
  private recipientLabels: ReadonlyMap<string, string> = new Map();

  private async loadRecipientLabels(): Promise<void> {
    try {
      this.recipientLabels = new Map((await this.store.listRecipients()).map((recipient) => [recipient.tradeUrl, recipient.label]));
    } catch {
      // The store closed under the read (the session stopping): the labels held stay.
    }
  }

  /** Announces changed trades, once-per-status notifications and the active count. */
  announceTrades(changed: Trade[], newStatuses: { tradeId: string; status: Trade['status'] }[]): void {
    if (changed.length === 0) return;
    const notifications = tradeNotifications(changed, newStatuses, this.hooks.notifyStatuses(), this.recipientLabels);
    // Read again for the next announcement: a recipient renamed meanwhile shows under its new name.
    void this.loadRecipientLabels();
    this.events.push({ trades: changed, ...(notifications.length > 0 ? { notifications } : {}) });
    void this.store
      .activeTrades()
      .then((active) => {
        this.activeTrades = active.length;
        this.events.push({ activeTrades: this.activeTrades });
      })
      // The store closes under a pending read when the session stops: not an unhandled rejection.
      .catch((error: unknown) => this.fail('counting active trades', error));
  }

  async upsertTrades(trades: Trade[], source: TradeSource): Promise<void> {
    if (trades.length === 0) return;
    const result = await this.store.upsertTrades(trades, source);
    this.hooks.onTradesStored?.(result.changed, result.newStatuses);
    // Back-filled history from before the account was opened is old news: shown, not notified. A trade changed
    // since then is news however it arrives (a back-fill can store it before the feed or a reconcile does).
    const changedSinceOpened = new Set(result.changed.filter((trade) => Date.parse(trade.updatedAt) >= this.openedAt).map((trade) => trade.tradeId));
    const news = source === 'backfill' ? result.newStatuses.filter((change) => changedSinceOpened.has(change.tradeId)) : result.newStatuses;
    this.announceTrades(result.changed, news);
  }

  private async fetchTrades(query: { tradeId?: string; externalId?: string }, source: TradeSource): Promise<Trade[]> {
    const page = await this.client.tradeHistory(query, { signal: this.abort.signal });
    await this.upsertTrades(page.trades, source);
    return page.trades;
  }

  /**
   * After every (re)connect, on start and while polling: nothing that happened while away is lost.
   * Single flight: while one runs (or waits out a server backoff in the limiter), the polls and
   * recoveries that come due join it, and an event (a reconnect) makes at most one more run after it;
   * so a long Retry-After never releases a pile of queued reconciles at once.
   */
  reconcile(reason: string): Promise<void> {
    if (!this.api) return Promise.resolve();
    if (this.reconciling) {
      if (reason !== 'polling' && reason !== 'recovery') this.reconcileAgain = reason;
      return this.reconciling;
    }
    this.reconciling = (async () => {
      try {
        for (let next: string | null = reason; next !== null && !this.stopped; ) {
          this.reconcileAgain = null;
          await this.runReconcile(next);
          next = this.reconcileAgain;
        }
      } finally {
        this.reconciling = null;
      }
    })();
    return this.reconciling;
  }

  private async runReconcile(reason: string): Promise<void> {
    if (this.stopped) return;
    const started = Date.now();
    const generation = this.connectGeneration;
    try {
      const active = await this.client.tradeHistory({ isActive: true }, { signal: this.abort.signal });
      await this.upsertTrades(active.trades, reason === 'polling' ? 'poll' : 'reconcile');
      // Trades that were active here but left the window or ended: fetch each one's final state.
      const stillActive = new Set(active.trades.filter((t) => t.status === 'PENDING' || t.status === 'SENT').map((t) => t.tradeId));
      for (const trade of await this.store.activeTrades()) {
        if (!stillActive.has(trade.tradeId) && !active.trades.some((t) => t.tradeId === trade.tradeId)) {
          await this.fetchTrades({ tradeId: trade.tradeId }, 'reconcile');
        }
      }
      this.hooks.onReconciled?.();
      await this.refreshBalance();
      this.scheduleLedgerSync();
      if (reason !== 'polling') void this.syncCatalogIfStale();
      this.restUnauthorized = false;
      if (this.lastFailureAt < started) {
        this.recoveryAttempt = 0;
        if (!this.firstSyncDone) {
          this.firstSyncDone = true;
          this.hooks.onFirstSync?.();
        }
        if (this.restProblem !== null) {
          // REST answers again: back to what the feed says.
          this.restProblem = null;
          this.onFeedState(this.feed.state);
        }
        // A REST 503 set `maintenance` while the feed stayed up: the API answers again, show the feed's state.
        if (this.connection.state === 'maintenance' && this.feed.state.state === 'connected') this.onFeedState(this.feed.state);
        if (this.catchingUp && generation === this.connectGeneration) {
          // Trades and balance are current, the catalog's freshness checked (a stale one syncs, with its progress shown): live.
          this.catchingUp = false;
          this.onFeedState(this.feed.state);
        }
      }
    } catch (error) {
      this.fail(`reconcile (${reason})`, error);
    }
  }

  /**
   * The user's "Retry now": a maintenance backoff ends, a feed waiting for its next attempt connects now, and
   * trades, balance and catalog freshness are reconciled at once. A rate-limit backoff still holds.
   */
  retryNow(): { started: boolean } {
    if (this.stopped) return { started: false };
    this.limiter.endMaintenanceBackoff();
    if (this.recoveryTimer) clearTimeout(this.recoveryTimer);
    this.recoveryTimer = null;
    this.recoveryAttempt = 0;
    const feedState = this.feed.state.state;
    if (feedState !== 'connected' && !(feedState === 'connecting' && this.feed.hasPendingAttempt)) void this.feed.restart();
    void this.reconcile('retry now');
    void this.backfillHistory();
    return { started: true };
  }

  /**
   * Pages the history from the high-water mark to now (the whole history on a new cache): on start, after
   * every feed (re)connect and by the recovery. Single flight.
   */
  backfillHistory(): Promise<void> {
    if (!this.api) return Promise.resolve();
    this.backfilling ??= this.runBackfill().finally(() => {
      this.backfilling = null;
    });
    return this.backfilling;
  }

  private async runBackfill(): Promise<void> {
    try {
      const mark = await this.store.getMeta(HISTORY_MARK_META);
      const markMs = typeof mark === 'string' ? Date.parse(mark) : Number.NaN;
      // A fixed `to`: trades created while we page do not shift the pages; the next run starts from it.
      const to = toUtcIso(Date.now());
      const from = Number.isNaN(markMs) ? null : toUtcIso(Math.min(markMs, Date.now()) - HISTORY_OVERLAP_MS);
      let page = 1;
      let fetched = 0;
      let pages: number | null = null;
      for (;;) {
        this.setProgress('history-backfill', { done: page - 1, total: pages, phase: pages === null ? `page ${page}` : `page ${page} of ${pages}` });
        const answer = await this.client.tradeHistory(
          { ...(from ? { from } : {}), to, limit: HISTORY_MAX_LIMIT, page },
          { signal: this.abort.signal },
        );
        await this.upsertTrades(answer.trades, 'backfill');
        fetched += answer.trades.length;
        pages = Math.max(1, Math.ceil(answer.total / HISTORY_MAX_LIMIT));
        this.setProgress('history-backfill', { done: page, total: pages, phase: `page ${page} of ${pages}` });
        if (answer.trades.length === 0 || fetched >= answer.total) break;
        page++;
      }
      await this.store.setMeta(HISTORY_MARK_META, to);
    } catch (error) {
      this.fail('history back-fill', error);
    } finally {
      this.clearProgress('history-backfill');
    }
  }

  /**
   * The cache's webhookStatus only changes when a trade is read again, and a failed delivery sends no frame:
   * when the user filters for failed webhooks, ask the server (`webhookStatus=failed`, every page), at most
   * once a minute. Changed trades reach the UI as trade events.
   */
  refreshWebhookFailed(): Promise<void> {
    if (!this.api) return Promise.resolve();
    if (this.webhookFailedSync) return this.webhookFailedSync;
    if (Date.now() - this.webhookFailedAt < WEBHOOK_FAILED_REFRESH_MS) return Promise.resolve();
    this.webhookFailedAt = Date.now();
    this.webhookFailedSync = (async () => {
      try {
        for (let page = 1; ; page++) {
          const answer = await this.client.tradeHistory({ webhookStatus: 'failed', limit: HISTORY_MAX_LIMIT, page }, { signal: this.abort.signal });
          await this.upsertTrades(answer.trades, 'reconcile');
          if (answer.trades.length < HISTORY_MAX_LIMIT || page * HISTORY_MAX_LIMIT >= answer.total) break;
        }
      } catch (error) {
        this.fail('failed webhooks', error);
      } finally {
        this.webhookFailedSync = null;
      }
    })();
    return this.webhookFailedSync;
  }

  /** The start-up's catch-up settled: the history back-fill under way finished and the ledger synced (read after the first sync). */
  async startupSettled(): Promise<void> {
    await this.backfilling;
    if (!this.api || this.stopped) return;
    if (this.ledgerTimer) clearTimeout(this.ledgerTimer);
    this.ledgerTimer = null;
    this.ledgerSync ??= this.syncLedger().finally(() => {
      this.ledgerSync = null;
    });
    await this.ledgerSync;
    // A stale cache syncs its catalog a few seconds after start: the listings alerts match while away come with it.
    if (this.catalogSync || this.catalogDue()) await this.firstCatalogSync;
  }

  // ---- Wallet

  walletChanged(): void {
    if (this.balanceTimer) clearTimeout(this.balanceTimer);
    this.balanceTimer = setTimeout(() => void this.refreshBalance(), BALANCE_DEBOUNCE_MS);
    this.scheduleLedgerSync();
  }

  async refreshBalance(): Promise<Balance | null> {
    if (!this.api) return this.balance;
    try {
      this.balance = await this.client.getBalance({ signal: this.abort.signal });
      this.balanceAt = toUtcIso(Date.now());
      await this.store.setMeta('balance', this.balance);
      await this.store.setMeta(BALANCE_AT_META, this.balanceAt);
      this.events.push({ balance: this.balance, balanceAt: this.balanceAt });
    } catch (error) {
      this.fail('balance', error);
    }
    return this.balance;
  }

  private scheduleLedgerSync(): void {
    if (this.ledgerTimer) clearTimeout(this.ledgerTimer);
    this.ledgerTimer = setTimeout(() => {
      this.ledgerSync ??= this.syncLedger().finally(() => {
        this.ledgerSync = null;
      });
    }, LEDGER_DEBOUNCE_MS);
  }

  /** Fetches ledger entries created at or after the newest we hold (ids make it idempotent). */
  private async syncLedger(): Promise<void> {
    try {
      const since = await this.store.latestLedgerCreatedAt();
      let page = 1;
      let inserted = 0;
      for (;;) {
        const answer = await this.client.balanceHistory({ limit: HISTORY_MAX_LIMIT, page, ...(since ? { from: since } : {}) }, { signal: this.abort.signal });
        inserted += (await this.store.insertLedger(answer.transactions)).inserted.length;
        if (answer.transactions.length < HISTORY_MAX_LIMIT || page * HISTORY_MAX_LIMIT >= answer.total) break;
        page++;
        this.setProgress('ledger-sync', { done: page, total: Math.ceil(answer.total / HISTORY_MAX_LIMIT), phase: 'ledger' });
      }
      if (inserted > 0) this.events.push({ ledgerChanged: true });
    } catch (error) {
      this.fail('ledger sync', error);
    } finally {
      this.clearProgress('ledger-sync');
    }
  }

  // ---- Catalog

  private catalogDue(): boolean {
    const built = this.catalog.lastUpdate ? Date.parse(this.catalog.lastUpdate) : 0;
    return this.catalogFromElsewhere || Date.now() >= built + CATALOG_REBUILD_INTERVAL_MS + FRESHNESS_GRACE_MS;
  }

  /** The server rebuilds its list about every 5 minutes; fetch once ours is older than that. */
  private async syncCatalogIfStale(): Promise<void> {
    if (this.catalogSync) return;
    if (!this.catalogDue()) return;
    // A cache that holds a catalog is shown first: its refresh waits until the start-up's first screens are up
    // (on 2 cores a 500k-item sync would otherwise slow the first paint by half a second). An empty cache syncs at once.
    const wait = this.catalog.totalItems > 0 ? this.startedAt + START_SYNC_DELAY_MS - Date.now() : 0;
    if (wait > 0) {
      if (!this.startSyncScheduled) {
        this.startSyncScheduled = true;
        this.later(wait, () => void this.syncCatalogIfStale());
      }
      return;
    }
    await this.syncCatalog('stale');
  }

  /**
   * The user's Refresh: a sync when the marketplace can answer one; otherwise not started, and why (no key, offline,
   * maintenance, a refused key), so nothing says "started" for a request that cannot leave.
   */
  refreshCatalog(): { started: boolean; reason: string } {
    if (!this.api) return { started: false, reason: noKeyDetail(this.merchantId) };
    switch (this.connection.state) {
      case 'offline':
        return { started: false, reason: 'The marketplace cannot be reached; the catalog refreshes by itself when the connection is back.' };
      case 'maintenance':
        return { started: false, reason: 'The marketplace is under maintenance; the catalog refreshes by itself when it ends.' };
      case 'unauthorized':
        return { started: false, reason: 'The marketplace refused the API key or merchant ID: check them in Settings.' };
      default:
        break;
    }
    const running = this.catalogSync !== null;
    void this.syncCatalog('manual');
    return { started: true, reason: running ? 'A sync is under way; another follows it.' : 'Catalog sync requested' };
  }

  /**
   * Single-flight: a request while a sync runs becomes one more sync after it,
   * however many arrive (a storm of refresh requests costs two calls at most).
   */
  syncCatalog(reason: string): Promise<void> {
    if (!this.api) return Promise.resolve();
    if (this.catalogSync) {
      this.catalogAgain = true;
      return this.catalogSync;
    }
    this.catalogSync = (async () => {
      try {
        do {
          this.catalogAgain = false;
          const wait = this.lastCatalogSyncAt + MIN_CATALOG_SYNC_GAP_MS - Date.now();
          if (wait > 0) await this.sleep(wait);
          if (this.stopped) return;
          await this.runCatalogSync(reason);
        } while (this.catalogAgain && !this.stopped);
      } finally {
        this.catalogSync = null;
      }
    })();
    return this.catalogSync;
  }

  private async runCatalogSync(reason: string): Promise<void> {
    this.setProgress('catalog-sync', { done: 0, total: null, phase: 'waiting for the rate limit' });
    try {
      const request = await this.client.prepareCatalogRequest(this.abort.signal);
      this.lastCatalogSyncAt = Date.now();
      this.setProgress('catalog-sync', { done: 0, total: null, phase: 'receiving' });
      const result = await this.store.syncCatalog({ ...request, signal: this.abort.signal }, (progress) => {
        this.setProgress('catalog-sync', {
          done: progress.phase === 'receiving' ? progress.received : progress.applied,
          total: progress.total,
          phase: progress.phase,
        });
      });
      // Settles the download's rate slot (timed from this answer); a refusal also sets the backoff.
      this.client.reportCatalogResponse(result.ok ? 200 : result.status, result.ok ? {} : result.headers);
      if (!result.ok) throw this.client.catalogError(result.status, result.headers, result.bodyText);
      this.catalog = await this.store.catalogInfo();
      await this.store.setMeta(CATALOG_BASE_URL_META, this.credentials.baseUrl);
      this.catalogFromElsewhere = false;
      this.hooks.log(
        `catalog sync (${reason}): +${result.added} ~${result.updated} -${result.removed} = ${result.total} items in ${result.ms} ms`,
      );
      if (result.skipped > 0) {
        const items = result.skipped === 1 ? '1 item' : `${result.skipped} items`;
        this.hooks.log(`catalog sync (${reason}): ${items} left out, not in the API's item shape (the first: ${result.firstSkipReason ?? 'no reason given'})`);
      }
      this.events.push({ catalog: this.catalog, items: { upserted: [], removed: [], prices: [], invalidated: true } });
      this.hooks.onCatalogSynced();
    } catch (error) {
      this.fail(`catalog sync (${reason})`, error);
    } finally {
      this.clearProgress('catalog-sync');
      this.firstCatalogSyncEnded();
    }
  }

  // ---- Helpers

  private setProgress(kind: ProgressKind, update: Omit<ProgressStatus, 'kind' | 'startedAt'>): void {
    const startedAt = this.progress.get(kind)?.startedAt ?? toUtcIso(Date.now());
    this.progress.set(kind, { kind, startedAt, ...update });
    this.events.push({ progress: this.progressList() });
  }

  private clearProgress(kind: ProgressKind): void {
    if (this.progress.delete(kind)) this.events.push({ progress: this.progressList() });
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) run();
    }, ms);
    this.timers.add(timer);
  }

  private every(ms: number, run: () => void): void {
    this.later(ms, () => {
      run();
      this.every(ms, run);
    });
  }

  /** Resolves after `ms`, or at once when the session stops. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.timers.delete(timer);
        this.abort.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.timers.add(timer);
      this.abort.signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * One reconcile (trades, balance, ledger, catalog freshness, an unfinished back-fill) after a backoff, so a
   * cache left stale by a failed call catches up by itself once the API answers again, even when the feed
   * stays quiet. Single timer; while polling, the poll already does it.
   */
  private scheduleRecovery(): void {
    if (this.stopped || this.recoveryTimer || this.pollTimer) return;
    this.recoveryAttempt++;
    const base = Math.min(RECOVERY_MAX_MS, RECOVERY_FIRST_MS * 2 ** (this.recoveryAttempt - 1));
    const backoffUntil = this.limiter.status().backoffUntil;
    const delay = Math.max(base, backoffUntil ? Date.parse(backoffUntil) - Date.now() : 0);
    this.recoveryTimer = setTimeout(() => {
      this.recoveryTimer = null;
      void this.reconcile('recovery');
      void this.backfillHistory();
    }, delay);
  }

  /** Failures become state and one log line, never an exception storm. */
  private fail(what: string, error: unknown): void {
    if (this.stopped) return;
    if (error instanceof ApiRequestError) {
      this.hooks.log(`${what}: ${error.kind} ${error.status ?? ''} ${error.code}: ${error.message}`);
      this.lastFailureAt = Date.now();
      if (error.code !== 'unauthorized' && error.kind !== 'aborted') this.scheduleRecovery();
      const problem =
        error.kind === 'timeout'
          ? `The marketplace is not answering in time (${error.endpoint} timed out); retrying automatically`
          : error.code === 'invalid_response'
            ? `The marketplace answered something unexpected (${error.endpoint}: not understood); retrying automatically`
            : null;
      if (problem !== null && problem !== this.restProblem && this.connection.state !== 'maintenance' && this.connection.state !== 'unauthorized') {
        this.restProblem = problem;
        this.connection = { ...this.connection, detail: problem };
        this.events.push({ connection: this.connection });
      }
      if (error.code === 'maintenance' && this.connection.state !== 'maintenance') {
        this.connection = { ...this.connection, state: 'maintenance', detail: 'Marketplace under maintenance; retrying automatically', since: toUtcIso(Date.now()) };
        this.events.push({ connection: this.connection });
      }
      if (error.code === 'unauthorized') {
        // The API itself refused the key: polling cannot help until the credentials change.
        this.restUnauthorized = true;
        if (this.pollTimer) clearInterval(this.pollTimer);
        this.pollTimer = null;
        this.connection = { ...this.connection, state: 'unauthorized', detail: 'API key or merchant id refused; check Settings', since: toUtcIso(Date.now()) };
        this.events.push({ connection: this.connection });
      }
      return;
    }
    this.hooks.log(`${what}: ${(error as Error).stack ?? String(error)}`);
  }
}
