import { join } from 'node:path';
import { isValidTradeUrl, scaledRateLimits } from '../../../shared/api';
import type {
  AppSnapshot,
  EngineEventBatch,
  IpcMethod,
  IpcParsedInput,
  IpcResult,
  Page,
  SavedSearch,
} from '../../../shared/ipc';
import { keyStoreInfo } from '../../../shared/ipc/keyStore';
import { parseSearchLink } from '../../../shared/ipc/deepLinks';
import { notificationCategory } from '../../../shared/notifications';
import { toUtcIso } from '../../../shared/time';
import { ClientRateLimiter } from '../api';
import { AlertService } from '../alerts/alertService';
import { BuyService } from '../buy/buyService';
import { EventBatcher } from '../events/batcher';
import { NotificationForwarder } from '../notify/forwarder';
import { NotificationCentre } from '../notify/notificationCentre';
import { RunwayService } from '../operations/runwayService';
import { NextBuyService } from '../operations/nextBuy';
import { ExportJobs } from '../export/exportJobs';
import { replayUrlProblem } from '../operations/replayUrl';
import type { EngineService, ExportFile } from '../ipc/engineService';
import { EngineError } from '../ipc/engineService';
import type { SecretStore } from '../secrets';
import { type LocalStore, StoreError } from '../store';
import { preparePrivateDataDir } from '../privateFiles';
import { Accounts, type CommandLineAccount, type DemoAccount } from './accounts';
import { AppConfigFile } from './appConfig';
import { DataDirLock } from './dataDirLock';
import type { IpcHandlers } from './ipcHandlers';
import { operationsHandlers } from './operationsHandlers';
import { redactSecret } from './redactSecret';
import { duplicateRecipientProblem } from './recipientRules';
import type { AccountSession } from './session';

export type { CommandLineAccount, DemoAccount } from './accounts';
export type { IpcHandlers } from './ipcHandlers';

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
   * Benchmarks only: the client's rate limits are the spec's times this whole number, to page a year of history
   * from a sandbox started with the same scale. A host's command line (`--test-rate-limit-scale`) sets it, never a
   * setting or an IPC call; the bulk share stays a share of the scaled limits.
   */
  testRateLimitScale?: number;
  /**
   * Where CSV exports are written, with a way to show one in its folder (the desktop shell: the downloads folder).
   * Absent: `<dataDir>/exports`, private, and the page downloads the file from its host (`exportFile`).
   */
  exportTarget?: { dir: string; reveal: (file: string) => void };
}

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
  /** The open account and the switches between accounts. */
  private readonly accounts: Accounts;
  /** Every engine log line, with any API key the engine holds cut out (errors may carry what they were given). */
  private readonly log: (line: string) => void;
  /** One engine per data directory, across processes (one feed, one writer, one budget per account). */
  private readonly lock: DataDirLock | null;
  /** Aborted at close: a replay under way stops. */
  private readonly closing = new AbortController();
  /** CSV exports written to files (the bridge carries their progress only). */
  private readonly exports: ExportJobs;
  /** Every method of the contract and its handler (methodTable). */
  private readonly handlers: IpcHandlers;

  constructor(private readonly options: EngineOptions) {
    this.log = (line) => options.log(this.scrub(line));
    preparePrivateDataDir(options.dataDir, this.log);
    // Refused before the data folder is taken.
    const rateLimits =
      options.testRateLimitScale !== undefined ? scaledRateLimits(options.testRateLimitScale) : undefined;
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
    this.centre = new NotificationCentre(this.events, () => this.accounts.session?.store ?? null, this.log);
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
      () => this.accounts.session,
      () => this.config.get().settings.runwayAlertHours ?? null,
      this.log,
    );
    this.buying = new BuyService(
      () => this.accounts.requireLiveSession(),
      () => this.events.push({ failuresChanged: true }),
      () => this.events.push({ recipientsChanged: true }),
    );
    this.nextBuy = new NextBuyService(() => this.accounts.requireSession().store, this.buying);
    this.alerts = new AlertService(
      () => this.accounts.session,
      this.buying,
      this.events,
      () => this.config.get().settings,
      this.log,
    );
    this.accounts = new Accounts({
      dataDir: options.dataDir,
      secrets: options.secrets,
      startDemo: options.startDemo,
      override: options.override,
      config: this.config,
      events: this.events,
      alerts: this.alerts,
      centre: this.centre,
      log: this.log,
      ...(rateLimits ? { rateLimits } : {}),
    });
    this.handlers = this.methodTable();
  }

  /**
   * Picks the account: the command line's; the demo sandbox when that was the last choice
   * (kept in settings.demoSandbox, even with a saved account); the saved one with its key;
   * else the demo sandbox.
   */
  start(): Promise<void> {
    return this.accounts.start();
  }

  subscribe(listener: (batch: EngineEventBatch) => void): () => void {
    return this.events.subscribe(listener);
  }

  async close(): Promise<void> {
    this.accounts.keys.close();
    this.closing.abort();
    await this.exports.close();
    await this.accounts.close();
    await this.forwarder.stop();
    this.runway.close();
    await this.accounts.closeDemo();
    this.events.close();
    this.lock?.release();
  }

  describe(): string {
    const session = this.accounts.session;
    if (!session) return 'no account';
    return `${this.accounts.demo ? 'demo sandbox' : 'account'} ${session.merchantId} at ${session.credentials.baseUrl}`;
  }

  /** A finished export's file, for the host that serves it to the page (the web host's download route). */
  exportFile(id: string): ExportFile | null {
    return this.options.exportTarget ? null : this.exports.fileOf(id);
  }

  get accountSession(): AccountSession | null {
    return this.accounts.session;
  }

  /** The account's rate budget, the same for the life of the engine. */
  limiterFor(merchantId: string): ClientRateLimiter {
    return this.accounts.limiterFor(merchantId);
  }

  /** Buys sent and not answered yet (a person's or auto-buy's): the desktop shell installs no update meanwhile. */
  buysInFlight(): number {
    return this.buying.inFlight;
  }

  async handle<M extends IpcMethod>(method: M, input: IpcParsedInput<M>): Promise<IpcResult<M>> {
    // A call made while an account opens (start-up, a switch) is answered once it is open.
    await this.accounts.opened();
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
    // No account is open while the constructor runs (and logs): `accounts` is not there yet.
    const accounts = this.accounts as Accounts | undefined;
    const keys = [
      accounts?.session?.credentials.apiKey,
      this.options.override?.apiKey,
      accounts?.demo?.credentials.apiKey,
    ];
    let clean = text;
    for (const key of keys) if (key && key.length >= 8) clean = redactSecret(clean, key);
    return clean;
  }

  /** Every method of the contract and its handler, each typed by its own input and result. */
  private methodTable(): IpcHandlers {
    const accounts = this.accounts;
    return {
      ...operationsHandlers({
        accounts,
        settings: () => this.config.get().settings,
        runway: this.runway,
        nextBuy: this.nextBuy,
        allowPrivateAddresses: this.options.forwardToPrivateAddresses === true,
        signal: this.closing.signal,
      }),
      'app.snapshot': () => this.snapshot(),
      'catalog.query': async (query) =>
        accounts.session ? accounts.session.store.queryCatalog(query) : emptyPage(query),
      'catalog.item': async ({ itemId }) => (accounts.session ? accounts.session.store.getItem(itemId) : null),
      'catalog.refresh': async () => {
        const session = accounts.requireSession();
        // Not started, and why: the key is awaited from a slow keychain (not "enter your API key").
        const keyWait = accounts.keyWaitOf(session);
        return keyWait ? { started: false, reason: keyWait.detail } : session.refreshCatalog();
      },
      'trades.query': async (query) => {
        // Failed webhooks are not announced by any frame: the filter also asks the server (throttled, in the background).
        if (query.webhookFailed === true) void accounts.session?.refreshWebhookFailed();
        return accounts.session ? accounts.session.store.queryTrades(query) : emptyPage(query);
      },
      'trades.get': async ({ tradeId }) => (accounts.session ? accounts.session.store.getTrade(tradeId) : null),
      'trades.exportCsv': async (query) => {
        const { store } = accounts.requireSession();
        return this.exports.start('trades', (after, limit) => store.exportTradesChunk(query, after, limit));
      },
      'wallet.ledger': async (query) =>
        accounts.session ? accounts.session.store.queryLedger(query) : emptyPage(query),
      'wallet.balanceSeries': async (query) => (accounts.session ? accounts.session.store.balanceSeries(query) : []),
      'wallet.exportCsv': async (query) => {
        const { store } = accounts.requireSession();
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
      'buy.check': (input) => this.buying.check(input),
      'buy.recipient': (input) => this.buying.recipient(input),
      'buy.byId': (input) => this.buying.buyById(input),
      'buy.byName': (input) => this.buying.buyByName(input),
      'recipients.list': async () => (accounts.session ? accounts.session.store.listRecipients() : []),
      'recipients.save': async (input) => {
        if (!isValidTradeUrl(input.tradeUrl)) {
          throw new EngineError(
            'invalid_input',
            'Not a trade offer URL: https://steamcommunity.com/tradeoffer/new/?partner=…&token=…',
          );
        }
        const store = accounts.requireSession().store;
        const duplicate = duplicateRecipientProblem(await store.listRecipients(), input);
        if (duplicate) throw new EngineError('invalid_input', duplicate);
        const saved = await store.saveRecipient(input);
        await this.alerts.reload(); // auto-buy keeps recipients' trade URLs in memory
        return saved;
      },
      'recipients.delete': async ({ id }) => {
        const deleted = await accounts.requireSession().store.deleteRecipient(id);
        await this.alerts.reload();
        return deleted;
      },
      'searches.list': async () => (accounts.session ? this.listSearches(accounts.session.store) : []),
      // Every page hears of the change itself, never the whole list again (it can be long).
      'searches.save': async (input) => {
        const saved = await accounts.requireSession().store.saveSearch(input).catch(searchRefusal);
        this.events.push({ savedSearches: { saved: [saved], deleted: [] } });
        return saved;
      },
      'searches.delete': async ({ id }) => {
        const result = await accounts.requireSession().store.deleteSearch(id);
        if (result.deleted) this.events.push({ savedSearches: { saved: [], deleted: [id] } });
        return result;
      },
      'links.search': async ({ query }) => parseSearchLink(query),
      'alerts.rules': async () => (accounts.session ? accounts.session.store.listAlertRules() : []),
      'alerts.saveRule': (input) => this.alerts.saveRule(input),
      'alerts.deleteRule': async ({ id }) => {
        const result = await accounts.requireSession().store.deleteAlertRule(id);
        await this.alerts.reload();
        return result;
      },
      'alerts.firings': async () => (accounts.session ? accounts.session.store.listFirings({ limit: 500 }) : []),
      'alerts.acknowledge': async ({ id }) => {
        const store = accounts.requireSession().store;
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
          accounts.setBulkShare(patch.bulkSharePercent / 100);
        }
        return updated.settings;
      },
      'account.test': async (input) => accounts.testConnection(await accounts.credentialsOf(input)),
      'account.configure': async (input) => accounts.configure(await accounts.credentialsOf(input)),
      'account.useDemo': async () => {
        await accounts.useDemo();
        return accounts.describeConnection(true);
      },
      'account.useSaved': () => accounts.useSaved(),
      // Updates belong to the desktop shell, which answers these itself; a host without one has none.
      'updates.status': async () => null,
      'updates.install': async () => {
        throw new EngineError('unavailable', 'Updates are installed by the desktop app; this host has none.');
      },
      // While the keychain is awaited there is no connection to retry: its answer opens one.
      'connection.retryNow': async () =>
        accounts.session && !accounts.keyWaitOf(accounts.session) ? accounts.session.retryNow() : { started: false },
      'notifications.list': (query) => this.centre.list(query),
      'notifications.markRead': (input) => this.centre.markRead(input),
      // The desktop shell answers this one itself (src/main/ipc.ts); a browser shows its own test notification.
      'notifications.test': async () => {
        throw new EngineError('unavailable', 'Desktop notifications are shown by the desktop app');
      },
    };
  }

  /** The account's saved searches; one whose stored query no longer passes the schema is left out and logged. */
  private async listSearches(store: LocalStore): Promise<SavedSearch[]> {
    const { searches, skipped } = await store.listSearches();
    for (const bad of skipped)
      this.log(`saved search ${bad.id} ("${bad.name}") left out: its stored query is not valid (${bad.problem})`);
    return searches;
  }

  async snapshot(): Promise<AppSnapshot> {
    const { account } = this.config.get();
    const configuredKey = account ? await this.accounts.keys.isConfigured(account.merchantId) : false;
    const counted = this.accounts.session;
    const unacknowledgedFirings = counted ? await counted.store.unacknowledgedFiringCount() : 0;
    const unreadNotifications = await this.centre.unreadCount();
    // The rest is taken after the last await: a batch sent before this answer is never newer than what it says.
    const session = this.accounts.session;
    const { settings } = this.config.get();
    const keyWait = this.accounts.keyWaitOf(session);
    return {
      account: {
        merchantId: session?.merchantId ?? account?.merchantId ?? null,
        baseUrl: session?.credentials.baseUrl ?? account?.baseUrl ?? null,
        wsUrl: session?.credentials.wsUrl ?? account?.wsUrl ?? null,
        apiKeyConfigured: this.accounts.demo !== null || configuredKey || Boolean(this.options.override?.apiKey),
        cacheOnly: session !== null && !session.live && keyWait === null,
        awaitingKeyStore: keyWait !== null,
        keyStore: keyStoreInfo(this.options.secrets.kind),
        demo: this.accounts.demo !== null,
        saved: account ? { ...account, apiKeyConfigured: configuredKey } : null,
      },
      connection: keyWait ??
        session?.connection ??
        this.accounts.storeProblem ?? {
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
      unacknowledgedFirings,
      autoBuy: this.alerts.status(),
      awaySummary: this.accounts.awaySummary,
      forwarding: this.forwarder.status(),
      unreadNotifications,
      exports: this.exports.list(),
    };
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
