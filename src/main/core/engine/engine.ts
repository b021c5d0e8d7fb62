import type { Trade } from '../../../shared/api';
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
import { keyStoreInfo } from '../../../shared/ipc/keyStore';
import { sameEndpoint } from '../../../shared/endpoints';
import { formatCents } from '../../../shared/money';
import { notificationCategory } from '../../../shared/notifications';
import { toUtcIso } from '../../../shared/time';
import { ApiRequestError, ClientRateLimiter, MerchantApiClient } from '../api';
import { AlertService } from '../alerts/alertService';
import { BuyService } from '../buy/buyService';
import { EventBatcher } from '../events/batcher';
import { AwayTracker, awaySummaryNotification } from '../notify/awaySummary';
import { NotificationForwarder } from '../notify/forwarder';
import { NotificationCentre } from '../notify/notificationCentre';
import { centsToDecimal, toCsv } from '../export/csv';
import type { EngineService } from '../ipc/engineService';
import { EngineError } from '../ipc/engineService';
import { type SecretStore, SecretStoreTimeoutError, whenKeychainAnswers } from '../secrets';
import { type LocalStore, StoreError } from '../store';
import type { ParsedLedgerQuery, ParsedTradeQuery } from '../store/types';
import { preparePrivateDataDir } from '../privateFiles';
import { accountStoreFile, openAccountStore } from './accountFiles';
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
  /** Tests only (their chat receiver listens on loopback): forward to non-public addresses too. The hosts never set it. */
  forwardToPrivateAddresses?: boolean;
}

/**
 * An account given on the command line. With `useStoredKey`, the key the secret store holds for it comes first
 * (waited for while the keychain is slow) and `apiKey` (the environment's) serves when the store holds none.
 */
export type CommandLineAccount = SessionAccount & { useStoredKey?: boolean };

/** The account's key awaited from a keychain that is slow to answer (see openWithStoredKey). */
interface KeyWait {
  merchantId: string;
  abort: AbortController;
  /** The connection the UIs show meanwhile: neither live nor read-only. */
  status: ConnectionStatus;
}

const EXPORT_PAGE = 1000;

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
  private readonly alerts: AlertService;
  /** Chosen notifications to the merchant's chat webhook (settings.forwardUrl). */
  private readonly forwarder: NotificationForwarder;
  /** "While you were away" of the first live account opened since launch; null until its first sync is done. */
  private awaySummary: AwaySummary | null = null;
  private awayTracked = false;
  /** The alerts' evaluation of the last synced catalog. */
  private catalogEvaluation: Promise<void> = Promise.resolve();
  private session: AccountSession | null = null;
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
  /** Whether the saved account's key is in the secret store, cached: the keychain may be slow, and snapshots are frequent. */
  private keyConfigured: { merchantId: string; configured: boolean } | null = null;
  /** Set while the open account's key is awaited from a slow keychain. */
  private keyWait: KeyWait | null = null;
  /** Set while an entered key waits to be stored by a slow keychain. */
  private keyStoring: AbortController | null = null;

  constructor(private readonly options: EngineOptions) {
    this.log = (line) => options.log(this.scrub(line));
    preparePrivateDataDir(options.dataDir, this.log);
    this.lock = DataDirLock.acquire(options.dataDir, this.log);
    this.config = new AppConfigFile(options.dataDir);
    if (this.config.problem) this.log(this.config.problem);
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
    this.buying = new BuyService(() => this.requireLiveSession());
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
   * account given on the command line). A keychain slow to answer (busy, or locked until unlocked) is not "no key":
   * without another key the cache opens meanwhile, waiting (neither read-only nor asking for the key), and the
   * account goes live when the keychain gives its key; read-only only if it answers that it holds none.
   */
  private async openWithStoredKey(account: SessionAccount, requestedAt: number): Promise<void> {
    this.endKeyWait();
    let stored: string | null;
    try {
      stored = await this.options.secrets.get(account.merchantId);
    } catch (error) {
      this.log(`keychain: ${(error as Error).message}`);
      if (!(error instanceof SecretStoreTimeoutError)) {
        this.keyConfigured = { merchantId: account.merchantId, configured: false };
        return this.openWithKey(account, null, requestedAt);
      }
      // The command line's key serves this run rather than waiting.
      if (account.apiKey !== null) return this.openWithKey(account, null, requestedAt);
      this.log(
        `waiting for the OS keychain: the cached data of ${account.merchantId} opens meanwhile; it goes live when the keychain gives its key`,
      );
      const wait: KeyWait = {
        merchantId: account.merchantId,
        abort: new AbortController(),
        status: keyWaitStatus(account.merchantId),
      };
      this.keyWait = wait;
      void whenKeychainAnswers(
        error as SecretStoreTimeoutError<string | null>,
        () => this.options.secrets.get(account.merchantId),
        {
          signal: wait.abort.signal,
          onRetry: (nextAttemptAt, failure) => {
            this.log(`keychain: ${(failure as Error).message}; asking again at ${toUtcIso(nextAttemptAt)}`);
            wait.status = { ...wait.status, nextAttemptAt: toUtcIso(nextAttemptAt) };
            if (this.keyWait === wait) this.events.push({ connection: wait.status });
          },
        },
      ).then(
        (key) => {
          if (this.keyWait !== wait) return;
          this.keyWait = null;
          this.keyConfigured = { merchantId: account.merchantId, configured: key !== null };
          this.log(`the OS keychain answered for ${account.merchantId}`);
          this.openWithKey(account, key, Date.now()).catch((failure: unknown) =>
            this.log(`opening ${account.merchantId}: ${String(failure)}`),
          );
        },
        () => {}, // ended: a key was entered, another account opened, or the engine closed
      );
      return this.switchTo(account, false, requestedAt);
    }
    this.keyConfigured = { merchantId: account.merchantId, configured: stored !== null };
    return this.openWithKey(account, stored, requestedAt);
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

  /** Stops awaiting a slow keychain's answer: what it says later does not replace the account opened since. */
  private endKeyWait(): void {
    this.keyWait?.abort.abort(new Error('no longer waiting for the keychain'));
    this.keyWait = null;
  }

  /** While the open account's key is awaited from a slow keychain, that wait. */
  private keyWaitOf(session: AccountSession | null): KeyWait | null {
    const wait = this.keyWait;
    return wait && session && !session.live && session.merchantId === wait.merchantId ? wait : null;
  }

  async close(): Promise<void> {
    this.endKeyWait();
    this.keyStoring?.abort(new Error('the engine closed'));
    await this.switching.catch(() => {});
    await this.closeSession();
    await this.forwarder.stop();
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

  get accountSession(): AccountSession | null {
    return this.session;
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
    'catalog.refresh': async () => this.requireSession().refreshCatalog(),
    'trades.query': async (query) => {
      // Failed webhooks are not announced by any frame: the filter also asks the server (throttled, in the background).
      if (query.webhookFailed === true) void this.session?.refreshWebhookFailed();
      return this.session ? this.session.store.queryTrades(query) : emptyPage(query);
    },
    'trades.get': async ({ tradeId }) => (this.session ? this.session.store.getTrade(tradeId) : null),
    'trades.exportCsv': (query) => this.exportTrades(query),
    'wallet.ledger': async (query) => (this.session ? this.session.store.queryLedger(query) : emptyPage(query)),
    'wallet.balanceSeries': async (query) => (this.session ? this.session.store.balanceSeries(query) : []),
    'wallet.exportCsv': (query) => this.exportLedger(query),
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
      const updated = this.config.update((config) => ({
        ...config,
        settings: { ...config.settings, ...stripUndefined(patch) },
      }));
      this.events.push({ settings: updated.settings });
      this.alerts.settingsChanged(); // stop-all, budget and floor hold the next match and the auto-buys waiting for a rate slot
      if (patch.forwardUrl !== undefined || patch.forwardCategories !== undefined) this.forwarder.settingsChanged();
      return updated.settings;
    },
    'account.test': async (input) => this.testConnection(await this.withStoredKey(input)),
    'account.configure': async (input) => this.configure(await this.withStoredKey(input)),
    'account.useDemo': async () => {
      await this.useDemo();
      return this.describeConnection(true);
    },
    'account.useSaved': () => this.useSaved(),
    // While the keychain is awaited there is no connection to retry: its answer opens one.
    'connection.retryNow': async () =>
      this.session && !this.keyWaitOf(this.session) ? this.session.retryNow() : { started: false },
    'notifications.list': (query) => this.centre.list(query),
    'notifications.markRead': (input) => this.centre.markRead(input),
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
    const configuredKey = account ? await this.isKeyConfigured(account.merchantId) : false;
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
      connection: keyWait?.status ??
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
    };
  }

  // ---- Accounts

  /** The account's rate budget, the same for the life of the engine. */
  limiterFor(merchantId: string): ClientRateLimiter {
    let limiter = this.limiters.get(merchantId);
    if (!limiter) {
      limiter = new ClientRateLimiter();
      this.limiters.set(merchantId, limiter);
    }
    return limiter;
  }

  /** Read once per account (the secret store has its own time-out), then kept until the key is configured again. */
  private async isKeyConfigured(merchantId: string): Promise<boolean> {
    if (this.keyConfigured?.merchantId === merchantId) return this.keyConfigured.configured;
    // Awaited for the open account: not known yet, and no second call while one hangs.
    if (this.keyWait?.merchantId === merchantId) return false;
    let late = null as Promise<unknown> | null;
    const key = await this.options.secrets.get(merchantId).catch((error: unknown) => {
      if (error instanceof SecretStoreTimeoutError) late = error.answer;
      return null;
    });
    const known = { merchantId, configured: key !== null };
    this.keyConfigured = known;
    // A slow keychain's late answer still counts, without asking it again.
    void late?.then(
      (answer) => (known.configured = answer !== null),
      () => {},
    );
    return known.configured;
  }

  /** The key the store holds for `merchantId`, or null; a keychain still slow to answer is said as such. */
  private async storedKey(merchantId: string): Promise<string | null> {
    const slow = new EngineError(
      'unavailable',
      `The OS keychain has not answered yet for ${merchantId} (busy, or locked: unlock it): wait for it, or enter the API key`,
    );
    if (this.keyWait?.merchantId === merchantId) throw slow;
    return this.options.secrets.get(merchantId).catch((error: unknown) => {
      if (error instanceof SecretStoreTimeoutError) throw slow;
      return null;
    });
  }

  /**
   * The credentials a test or save uses. A key typed in the call goes where the call says; the stored key goes only
   * to the saved account's own base URL and WebSocket URL, so no caller can have it delivered somewhere else.
   */
  private async withStoredKey(input: AccountInput): Promise<AccountCredentials> {
    const baseUrl = input.baseUrl.replace(/\/+$/, '');
    if (input.apiKey !== undefined)
      return { baseUrl, wsUrl: input.wsUrl, merchantId: input.merchantId, apiKey: input.apiKey };
    const saved = this.config.get().account;
    if (saved?.merchantId !== input.merchantId)
      throw new EngineError('invalid_input', `No API key stored for ${input.merchantId}: enter it`);
    if (!sameEndpoint(saved.baseUrl, baseUrl) || !sameEndpoint(saved.wsUrl, input.wsUrl)) {
      throw new EngineError(
        'invalid_input',
        `The stored API key of ${saved.merchantId} is only sent to the saved account's addresses (${saved.baseUrl}, ${saved.wsUrl}): to use other addresses, enter the API key`,
      );
    }
    const apiKey = await this.storedKey(saved.merchantId);
    if (!apiKey) throw new EngineError('invalid_input', `No API key stored for ${saved.merchantId}: enter it`);
    return { baseUrl: saved.baseUrl, wsUrl: saved.wsUrl, merchantId: saved.merchantId, apiKey };
  }

  private async testConnection(credentials: AccountCredentials): Promise<ConnectionTestResult> {
    const client = new MerchantApiClient(credentials, {
      timeoutMs: 10_000,
      limiter: this.limiterFor(credentials.merchantId),
    });
    try {
      const balance = await client.getBalance();
      return {
        ok: true,
        message: `Connected as ${credentials.merchantId}: ${formatCents(balance.total_available)} available`,
        merchantId: credentials.merchantId,
        balance,
      };
    } catch (error) {
      const message = error instanceof ApiRequestError ? error.message : (error as Error).message;
      return { ok: false, message: `Could not connect: ${message}`, merchantId: null, balance: null };
    }
  }

  private async configure(credentials: AccountCredentials): Promise<ConnectionTestResult> {
    const result = await this.testConnection(credentials);
    if (!result.ok) return result;
    // The key entered wins over whatever a slow keychain answers later.
    this.endKeyWait();
    const unconfirmed = await this.storeKey(credentials.merchantId, credentials.apiKey);
    this.keyConfigured = { merchantId: credentials.merchantId, configured: true };
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

  /**
   * Stores an entered key. A keychain slow to answer gets it when it does (asked again after a failure, until the
   * engine closes or another key is entered); the key is used meanwhile, never lost. Returns what to tell the user then.
   */
  private async storeKey(merchantId: string, apiKey: string): Promise<string | null> {
    this.keyStoring?.abort(new Error('another key was entered'));
    this.keyStoring = null;
    try {
      await this.options.secrets.set(merchantId, apiKey);
      return null;
    } catch (error) {
      if (!(error instanceof SecretStoreTimeoutError)) throw error;
      const storing = new AbortController();
      this.keyStoring = storing;
      this.log(
        `keychain: ${error.message}; the key entered for ${merchantId} is used now and stored when the keychain answers`,
      );
      void whenKeychainAnswers(
        error as SecretStoreTimeoutError<void>,
        () => this.options.secrets.set(merchantId, apiKey),
        {
          signal: storing.signal,
          onRetry: (nextAttemptAt, failure) =>
            this.log(
              `keychain: storing the key of ${merchantId}: ${(failure as Error).message}; trying again at ${toUtcIso(nextAttemptAt)}`,
            ),
        },
      ).then(
        () => this.log(`the OS keychain stored the key of ${merchantId}`),
        () => {}, // another key was entered, or the engine closed
      );
      return 'The OS keychain has not confirmed storing the key yet: it is used now and stored when the keychain answers';
    }
  }

  private async useDemo(requestedAt = Date.now()): Promise<void> {
    this.endKeyWait();
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
        const session: AccountSession = new AccountSession(
          credentials,
          store,
          this.events,
          {
            // Settled: the start-up's syncs done, and the alerts' look at the catalog they brought.
            ...away?.sessionHooks(
              store,
              () => session.startupSettled().then(() => this.catalogEvaluation),
              (summary) => this.reportAway(session, summary),
              this.log,
            ),
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
        this.alerts.accountChanged();
        await this.alerts.reload();
        await session.start();
        this.events.push({
          connection: this.keyWaitOf(session)?.status ?? session.connection,
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
    if (!session) return;
    await session.stop();
    await this.centre.whenWritten();
    await session.store.close();
  }

  /** The session, with its key: what goes over the network (buying, a catalog refresh) needs it. */
  private requireLiveSession(): AccountSession {
    const session = this.requireSession();
    if (!session.live)
      throw new EngineError('unavailable', this.keyWaitOf(session)?.status.detail ?? noKeyDetail(session.merchantId));
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

  // ---- Exports

  private async exportTrades(query: ParsedTradeQuery): Promise<{ filename: string; csv: string }> {
    const store = this.requireSession().store;
    const rows: Trade[] = [];
    for (let offset = 0; ; offset += EXPORT_PAGE) {
      const page = await store.queryTrades({ ...query, offset, limit: EXPORT_PAGE });
      rows.push(...page.rows);
      if (page.rows.length < EXPORT_PAGE) break;
    }
    const header = [
      'tradeId',
      'externalId',
      'status',
      'price',
      'itemId',
      'assetId',
      'offerId',
      'market_hash_name',
      'phase',
      'float',
      'webhookStatus',
      'errorCode',
      'failReason',
      'createdAt',
      'updatedAt',
      'completedAt',
      'cancelledAt',
      'endProtection',
      'rollbackAt',
      'stage',
    ];
    const csv = toCsv(
      header,
      rows.map((t) => [
        t.tradeId,
        t.externalId,
        t.status,
        centsToDecimal(t.price),
        t.itemId,
        t.assetId,
        t.offerId,
        t.market_hash_name,
        t.phase,
        t.float,
        t.webhookStatus,
        t.errorCode,
        t.failReason,
        t.createdAt,
        t.updatedAt,
        t.completedAt,
        t.cancelledAt,
        t.endProtection,
        t.rollbackAt,
        t.stage,
      ]),
    );
    return { filename: `trades-${stamp()}.csv`, csv };
  }

  private async exportLedger(query: ParsedLedgerQuery): Promise<{ filename: string; csv: string }> {
    const store = this.requireSession().store;
    const header = [
      'id',
      'createdAt',
      'type',
      'amount',
      'balanceBefore',
      'balanceAfter',
      'tradeId',
      'market_hash_name',
      'phase',
      'note',
    ];
    const lines: (string | number | null)[][] = [];
    for (let offset = 0; ; offset += EXPORT_PAGE) {
      const page = await store.queryLedger({ ...query, offset, limit: EXPORT_PAGE });
      for (const e of page.rows) {
        lines.push([
          e.id,
          e.createdAt,
          e.type,
          centsToDecimal(e.amount),
          centsToDecimal(e.balanceBefore),
          centsToDecimal(e.balanceAfter),
          e.tradeId,
          e.market_hash_name,
          e.phase,
          e.note,
        ]);
      }
      if (page.rows.length < EXPORT_PAGE) break;
    }
    return { filename: `ledger-${stamp()}.csv`, csv: toCsv(header, lines) };
  }
}

/** The connection while the account's key is awaited from a slow keychain (`nextAttemptAt` is set after a failed call). */
function keyWaitStatus(merchantId: string): ConnectionStatus {
  return {
    state: 'connecting',
    detail: `Waiting for the OS keychain to give the API key of ${merchantId} (it is busy, or locked: unlock it); the account goes live when it answers`,
    nextAttemptAt: null,
    since: toUtcIso(Date.now()),
  };
}

function emptyPage(query: { offset: number; limit: number }): Page<never> {
  return { rows: [], total: 0, offset: query.offset, limit: query.limit };
}

function stripUndefined<T extends Record<string, unknown>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function stamp(): string {
  return toUtcIso(Date.now()).replace(/[:.]/g, '-');
}

/** A saved search the store refused (a taken name, a deleted id): shown to the user as it is. */
function searchRefusal(error: unknown): never {
  if (error instanceof StoreError && error.code === 'conflict') throw new EngineError('invalid_input', error.message);
  if (error instanceof StoreError && error.code === 'not_found') throw new EngineError('not_found', error.message);
  throw error;
}
