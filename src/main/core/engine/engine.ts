import { join } from 'node:path';
import { isValidTradeUrl } from '../../../shared/api';
import type {
  AccountInput,
  AppSnapshot,
  AwaySummary,
  ConnectionStatus,
  ConnectionTestResult,
  EngineEventBatch,
  IpcMethod,
  IpcParsedInput,
  IpcResult,
  Page,
  SavedSearch,
} from '../../../shared/ipc';
import { DEFAULT_BULK_SHARE_PERCENT } from '../../../shared/requestBudget';
import { keyStoreInfo } from '../../../shared/ipc/keyStore';
import { parseSearchLink } from '../../../shared/ipc/deepLinks';
import { notificationCategory } from '../../../shared/notifications';
import { toUtcIso } from '../../../shared/time';
import { ClientRateLimiter } from '../api';
import { AlertService } from '../alerts/alertService';
import { BuyService } from '../buy/buyService';
import { EventBatcher } from '../events/batcher';
import { AwayTracker, awaySummaryNotification } from '../notify/awaySummary';
import { NotificationForwarder } from '../notify/forwarder';
import { NotificationCentre } from '../notify/notificationCentre';
import { RunwayService } from '../operations/runwayService';
import { lookupOrders } from '../operations/lookup';
import { NextBuyService } from '../operations/nextBuy';
import { ExportJobs } from '../export/exportJobs';
import { boardCsv, emptyBoard, readFailuresBoard, readRefusals } from '../operations/failures';
import { readWebhookHealth } from '../operations/webhookHealth';
import { FAILURE_STATUSES } from '../store/schema';
import { readRecipient, readRecipients } from '../operations/recipients';
import { exportReversers, readExposure } from '../operations/exposure';
import { replayLog, WebhookReplayer } from '../operations/webhookReplay';
import { replayUrlProblem } from '../operations/replayUrl';
import { WebhookWatch } from '../operations/webhookWatch';
import type { EngineService, ExportFile } from '../ipc/engineService';
import { EngineError } from '../ipc/engineService';
import type { SecretStore } from '../secrets';
import { type LocalStore, StoreError } from '../store';
import { preparePrivateDataDir } from '../privateFiles';
import { accountStoreFile, openAccountStore } from './accountFiles';
import { AccountKeys } from './accountKeys';
import { testConnection } from '../api/connectionTest';
import { AppConfigFile } from './appConfig';
import { DataDirLock } from './dataDirLock';
import { redactSecret } from './redactSecret';
import { duplicateRecipientProblem } from './recipientRules';
import type { AccountCredentials, SessionAccount } from './session';
import { AccountSession, noKeyDetail } from './session';

export interface DemoAccount {
  credentials: AccountCredentials;
  close(): Promise<void>;
}

export interface EngineOptions {
  dataDir: string;
  secrets: SecretStore;
  log: (line: string) => void;
  /** Starts the embedded demo sandbox. */
  startDemo: () => Promise<DemoAccount>;
  /** An account given on the command line, overriding the saved one (without a key: its cache only). */
  override?: CommandLineAccount;
  /** Forward to non-public addresses too: a host's command line (`--forward-to-private-networks`) and tests only. */
  forwardToPrivateAddresses?: boolean;
  /**
   * Where CSV exports are written, with a way to show one in its folder (the desktop shell: the downloads folder).
   * Absent: `<dataDir>/exports`, private, and the page downloads the file from its host (`exportFile`).
   */
  exportTarget?: { dir: string; reveal: (file: string) => void };
}

/**
 * An account given on the command line. With `useStoredKey`, the key the secret store holds for it comes first
 * (waited for while the keychain is slow) and `apiKey` (the environment's) serves when the store holds none.
 */
export type CommandLineAccount = SessionAccount & { useStoredKey?: boolean };

/** The engine's method table: one handler per contract method, typed by that method's input and result. */
export type IpcHandlers = { [M in IpcMethod]: (input: IpcParsedInput<M>) => Promise<IpcResult<M>> };

/**
 * The engine: one account session at a time (its store, client and feed),
 * the buy and alert services, and the typed method table the UIs call.
 * It owns the API key; nothing it returns contains it.
 */
export class Engine implements EngineService {
  private readonly events = new EventBatcher();
  /** Keeps every notification in the account's store (the notification centre) and raises connection and auto-buy ones. */
  private readonly centre: NotificationCentre;
  private readonly config: AppConfigFile;
  private readonly buying: BuyService;
  /** "Buy the next one" after a trade sold elsewhere or a refused buy by name. */
  private readonly nextBuy: NextBuyService;
  private readonly alerts: AlertService;
  /** Chosen notifications to the merchant's chat webhook (settings.forwardUrl). */
  private readonly forwarder: NotificationForwarder;
  /** The balance runway and its alert (settings.runwayAlertHours). */
  private readonly runway: RunwayService;
  /** "While you were away" of the first live account opened since launch; null until its first sync is done. */
  private awaySummary: AwaySummary | null = null;
  private awayTracked = false;
  /** The alerts' evaluation of the last synced catalog. */
  private catalogEvaluation: Promise<void> = Promise.resolve();
  private session: AccountSession | null = null;
  /** The open account's first-failed-delivery notice (Operations → Webhook health). */
  private webhookWatch: WebhookWatch | null = null;
  private readonly replayer = new WebhookReplayer();
  private demo: DemoAccount | null = null;
  private switching: Promise<void> = Promise.resolve();
  /** start() until it settled (it may read the keychain or start the demo before it switches). */
  private starting: Promise<void> = Promise.resolve();
  /** Why the account's local database could not be opened; shown as the connection until another account opens. */
  private storeProblem: ConnectionStatus | null = null;
  /** Every engine log line, with any API key the engine holds cut out (errors may carry what they were given). */
  private readonly log: (line: string) => void;
  /**
   * One rate budget per merchant for the life of the engine: sessions (each account switch makes one) and
   * "Test connection" share it, so neither a switch nor a test starts a fresh budget the server does not know about.
   */
  private readonly limiters = new Map<string, ClientRateLimiter>();
  /** One engine per data directory, across processes (one feed, one writer, one budget per account). */
  private readonly lock: DataDirLock | null;
  /** The accounts' keys in the secret store, a slow keychain waited for. */
  private readonly keys: AccountKeys;
  /** Aborted at close: a replay under way stops. */
  private readonly closing = new AbortController();
  /** CSV exports written to files (the bridge carries their progress only). */
  private readonly exports: ExportJobs;

  constructor(private readonly options: EngineOptions) {
    this.log = (line) => options.log(this.scrub(line));
    this.keys = new AccountKeys(options.secrets, this.log, (connection) => this.events.push({ connection }));
    preparePrivateDataDir(options.dataDir, this.log);
    this.lock = DataDirLock.acquire(options.dataDir, this.log);
    this.config = new AppConfigFile(options.dataDir);
    if (this.config.problem) this.log(this.config.problem);
    const target = options.exportTarget;
    this.exports = new ExportJobs({
      dir: target?.dir ?? join(options.dataDir, 'exports'),
      privateDir: target === undefined,
      delivery: target === undefined ? 'download' : 'reveal',
      onChange: (exports) => this.events.push({ exports }),
      log: this.log,
    });
    this.centre = new NotificationCentre(this.events, () => this.session?.store ?? null, this.log);
    this.forwarder = new NotificationForwarder({
      settings: () => {
        const { forwardUrl, forwardCategories } = this.config.get().settings;
        return { url: forwardUrl, categories: forwardCategories };
      },
      categoryOf: notificationCategory,
      report: (notification) => this.events.push({ notifications: [notification] }),
      onStatus: (forwarding) => this.events.push({ forwarding }),
      scrub: (text) => this.scrub(text),
      allowPrivateAddresses: options.forwardToPrivateAddresses === true,
    });
    this.events.subscribe((batch) => {
      if (batch.notifications) this.forwarder.offer(batch.notifications);
    });
    this.runway = new RunwayService(
      this.events,
      () => this.session,
      () => this.config.get().settings.runwayAlertHours ?? null,
      this.log,
    );
    this.buying = new BuyService(
      () => this.requireLiveSession(),
      () => this.events.push({ failuresChanged: true }),
      () => this.events.push({ recipientsChanged: true }),
    );
    this.nextBuy = new NextBuyService(() => this.requireSession().store, this.buying);
    this.alerts = new AlertService(
      () => this.session,
      this.buying,
      this.events,
      () => this.config.get().settings,
      this.log,
    );
  }

  subscribe(listener: (batch: EngineEventBatch) => void): () => void {
    return this.events.subscribe(listener);
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
  private keyWaitOf(session: AccountSession | null): ConnectionStatus | null {
    return session && !session.live ? this.keys.waitingStatus(session.merchantId) : null;
  }

  async close(): Promise<void> {
    this.keys.close();
    this.closing.abort();
    await this.exports.close();
    await this.switching.catch(() => {});
    await this.closeSession();
    await this.forwarder.stop();
    this.runway.close();
    await this.demo?.close();
    this.demo = null;
    this.events.close();
    this.lock?.release();
  }

  describe(): string {
    const session = this.session;
    if (!session) return 'no account';
    return `${this.demo ? 'demo sandbox' : 'account'} ${session.merchantId} at ${session.credentials.baseUrl}`;
  }

  /** A finished export's file, for the host that serves it to the page (the web host's download route). */
  exportFile(id: string): ExportFile | null {
    return this.options.exportTarget ? null : this.exports.fileOf(id);
  }

  get accountSession(): AccountSession | null {
    return this.session;
  }

  /** Buys sent and not answered yet (a person's or auto-buy's): the desktop shell installs no update meanwhile. */
  buysInFlight(): number {
    return this.buying.inFlight;
  }

  async handle<M extends IpcMethod>(method: M, input: IpcParsedInput<M>): Promise<IpcResult<M>> {
    // A call made while an account opens (start-up, a switch) is answered once it is open.
    await this.starting.catch(() => {});
    await this.switching.catch(() => {});
    try {
      const handler: IpcHandlers[M] = this.handlers[method];
      return await handler(input);
    } catch (error) {
      // Hosts log unexpected errors: whatever such an error carries, the key does not leave with it.
      if (error instanceof EngineError || !(error instanceof Error)) throw error;
      const message = this.scrub(error.message);
      const stack = error.stack === undefined ? undefined : this.scrub(error.stack);
      if (message === error.message && stack === error.stack) throw error;
      const clean = new Error(message);
      clean.name = error.name;
      clean.stack = stack;
      throw clean;
    }
  }

  /** `text` without any API key this engine holds (the account's, the command line's, the demo's), nor a part of one (see redactSecret). */
  private scrub(text: string): string {
    const keys = [this.session?.credentials.apiKey, this.options.override?.apiKey, this.demo?.credentials.apiKey];
    let clean = text;
    for (const key of keys) if (key && key.length >= 8) clean = redactSecret(clean, key);
    return clean;
  }

  /** Every method of the contract and its handler, each typed by its own input and result. */
  private readonly handlers: IpcHandlers = {
    'app.snapshot': () => this.snapshot(),
    'catalog.query': async (query) => (this.session ? this.session.store.queryCatalog(query) : emptyPage(query)),
    'catalog.item': async ({ itemId }) => (this.session ? this.session.store.getItem(itemId) : null),
    'catalog.refresh': async () => {
      const session = this.requireSession();
      // Not started, and why: the key is awaited from a slow keychain (not "enter your API key").
      const keyWait = this.keyWaitOf(session);
      return keyWait ? { started: false, reason: keyWait.detail } : session.refreshCatalog();
    },
    'trades.query': async (query) => {
      // Failed webhooks are not announced by any frame: the filter also asks the server (throttled, in the background).
      if (query.webhookFailed === true) void this.session?.refreshWebhookFailed();
      return this.session ? this.session.store.queryTrades(query) : emptyPage(query);
    },
    'trades.get': async ({ tradeId }) => (this.session ? this.session.store.getTrade(tradeId) : null),
    'trades.exportCsv': async (query) => {
      const { store } = this.requireSession();
      return this.exports.start('trades', (after, limit) => store.exportTradesChunk(query, after, limit));
    },
    'wallet.ledger': async (query) => (this.session ? this.session.store.queryLedger(query) : emptyPage(query)),
    'wallet.balanceSeries': async (query) => (this.session ? this.session.store.balanceSeries(query) : []),
    'wallet.exportCsv': async (query) => {
      const { store } = this.requireSession();
      return this.exports.start('ledger', (after, limit) => store.exportLedgerChunk(query, after, limit));
    },
    'exports.cancel': async ({ id }) => this.exports.cancel(id),
    'exports.reveal': async ({ id }) => {
      const target = this.options.exportTarget;
      if (!target) throw new EngineError('unavailable', 'This host offers the file as a download');
      const file = this.exports.fileOf(id);
      if (!file) throw new EngineError('not_found', 'No finished export has this id');
      target.reveal(file.path);
      return { shown: true };
    },
    'operations.runway': () => this.runway.current(),
    'operations.orderChain': (from) => this.nextBuy.chain(from),
    'operations.buyNext': (input) => this.nextBuy.buyNext(input),
    'operations.lookup': ({ query }) => lookupOrders(this.requireSession().store, query),
    'buy.check': (input) => this.buying.check(input),
    'buy.byId': (input) => this.buying.buyById(input),
    'buy.byName': (input) => this.buying.buyByName(input),
    'recipients.list': async () => (this.session ? this.session.store.listRecipients() : []),
    'recipients.save': async (input) => {
      if (!isValidTradeUrl(input.tradeUrl)) {
        throw new EngineError(
          'invalid_input',
          'Not a trade offer URL: https://steamcommunity.com/tradeoffer/new/?partner=…&token=…',
        );
      }
      const store = this.requireSession().store;
      const duplicate = duplicateRecipientProblem(await store.listRecipients(), input);
      if (duplicate) throw new EngineError('invalid_input', duplicate);
      const saved = await store.saveRecipient(input);
      await this.alerts.reload(); // auto-buy keeps recipients' trade URLs in memory
      return saved;
    },
    'recipients.delete': async ({ id }) => {
      const deleted = await this.requireSession().store.deleteRecipient(id);
      await this.alerts.reload();
      return deleted;
    },
    'searches.list': async () => (this.session ? this.listSearches(this.session.store) : []),
    // Every page hears of the change itself, never the whole list again (it can be long).
    'searches.save': async (input) => {
      const saved = await this.requireSession().store.saveSearch(input).catch(searchRefusal);
      this.events.push({ savedSearches: { saved: [saved], deleted: [] } });
      return saved;
    },
    'searches.delete': async ({ id }) => {
      const result = await this.requireSession().store.deleteSearch(id);
      if (result.deleted) this.events.push({ savedSearches: { saved: [], deleted: [id] } });
      return result;
    },
    'links.search': async ({ query }) => parseSearchLink(query),
    'alerts.rules': async () => (this.session ? this.session.store.listAlertRules() : []),
    'alerts.saveRule': (input) => this.alerts.saveRule(input),
    'alerts.deleteRule': async ({ id }) => {
      const result = await this.requireSession().store.deleteAlertRule(id);
      await this.alerts.reload();
      return result;
    },
    'alerts.firings': async () => (this.session ? this.session.store.listFirings({ limit: 500 }) : []),
    'alerts.acknowledge': async ({ id }) => {
      const store = this.requireSession().store;
      const firing = await store.acknowledgeFiring(id);
      this.events.push({ unacknowledgedFirings: await store.unacknowledgedFiringCount() });
      return firing;
    },
    'alerts.rearm': ({ id, existingListings }) => this.alerts.rearm(id, existingListings),
    'alerts.preview': (input) => this.alerts.preview(input),
    'alerts.skips': () => this.alerts.skips(),
    'settings.update': async (patch) => {
      const replayUrlRefused =
        typeof patch.webhookReplayUrl === 'string' &&
        replayUrlProblem(patch.webhookReplayUrl, this.options.forwardToPrivateAddresses === true);
      if (replayUrlRefused) throw new EngineError('invalid_input', replayUrlRefused);
      const updated = this.config.update((config) => ({
        ...config,
        settings: { ...config.settings, ...stripUndefined(patch) },
      }));
      this.events.push({ settings: updated.settings });
      this.alerts.settingsChanged(); // stop-all, budget and floor hold the next match and the auto-buys waiting for a rate slot
      if (patch.forwardUrl !== undefined || patch.forwardCategories !== undefined) this.forwarder.settingsChanged();
      if (patch.runwayAlertHours !== undefined) this.runway.settingsChanged();
      if (patch.bulkSharePercent !== undefined) {
        for (const limiter of this.limiters.values()) limiter.setBulkShare(patch.bulkSharePercent / 100);
      }
      return updated.settings;
    },
    'account.test': async (input) => this.testConnection(await this.credentialsOf(input)),
    'account.configure': async (input) => this.configure(await this.credentialsOf(input)),
    'account.useDemo': async () => {
      await this.useDemo();
      return this.describeConnection(true);
    },
    'account.useSaved': () => this.useSaved(),
    // Updates belong to the desktop shell, which answers these itself; a host without one has none.
    'updates.status': async () => null,
    'updates.install': async () => {
      throw new EngineError('unavailable', 'Updates are installed by the desktop app; this host has none.');
    },
    // While the keychain is awaited there is no connection to retry: its answer opens one.
    'connection.retryNow': async () =>
      this.session && !this.keyWaitOf(this.session) ? this.session.retryNow() : { started: false },
    'operations.webhookHealth': async () => {
      const session = this.session;
      // No frame tells of a failed delivery: the view also asks the server (throttled, in the background, when live).
      if (session?.connection.state === 'connected') void session.refreshWebhookFailed();
      const { webhookReplayEnabled, webhookReplayUrl } = this.config.get().settings;
      const replay = {
        enabled: webhookReplayEnabled === true,
        url: webhookReplayUrl ?? null,
        log: session ? await replayLog(session.store) : [],
      };
      if (!session) {
        const none = { failed: [], byStatus: [], byHour: [], byDay: [], history: { from: null, to: null } };
        return {
          ...none,
          failedTotal: 0,
          lastDeliveredCreatedAt: null,
          paused: null,
          replay,
          computedAt: toUtcIso(Date.now()),
        };
      }
      return readWebhookHealth(session.store, Date.now(), replay);
    },
    'operations.failures': async (input) =>
      this.session ? readFailuresBoard(this.session.store, input, Date.now()) : emptyBoard(input, Date.now()),
    'operations.failuresCsv': async (input) =>
      boardCsv(await readFailuresBoard(this.requireSession().store, input, Date.now())),
    'operations.refusals': async (input) => (this.session ? readRefusals(this.session.store, input) : []),
    'operations.recipients': async (input) => {
      const session = this.session;
      if (!session) return { rows: [], total: 0, offset: input.offset, computedAt: toUtcIso(Date.now()) };
      return readRecipients(session.store, input, Date.now());
    },
    'operations.reversals': async (input) => {
      const session = this.session;
      if (!session)
        return {
          exposure: { count: 0, value: 0 },
          undated: { count: 0, value: 0 },
          schedule: [],
          reversedTotal: 0,
          reversedOffset: input.offset,
          reversed: [],
          reversers: [],
          reversersTotal: 0,
          computedAt: toUtcIso(Date.now()),
        };
      return readExposure(session.store, Date.now(), { reversedOffset: input.offset });
    },
    'operations.reversersCsv': () => exportReversers(this.requireSession().store, Date.now()),
    'operations.recipient': (input) => readRecipient(this.requireSession().store, input.partner, Date.now()),
    'operations.replayWebhooks': (input) => {
      const session = this.requireSession();
      const { webhookReplayEnabled, webhookReplayUrl } = this.config.get().settings;
      return this.replayer.replay(
        {
          store: session.store,
          apiKey: session.credentials.apiKey,
          enabled: webhookReplayEnabled === true,
          url: webhookReplayUrl ?? null,
          allowPrivateAddresses: this.options.forwardToPrivateAddresses === true,
          now: Date.now,
          signal: this.closing.signal,
        },
        input,
      );
    },
    'notifications.list': (query) => this.centre.list(query),
    'notifications.markRead': (input) => this.centre.markRead(input),
    // The desktop shell answers this one itself (src/main/ipc.ts); a browser shows its own test notification.
    'notifications.test': async () => {
      throw new EngineError('unavailable', 'Desktop notifications are shown by the desktop app');
    },
  };

  /** The account's saved searches; one whose stored query no longer passes the schema is left out and logged. */
  private async listSearches(store: LocalStore): Promise<SavedSearch[]> {
    const { searches, skipped } = await store.listSearches();
    for (const bad of skipped)
      this.log(`saved search ${bad.id} ("${bad.name}") left out: its stored query is not valid (${bad.problem})`);
    return searches;
  }

  async snapshot(): Promise<AppSnapshot> {
    const session = this.session;
    const { account, settings } = this.config.get();
    const configuredKey = account ? await this.keys.isConfigured(account.merchantId) : false;
    const keyWait = this.keyWaitOf(session);
    return {
      account: {
        merchantId: session?.merchantId ?? account?.merchantId ?? null,
        baseUrl: session?.credentials.baseUrl ?? account?.baseUrl ?? null,
        wsUrl: session?.credentials.wsUrl ?? account?.wsUrl ?? null,
        apiKeyConfigured: this.demo !== null || configuredKey || Boolean(this.options.override?.apiKey),
        cacheOnly: session !== null && !session.live && keyWait === null,
        awaitingKeyStore: keyWait !== null,
        keyStore: keyStoreInfo(this.options.secrets.kind),
        demo: this.demo !== null,
        saved: account ? { ...account, apiKeyConfigured: configuredKey } : null,
      },
      connection: keyWait ??
        session?.connection ??
        this.storeProblem ?? {
          state: 'offline',
          detail: 'No account configured',
          nextAttemptAt: null,
          since: toUtcIso(Date.now()),
        },
      rateLimit: (session?.limiter ?? new ClientRateLimiter()).status(),
      progress: session?.progressList() ?? [],
      balance: session?.balance ?? null,
      balanceAt: session?.balanceAt ?? null,
      activeTrades: session?.activeTrades ?? 0,
      catalog: session?.catalog ?? { totalItems: 0, totalValue: 0, lastUpdate: null, syncedAt: null },
      settings,
      unacknowledgedFirings: session ? await session.store.unacknowledgedFiringCount() : 0,
      autoBuy: this.alerts.status(),
      awaySummary: this.awaySummary,
      forwarding: this.forwarder.status(),
      unreadNotifications: await this.centre.unreadCount(),
      exports: this.exports.list(),
    };
  }

  // ---- Accounts

  /** The account's rate budget, the same for the life of the engine. */
  limiterFor(merchantId: string): ClientRateLimiter {
    let limiter = this.limiters.get(merchantId);
    if (!limiter) {
      const percent = this.config.get().settings.bulkSharePercent ?? DEFAULT_BULK_SHARE_PERCENT;
      limiter = new ClientRateLimiter({ bulkShare: percent / 100 });
      this.limiters.set(merchantId, limiter);
    }
    return limiter;
  }

  private credentialsOf(input: AccountInput): Promise<AccountCredentials> {
    return this.keys.credentialsFor(input, this.config.get().account ?? null);
  }

  private testConnection(credentials: AccountCredentials): Promise<ConnectionTestResult> {
    return testConnection(credentials, this.limiterFor(credentials.merchantId));
  }

  private async configure(credentials: AccountCredentials): Promise<ConnectionTestResult> {
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
    await this.demo?.close();
    this.demo = null;
    return unconfirmed ? { ...result, message: `${result.message}. ${unconfirmed}` } : result;
  }

  private async useDemo(requestedAt = Date.now()): Promise<void> {
    this.keys.endWait();
    this.demo ??= await this.options.startDemo();
    const before = this.config.get().settings.demoSandbox;
    this.config.update((config) => ({ ...config, settings: { ...config.settings, demoSandbox: true } }));
    await this.switchTo(this.demo.credentials, true, requestedAt);
    if (!before) this.events.push({ settings: this.config.get().settings });
  }

  /** Back from the demo sandbox to the saved account; the choice persists (settings.demoSandbox). */
  private async useSaved(): Promise<ConnectionTestResult> {
    const { account } = this.config.get();
    if (!account)
      throw new EngineError('invalid_input', 'No account is saved yet: enter it under Connection and press Save');
    this.config.update((config) => ({ ...config, settings: { ...config.settings, demoSandbox: false } }));
    // Without its key the account opens from its cache (read-only) until the key is entered.
    await this.openWithStoredKey({ ...account, apiKey: null }, Date.now());
    await this.demo?.close();
    this.demo = null;
    this.events.push({ settings: this.config.get().settings });
    return this.describeConnection(false);
  }

  private describeConnection(demo: boolean): ConnectionTestResult {
    const session = this.session;
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
        this.storeProblem = null;
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
          this.storeProblem = { state: 'offline', detail, nextAttemptAt: null, since: toUtcIso(Date.now()) };
          this.events.push({ connection: this.storeProblem, accountChanged: true });
          return;
        }
        // Launch: what the cache holds before the first sync, for "while you were away" (the first live account only).
        this.awaySummary = null;
        const away =
          this.awayTracked || credentials.apiKey === null ? null : await AwayTracker.begin(store).catch(() => null);
        if (credentials.apiKey !== null) this.awayTracked = true;
        const watch = new WebhookWatch(store, (notification) => this.events.push({ notifications: [notification] }));
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
            onTradesStored: (changed, newStatuses) => {
              awayHooks?.onTradesStored(changed, newStatuses);
              watch.onTradesStored(changed);
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
        this.session = session;
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
    if (!summary || this.session !== session) return;
    this.awaySummary = summary;
    this.events.push({ awaySummary: summary, notifications: [awaySummaryNotification(summary)] });
  }

  private async closeSession(): Promise<void> {
    const session = this.session;
    this.session = null;
    this.webhookWatch?.stop();
    this.webhookWatch = null;
    if (!session) return;
    await session.stop();
    await this.centre.whenWritten();
    await session.store.close();
  }

  /** The session, with its key: what goes over the network (buying, a catalog refresh) needs it. */
  private requireLiveSession(): AccountSession {
    const session = this.requireSession();
    if (!session.live)
      throw new EngineError('unavailable', this.keyWaitOf(session)?.detail ?? noKeyDetail(session.merchantId));
    return session;
  }

  private requireSession(): AccountSession {
    if (!this.session) {
      throw new EngineError(
        'unavailable',
        this.storeProblem?.detail ?? 'No account connected: configure one in Settings or use the demo sandbox',
      );
    }
    return this.session;
  }
}

function emptyPage(query: { offset: number; limit: number }): Page<never> {
  return { rows: [], total: 0, offset: query.offset, limit: query.limit };
}

function stripUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A saved search the store refused (a taken name, a deleted id): shown to the user as it is. */
function searchRefusal(error: unknown): never {
  if (error instanceof StoreError && error.code === 'conflict') throw new EngineError('invalid_input', error.message);
  if (error instanceof StoreError && error.code === 'not_found') throw new EngineError('not_found', error.message);
  throw error;
}
