import type { AwaySummary, AccountInput, ConnectionStatus, ConnectionTestResult } from '../../../shared/ipc';
import type { RateBucket } from '../../../shared/api';
import { DEFAULT_BULK_SHARE_PERCENT } from '../../../shared/requestBudget';
import { toUtcIso } from '../../../shared/time';
import type { AlertService } from '../alerts/alertService';
import { ClientRateLimiter } from '../api';
import { testConnection } from '../api/connectionTest';
import type { EventBatcher } from '../events/batcher';
import { EngineError } from '../ipc/engineService';
import { AwayTracker, awaySummaryNotification } from '../notify/awaySummary';
import type { NotificationCentre } from '../notify/notificationCentre';
import { newestDeliveredAt, WebhookWatch } from '../operations/webhookWatch';
import type { SecretStore } from '../secrets';
import { type LocalStore, StoreError } from '../store';
import { FAILURE_STATUSES } from '../store/schema';
import { accountStoreFile, openAccountStore } from './accountFiles';
import { AccountKeys } from './accountKeys';
import type { AppConfigFile } from './appConfig';
import type { AccountCredentials, SessionAccount } from './session';
import { AccountSession, noKeyDetail } from './session';

export interface DemoAccount {
  credentials: AccountCredentials;
  close(): Promise<void>;
}

/**
 * An account given on the command line. With `useStoredKey`, the key the secret store holds for it comes first
 * (waited for while the keychain is slow) and `apiKey` (the environment's) serves when the store holds none.
 */
export type CommandLineAccount = SessionAccount & { useStoredKey?: boolean };

export interface AccountsOptions {
  dataDir: string;
  secrets: SecretStore;
  /** Starts the embedded demo sandbox. */
  startDemo: () => Promise<DemoAccount>;
  /** An account given on the command line, overriding the saved one (without a key: its cache only). */
  override: CommandLineAccount | undefined;
  config: AppConfigFile;
  events: EventBatcher;
  alerts: AlertService;
  centre: NotificationCentre;
  log: (line: string) => void;
  /** Benchmarks only (EngineOptions.testRateLimitScale): the client's limits, the spec's where absent. */
  rateLimits?: Record<RateBucket, number>;
}

/**
 * The open account and the switches between accounts: the command line's, the saved one (its key from the secret
 * store), the demo sandbox. One account session at a time; each switch runs after the previous one settled.
 */
export class Accounts {
  /** The accounts' keys in the secret store, a slow keychain waited for. */
  readonly keys: AccountKeys;
  #session: AccountSession | null = null;
  /** "While you were away" of the first live account opened since launch; null until its first sync is done. */
  #awaySummary: AwaySummary | null = null;
  private awayTracked = false;
  /** The alerts' evaluation of the last synced catalog. */
  private catalogEvaluation: Promise<void> = Promise.resolve();
  /** The open account's first-failed-delivery notice (Operations → Webhook health). */
  private webhookWatch: WebhookWatch | null = null;
  #demo: DemoAccount | null = null;
  private switching: Promise<void> = Promise.resolve();
  /** start() until it settled (it may read the keychain or start the demo before it switches). */
  private starting: Promise<void> = Promise.resolve();
  /** Why the account's local database could not be opened; shown as the connection until another account opens. */
  #storeProblem: ConnectionStatus | null = null;
  /**
   * One rate budget per merchant for the life of the engine: sessions (each account switch makes one) and
   * "Test connection" share it, so neither a switch nor a test starts a fresh budget the server does not know about.
   */
  private readonly limiters = new Map<string, ClientRateLimiter>();
  private readonly config: AppConfigFile;
  private readonly events: EventBatcher;
  private readonly alerts: AlertService;
  private readonly log: (line: string) => void;

  constructor(private readonly options: AccountsOptions) {
    this.config = options.config;
    this.events = options.events;
    this.alerts = options.alerts;
    this.log = options.log;
    this.keys = new AccountKeys(options.secrets, this.log, (connection) => this.events.push({ connection }));
  }

  /** The open account's session, if any. */
  get session(): AccountSession | null {
    return this.#session;
  }

  /** The demo sandbox, while it serves. */
  get demo(): DemoAccount | null {
    return this.#demo;
  }

  get storeProblem(): ConnectionStatus | null {
    return this.#storeProblem;
  }

  get awaySummary(): AwaySummary | null {
    return this.#awaySummary;
  }

  /** Resolves once the account being opened (start-up, a switch) is open, or failed to. */
  async opened(): Promise<void> {
    await this.starting.catch(() => {});
    await this.switching.catch(() => {});
  }

  /** A bulk share for every account's rate budget (settings.bulkSharePercent). */
  setBulkShare(share: number): void {
    for (const limiter of this.limiters.values()) limiter.setBulkShare(share);
  }

  /** Closes the open account's session, once any switch under way settled. */
  async close(): Promise<void> {
    await this.switching.catch(() => {});
    await this.closeSession();
  }

  async closeDemo(): Promise<void> {
    await this.#demo?.close();
    this.#demo = null;
  }

  /**
   * Picks the account: the command line's; the demo sandbox when that was the last choice
   * (kept in settings.demoSandbox, even with a saved account); the saved one with its key;
   * else the demo sandbox.
   */
  start(): Promise<void> {
    // The host may show the app while the keychain answers and the store opens: trades changed from now are news.
    this.starting = this.startAccount(Date.now());
    return this.starting;
  }

  private async startAccount(requestedAt: number): Promise<void> {
    const { account, settings } = this.config.get();
    const { override } = this.options;
    if (override) {
      const { useStoredKey, ...commandLine } = override;
      return useStoredKey
        ? this.openWithStoredKey(commandLine, requestedAt)
        : this.switchTo(commandLine, false, requestedAt);
    }
    if (account && !settings.demoSandbox) return this.openWithStoredKey({ ...account, apiKey: null }, requestedAt);
    await this.useDemo(requestedAt);
  }

  /**
   * Opens `account` with the key the secret store holds for it, else with `account.apiKey` (the environment's, for an
   * account given on the command line). A keychain slow to answer is not "no key": without another key the cache
   * opens meanwhile, waiting (neither read-only nor asking for the key), and the account goes live when the keychain
   * gives its key; read-only only if it answers that it holds none.
   */
  private async openWithStoredKey(account: SessionAccount, requestedAt: number): Promise<void> {
    const read = await this.keys.read(account, (key) =>
      this.openWithKey(account, key, Date.now()).catch((failure: unknown) =>
        this.log(`opening ${account.merchantId}: ${String(failure)}`),
      ),
    );
    if (read.kind === 'waiting') return this.switchTo(account, false, requestedAt);
    return this.openWithKey(account, read.key, requestedAt);
  }

  /** Opens `account` with `stored` (the store's key), else its own; without either, its cache only, read-only. */
  private openWithKey(account: SessionAccount, stored: string | null, requestedAt: number): Promise<void> {
    const apiKey = stored ?? account.apiKey;
    if (!apiKey)
      this.log(
        `No API key for merchant ${account.merchantId}: its cached data opens read-only; enter the key in Settings to go live`,
      );
    return this.switchTo({ ...account, apiKey }, false, requestedAt);
  }

  /** While the open account's key is awaited from a slow keychain, the connection to show. */
  keyWaitOf(session: AccountSession | null): ConnectionStatus | null {
    return session && !session.live ? this.keys.waitingStatus(session.merchantId) : null;
  }

  /** The account's rate budget, the same for the life of the engine. */
  limiterFor(merchantId: string): ClientRateLimiter {
    let limiter = this.limiters.get(merchantId);
    if (!limiter) {
      const percent = this.config.get().settings.bulkSharePercent ?? DEFAULT_BULK_SHARE_PERCENT;
      limiter = new ClientRateLimiter({
        bulkShare: percent / 100,
        ...(this.options.rateLimits ? { limits: this.options.rateLimits } : {}),
      });
      this.limiters.set(merchantId, limiter);
    }
    return limiter;
  }

  credentialsOf(input: AccountInput): Promise<AccountCredentials> {
    return this.keys.credentialsFor(input, this.config.get().account ?? null);
  }

  testConnection(credentials: AccountCredentials): Promise<ConnectionTestResult> {
    return testConnection(credentials, this.limiterFor(credentials.merchantId));
  }

  async configure(credentials: AccountCredentials): Promise<ConnectionTestResult> {
    const result = await this.testConnection(credentials);
    if (!result.ok) return result;
    // The key entered wins over whatever a slow keychain answers later.
    const unconfirmed = await this.keys.store(credentials.merchantId, credentials.apiKey);
    this.config.update((config) => ({
      ...config,
      account: { baseUrl: credentials.baseUrl, wsUrl: credentials.wsUrl, merchantId: credentials.merchantId },
      settings: { ...config.settings, demoSandbox: false },
    }));
    await this.switchTo(credentials, false);
    await this.closeDemo();
    return unconfirmed ? { ...result, message: `${result.message}. ${unconfirmed}` } : result;
  }

  async useDemo(requestedAt = Date.now()): Promise<void> {
    this.keys.endWait();
    this.#demo ??= await this.options.startDemo();
    const before = this.config.get().settings.demoSandbox;
    this.config.update((config) => ({ ...config, settings: { ...config.settings, demoSandbox: true } }));
    await this.switchTo(this.#demo.credentials, true, requestedAt);
    if (!before) this.events.push({ settings: this.config.get().settings });
  }

  /** Back from the demo sandbox to the saved account; the choice persists (settings.demoSandbox). */
  async useSaved(): Promise<ConnectionTestResult> {
    const { account } = this.config.get();
    if (!account)
      throw new EngineError('invalid_input', 'No account is saved yet: enter it under Connection and press Save');
    this.config.update((config) => ({ ...config, settings: { ...config.settings, demoSandbox: false } }));
    // Without its key the account opens from its cache (read-only) until the key is entered.
    await this.openWithStoredKey({ ...account, apiKey: null }, Date.now());
    await this.closeDemo();
    this.events.push({ settings: this.config.get().settings });
    return this.describeConnection(false);
  }

  describeConnection(demo: boolean): ConnectionTestResult {
    const session = this.#session;
    return {
      ok: session !== null,
      message: session ? `Using the ${demo ? 'demo sandbox' : 'account'} ${session.merchantId}` : 'No account',
      merchantId: session?.merchantId ?? null,
      balance: session?.balance ?? null,
    };
  }

  /** `requestedAt`: when the user (or the launch) asked for this account; its trades changed since are news. */
  private switchTo(credentials: SessionAccount, demo: boolean, requestedAt = Date.now()): Promise<void> {
    // A failed switch must not poison the next one (or close()): each runs after the previous settled.
    const run = this.switching
      .catch(() => {})
      .then(async () => {
        await this.closeSession();
        this.#storeProblem = null;
        const kind = demo ? 'demo' : 'account';
        const file = accountStoreFile(this.options.dataDir, credentials.merchantId, kind);
        let store: LocalStore;
        try {
          store = await openAccountStore(this.options.dataDir, credentials.merchantId, kind, file, this.log);
        } catch (error) {
          // Damaged, from a newer app, or read-only: say which file and what to do, keep running, leave the file as it is.
          const detail =
            error instanceof StoreError && error.file
              ? error.message
              : `Cannot open the local database ${file}: ${(error as Error).message}`;
          this.log(`local database: ${detail}`);
          this.#storeProblem = { state: 'offline', detail, nextAttemptAt: null, since: toUtcIso(Date.now()) };
          this.events.push({ connection: this.#storeProblem, accountChanged: true });
          return;
        }
        // Launch: what the cache holds before the first sync, for "while you were away" (the first live account only).
        this.#awaySummary = null;
        const away =
          this.awayTracked || credentials.apiKey === null ? null : await AwayTracker.begin(store).catch(() => null);
        if (credentials.apiKey !== null) this.awayTracked = true;
        const watch = new WebhookWatch(
          store,
          (notification) => this.events.push({ notifications: [notification] }),
          () => (session.live ? newestDeliveredAt(session.client) : Promise.resolve(null)),
          requestedAt,
          Date.now,
          this.log,
        );
        await watch.load().catch((error: unknown) => this.log(`webhook health: ${String(error)}`));
        // Settled: the start-up's syncs done, and the alerts' look at the catalog they brought.
        const awayHooks = away?.sessionHooks(
          store,
          () => session.startupSettled().then(() => this.catalogEvaluation),
          (summary) => this.reportAway(session, summary),
          this.log,
        );
        const session: AccountSession = new AccountSession(
          credentials,
          store,
          this.events,
          {
            ...awayHooks,
            onTradesStored: (changed, newStatuses, newlyFailed) => {
              awayHooks?.onTradesStored(changed, newStatuses);
              watch.onTradesStored(changed, newlyFailed);
              this.alerts.tradesStored(changed);
              if (changed.some((t) => (FAILURE_STATUSES as readonly string[]).includes(t.status)))
                this.events.push({ failuresChanged: true });
            },
            onFrameItems: (items) =>
              void this.alerts.evaluateFrame(items).catch((error: unknown) => this.log(`alerts: ${String(error)}`)),
            onItemsWritten: (itemIds) =>
              void this.alerts.evaluateWritten(itemIds).catch((error: unknown) => this.log(`alerts: ${String(error)}`)),
            onCatalogSynced: () => {
              this.catalogEvaluation = this.alerts
                .evaluateCatalog()
                .catch((error: unknown) => this.log(`alerts: ${String(error)}`));
            },
            onReconciled: () => void this.alerts.resolveUnknown(),
            notifyStatuses: () => this.config.get().settings.notifyStatuses,
            log: this.log,
          },
          this.limiterFor(credentials.merchantId),
          requestedAt,
        );
        this.#session = session;
        this.webhookWatch = watch;
        this.alerts.accountChanged();
        await this.alerts.reload();
        await session.start();
        // Only while connected: an ask that fails offline would count as a failure of the connection's recovery.
        if (session.live)
          watch.start(async () =>
            session.connection.state === 'connected' ? session.refreshWebhookFailed() : undefined,
          );
        this.events.push({
          connection: this.keyWaitOf(session) ?? session.connection,
          items: { upserted: [], removed: [], prices: [], invalidated: true },
          ledgerChanged: true,
          accountChanged: true,
        });
      });
    this.switching = run;
    return run;
  }

  private reportAway(session: AccountSession, summary: AwaySummary | null): void {
    this.log(`while away: ${summary ? awaySummaryNotification(summary).body : 'nothing changed'}`);
    if (!summary || this.#session !== session) return;
    this.#awaySummary = summary;
    this.events.push({ awaySummary: summary, notifications: [awaySummaryNotification(summary)] });
  }

  private async closeSession(): Promise<void> {
    const session = this.#session;
    this.#session = null;
    this.webhookWatch?.stop();
    this.webhookWatch = null;
    if (!session) return;
    await session.stop();
    await this.options.centre.whenWritten();
    await session.store.close();
  }

  /** The session, with its key: what goes over the network (buying, a catalog refresh) needs it. */
  requireLiveSession(): AccountSession {
    const session = this.requireSession();
    if (!session.live)
      throw new EngineError('unavailable', this.keyWaitOf(session)?.detail ?? noKeyDetail(session.merchantId));
    return session;
  }

  requireSession(): AccountSession {
    if (!this.#session) {
      throw new EngineError(
        'unavailable',
        this.#storeProblem?.detail ?? 'No account connected: configure one in Settings or use the demo sandbox',
      );
    }
    return this.#session;
  }
}
