import type { Balance, FeedFrame, Trade } from '../../../shared/api';
import type { CatalogInfo, ConnectionStatus, ProgressStatus } from '../../../shared/ipc';
import { ApiRequestError, ClientRateLimiter, type MerchantApiClient } from '../api';
import type { EventBatcher } from '../events/batcher';
import type { FeedConnection } from '../feed';
import { EngineError } from '../ipc/engineService';
import type { LocalStore } from '../store';
import type { TradeSource } from '../store/types';
import { type Clock, systemClock, Throttler, Timers } from '../async';
import { CatalogScheduler } from './session/catalogScheduler';
import { type CatchUpReason, ConnectionKeeper } from './session/connectionKeeper';
import { catalogRefreshRefusal, noKeyDetail } from './session/connectionState';
import { HistoryBackfill } from './session/historyBackfill';
import { LiveItems } from './session/liveItems';
import {
  type LiveApi,
  openLiveApi,
  ProgressBoard,
  type SessionAccount,
  type SessionContext,
  type SessionHooks,
} from './session/sessionContext';
import { TradeSync } from './session/tradeSync';
import { WalletSync } from './session/walletSync';

export { POLL_INTERVAL_MS } from './session/connectionKeeper';
export { noKeyDetail } from './session/connectionState';
export type { AccountCredentials, SessionAccount, SessionHooks } from './session/sessionContext';

/**
 * One account's live connection, as a composer of single-job parts that share one context and never call each
 * other: live items, trade sync, the history back-fill, wallet sync and the catalog's schedule. It decides the
 * connection's state (a pure reducer, connectionState.ts) and sequences the work: API → core → SQLite → coalesced
 * events; nothing here talks to a UI directly.
 */
export class AccountSession {
  /** The account's rate budget: the engine's one per merchant, shared with "Test connection" and later sessions. */
  readonly limiter: ClientRateLimiter;
  readonly reportFailure = (what: string, error: unknown): void => this.fail(what, error);
  private readonly api: LiveApi | null;
  private readonly ctx: SessionContext;
  private readonly abort = new AbortController();
  private readonly liveItems: LiveItems;
  private readonly trades: TradeSync;
  private readonly history: HistoryBackfill;
  private readonly wallet: WalletSync;
  private readonly catalogs: CatalogScheduler;
  private readonly reconciles = new Throttler();
  private readonly keeper: ConnectionKeeper;
  private stopped = false;
  private firstSyncDone = false;
  private readonly unsubscribers: (() => void)[] = [];

  constructor(
    readonly credentials: SessionAccount,
    readonly store: LocalStore,
    private readonly events: EventBatcher,
    private readonly hooks: SessionHooks,
    limiter: ClientRateLimiter = new ClientRateLimiter(),
    /** When the app began opening the account (not start(): the app shows first): a trade changed since is news. */
    openedAt: number = Date.now(),
    clock: Clock = systemClock,
  ) {
    this.limiter = limiter;
    this.api = openLiveApi(credentials, limiter);
    this.ctx = {
      account: credentials,
      store,
      events,
      limiter,
      api: this.api,
      hooks,
      timers: new Timers(clock),
      progress: new ProgressBoard(events, clock),
      signal: this.abort.signal,
      openedAt,
      isStopped: () => this.stopped,
      report: this.reportFailure,
    };
    this.catalogs = new CatalogScheduler(this.ctx, () => hooks.onCatalogSynced());
    this.liveItems = new LiveItems(this.ctx, (totals) => this.catalogs.applyTotals(totals));
    this.wallet = new WalletSync(this.ctx, () => this.history.windowStreamed());
    this.trades = new TradeSync(this.ctx, () => this.wallet.tradeMoved());
    this.history = new HistoryBackfill(this.ctx, this.trades);
    this.keeper = new ConnectionKeeper(this.ctx, (reason) => this.catchUp(reason));
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

  get merchantId(): string {
    return this.credentials.merchantId;
  }

  get connection(): ConnectionStatus {
    return this.keeper.status;
  }

  get balance(): Balance | null {
    return this.wallet.balance;
  }

  get balanceAt(): string | null {
    return this.wallet.balanceAt;
  }

  get activeTrades(): number {
    return this.trades.activeTrades;
  }

  get catalog(): CatalogInfo {
    return this.catalogs.catalog;
  }

  progressList(): ProgressStatus[] {
    return this.ctx.progress.list();
  }

  /** Cached data is readable before anything goes over the network: offline browsing. */
  async start(): Promise<void> {
    await this.catalogs.load();
    await Promise.all([this.trades.load(), this.history.load()]);
    await this.wallet.load();
    this.events.push({
      catalog: this.catalog,
      activeTrades: this.activeTrades,
      ...(this.balance ? { balance: this.balance, balanceAt: this.balanceAt } : {}),
    });
    const api = this.api;
    if (!api) return; // no key: the cache only, and nothing over the network
    this.unsubscribers.push(
      this.limiter.onChange(() => this.events.push({ rateLimit: this.limiter.status() })),
      api.feed.onState((status) => this.onFeedState(status)),
      api.feed.onConnected(() => this.catchUp('feed connected')),
      api.feed.onFrame(
        (frame) => void this.onFrame(frame).catch((error: unknown) => this.fail('applying a feed frame', error)),
      ),
      api.feed.onProblem((problem) => this.hooks.log(`feed: ${problem.kind}: ${problem.message}`)),
    );
    api.feed.start();
    this.catalogs.startSchedule();
    this.wallet.startIdleReads(() => this.connection.state === 'connected');
    void this.history.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.liveItems.stop();
    this.abort.abort();
    this.ctx.timers.dispose();
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    await this.api?.feed.stop();
    await Promise.allSettled([this.catalogs.stop(), this.wallet.ledgerSettled()]);
  }

  // ---- What the engine asks of the account

  syncCatalog(reason: string): Promise<void> {
    return this.catalogs.sync(reason);
  }

  /** The user's Refresh: a sync when the marketplace can answer one; otherwise not started, and why. */
  refreshCatalog(): { started: boolean; reason: string } {
    const refusal = this.api ? catalogRefreshRefusal(this.connection.state) : noKeyDetail(this.merchantId);
    if (refusal !== null) return { started: false, reason: refusal };
    const running = this.catalogs.busy;
    void this.catalogs.sync('manual');
    return { started: true, reason: running ? 'A sync is under way; another follows it.' : 'Catalog sync requested' };
  }

  upsertTrades(trades: Trade[], source: TradeSource): Promise<void> {
    return this.trades.upsertTrades(trades, source);
  }

  refreshWebhookFailed(): Promise<void> {
    return this.trades.refreshWebhookFailed();
  }

  /** Money moved; `spent`: the price of a buy just answered (in flight until the balance shows it). */
  walletChanged(spent?: number): void {
    this.wallet.changed(spent);
  }

  /** Cents of buys the balance held does not reflect yet. */
  get inFlight(): number {
    return this.wallet.inFlight;
  }

  refreshBalance(): Promise<Balance | null> {
    return this.wallet.refreshBalance();
  }

  /**
   * The start-up's catch-up settled: the back-fill under way finished (the away summary counts what it brings), the
   * ledger synced, a due catalog sync ended; the ledger and the catalog go at once, never waiting for the back-fill.
   */
  async startupSettled(): Promise<void> {
    if (!this.api || this.stopped) return this.history.settled();
    await Promise.all([this.history.settled(), this.wallet.syncLedger(), this.catalogs.settled()]);
  }

  /**
   * After every (re)connect, on start and while polling: nothing that happened while away is lost. Single flight:
   * polls and recoveries that come due while one runs join it; another reason (a reconnect) makes one more run after
   * it, so a long Retry-After never releases a pile of queued reconciles at once.
   */
  reconcile(reason: string): Promise<void> {
    if (!this.api) return Promise.resolve();
    const run = () => this.runReconcile(reason);
    return reason === 'polling' || reason === 'recovery' ? this.reconciles.join(run) : this.reconciles.queue(run);
  }

  /**
   * The user's "Retry now": a maintenance backoff ends, a feed waiting for its next attempt connects now, and
   * trades, balance and catalog freshness are reconciled at once. A rate-limit backoff still holds.
   */
  retryNow(): { started: boolean } {
    const api = this.api;
    if (this.stopped || !api) return { started: false };
    this.limiter.endMaintenanceBackoff();
    this.keeper.resetRecovery();
    const feedState = api.feed.state.state;
    if (feedState !== 'connected' && !(feedState === 'connecting' && api.feed.hasPendingAttempt))
      void api.feed.restart();
    void this.reconcile('retry now');
    void this.history.run();
    return { started: true };
  }

  // ---- Sequencing

  private liveApi(): LiveApi {
    if (!this.api) throw new EngineError('unavailable', noKeyDetail(this.merchantId));
    return this.api;
  }

  private async onFrame(frame: FeedFrame): Promise<void> {
    if (frame.type === 'connected') return;
    if (frame.type === 'trade_updated') {
      const { type: _type, ...update } = frame;
      return this.trades.onFrame(update);
    }
    return this.liveItems.onFrame(frame);
  }

  /** Reconcile = trades → wallet → catalog freshness → the connection is current. */
  private async runReconcile(reason: string): Promise<void> {
    if (this.stopped) return;
    const started = this.ctx.timers.clock.now();
    const generation = this.keeper.generation;
    try {
      await this.trades.reconcile(reason === 'polling' ? 'poll' : 'reconcile');
      if (reason === 'polling') void this.history.run(); // trades made and finished between two polls
      this.hooks.onReconciled?.();
      await this.wallet.refreshBalance();
      this.wallet.scheduleLedgerSync();
      if (reason !== 'polling') void this.catalogs.syncIfStale();
      if (this.keeper.failedSince(started)) return;
      if (!this.firstSyncDone) this.hooks.onFirstSync?.();
      this.firstSyncDone = true;
      // Trades and balance are current, the catalog's freshness checked (a stale one syncs, with its progress shown).
      this.keeper.restOk(generation);
    } catch (error) {
      this.fail(`reconcile (${reason})`, error);
    }
  }

  private onFeedState(status: ConnectionStatus): void {
    // The feed is back, so the server is: a maintenance Retry-After must not hold the catch-up.
    if (this.keeper.feedState(status)) this.limiter.endMaintenanceBackoff();
  }

  /** A connect or a recovery: reconciled, and the history back-filled from its mark (or an unfinished fill). */
  private catchUp(reason: CatchUpReason | 'feed connected'): void {
    void this.reconcile(reason);
    if (reason === 'recovery' || reason === 'feed connected') void this.history.run();
  }

  /** Failures become state and one log line, never an exception storm. */
  private fail(what: string, error: unknown): void {
    if (this.stopped) return;
    if (error instanceof ApiRequestError) {
      this.hooks.log(`${what}: ${error.kind} ${error.status ?? ''} ${error.code}: ${error.message}`);
      this.keeper.restFailed(error);
    } else {
      this.hooks.log(`${what}: ${(error as Error).stack ?? String(error)}`);
      this.keeper.localFailed();
    }
  }
}
