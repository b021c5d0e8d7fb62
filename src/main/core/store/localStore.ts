/**
 * LocalStore: the host-side face of an account's SQLite cache.
 *
 * Threads (after Signal Desktop's model): a WRITER worker owns the only write
 * connection and runs every change (and the streaming catalog sync); one or
 * more READER workers hold read-only connections and answer queries. In WAL
 * mode readers see the last commit while the writer works, so a long write
 * never delays a read, and this class never touches SQLite itself: the host's
 * event loop (Electron main, the web host) only posts messages.
 *
 * Loading the worker: a worker thread starts with plain Node's loader, which
 * cannot import TypeScript. So
 *   - from source (vitest, tsx: this module's URL ends in .ts) the worker entry
 *     is worker/bootstrap.mjs, which registers tsx in the worker thread and then
 *     imports worker/storeWorker.ts;
 *   - in a bundle (electron-vite) it is `storeWorker.js` beside the chunk that
 *     holds this module (or one folder up, for a chunks/ layout): add
 *     `storeWorker: resolve(root, 'src/main/core/store/worker/storeWorker.ts')`
 *     to the main build's rolldown inputs so it is emitted beside index.js
 *     (checked: an esbuild bundle of both entries runs under plain node);
 *   - `workerEntry` overrides both.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BalanceTransaction, Item, PriceChange, Trade } from '../../../shared/api';
import type {
  AlertFiring,
  AlertRule,
  AppSettings,
  BalancePoint,
  CatalogInfo,
  CatalogRow,
  ItemDetail,
  LedgerRow,
  Page,
  Recipient,
  TradeDetail,
} from '../../../shared/ipc';
import {
  alertRuleInputSchema,
  catalogFiltersSchema,
  catalogQuerySchema,
  ledgerQuerySchema,
  recipientInputSchema,
  savedSearchInputSchema,
  settingsPatchSchema,
  tradeQuerySchema,
  type AlertRuleInput,
  type CatalogFiltersInput,
  type CatalogQuery,
  type LedgerQuery,
  type SavedSearch,
  type SavedSearchInput,
  type TradeQuery,
} from '../../../shared/ipc/contract';
import { createPrivateFile, PRIVATE_DIR_MODE } from '../privateFiles';
import { readOnlyError, StoreClosedError, StoreError } from './errors';
import { SCHEMA_VERSION } from './schema';
import { notificationMarkReadSchema, notificationQuerySchema, type NotificationRepository } from './notifications';
import type {
  CatalogSyncProgress,
  CatalogSyncRequest,
  CatalogSyncResult,
  AutoBuyDayRow,
  AutoBuySkipRow,
  FiringInput,
  FiringQuery,
  ItemChangeGroup,
  ItemChangeGroupResult,
  ItemRemovalResult,
  ItemUpsertResult,
  LedgerInsertResult,
  PriceChangeResult,
  ReaderMethods,
  SavedSearchList,
  TradeSource,
  TradeUpdate,
  TradeUpdateResult,
  TradeUpsertResult,
  WriterMethods,
} from './types';
import { WorkerClient, type SlowCall } from './workerClient';

export interface LocalStoreOptions {
  /** The SQLite file; its folder is created. See LocalStore.accountFile. */
  file: string;
  /** Reader threads (default 1). */
  readers?: number;
  /** The worker entry to start; see the comment at the top of this file. */
  workerEntry?: URL | string;
  /** Calls slower than this (ms, default 250) are reported to onSlowCall. */
  slowCallMs?: number;
  onSlowCall?: (call: SlowCall) => void;
}

export type { SlowCall };

/** Where a bundle may have put storeWorker.js, relative to the chunk holding this module. */
const BUNDLED_WORKER_CANDIDATES = ['./storeWorker.js', '../storeWorker.js', './storeWorker.mjs', '../storeWorker.mjs'];

/** The worker entry for the way this module is running (TypeScript source or a bundle). */
export function resolveWorkerEntry(): URL {
  const here = import.meta.url;
  if (/\.[cm]?tsx?$/.test(new URL(here).pathname)) return new URL('./worker/bootstrap.mjs', here);
  const candidates = BUNDLED_WORKER_CANDIDATES.map((path) => new URL(path, here));
  const found = candidates.find((url) => existsSync(fileURLToPath(url)));
  if (found) return found;
  throw new StoreError(
    'worker',
    `The store worker was not found next to ${fileURLToPath(here)} (tried ${candidates.map((url) => fileURLToPath(url)).join(', ')}). ` +
      "Build src/main/core/store/worker/storeWorker.ts as an entry named 'storeWorker', or pass workerEntry to LocalStore.open.",
  );
}

/** A plain id: lower-case letters and digits, single separators between them. */
const PLAIN_ID = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
/** Device names Windows reserves whatever follows the first dot. */
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com\d|lpt\d)(?:\.|$)/;

/**
 * A file name for a merchant id: never a path, safe on every OS, and distinct for distinct ids even where the file
 * system ignores case. A plain id is its own name; any other id is a readable part, `__` and a hash of the id
 * (a plain id never holds `__`, so the two kinds never meet).
 */
export function safeFileName(merchantId: string): string {
  if (merchantId.length <= 100 && PLAIN_ID.test(merchantId) && !WINDOWS_RESERVED.test(merchantId)) return merchantId;
  const readable = merchantId.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 60).replace(/^_+|_+$/g, '') || 'id';
  const hash = createHash('sha256').update(merchantId).digest('hex').slice(0, 16);
  return `${readable}__${hash}`;
}

type WriterArgs<M extends keyof WriterMethods> = Parameters<WriterMethods[M]>;
type WriterResult<M extends keyof WriterMethods> = Awaited<ReturnType<WriterMethods[M]>>;
type ReaderArgs<M extends keyof ReaderMethods> = Parameters<ReaderMethods[M]>;
type ReaderResult<M extends keyof ReaderMethods> = ReturnType<ReaderMethods[M]>;

export interface CatalogSyncOptions extends CatalogSyncRequest {
  signal?: AbortSignal;
}

export class LocalStore {
  /** The schema version this build writes. */
  static readonly schemaVersion = SCHEMA_VERSION;
  private closed = false;

  private constructor(
    readonly file: string,
    /** The schema version the file had before this open migrated it; null when it was current. */
    readonly migratedFrom: number | null,
    private readonly writer: WorkerClient,
    private readonly readers: WorkerClient[],
  ) {}

  /** `<dataDir>/accounts/<safe merchant id>.sqlite`; the demo sandbox's accounts in `accounts/demo/`, apart from real ones. */
  static accountFile(dataDir: string, merchantId: string, kind: 'account' | 'demo' = 'account'): string {
    return join(dataDir, 'accounts', ...(kind === 'demo' ? ['demo'] : []), `${safeFileName(merchantId)}.sqlite`);
  }

  /**
   * Opens (creating and migrating as needed) the store. Fails with
   * StoreVersionError (file from a newer app), StoreCorruptError or
   * StoreReadOnlyError; the file is never deleted or rewritten on failure.
   */
  static async open(options: LocalStoreOptions): Promise<LocalStore> {
    const { file } = options;
    try {
      mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
    } catch (error) {
      throw readOnlyError(file, `cannot create its folder: ${(error as Error).message}`);
    }
    // Owner-only before SQLite opens it; SQLite gives its -wal and -shm the same mode.
    createPrivateFile(file);
    const entry = options.workerEntry === undefined ? resolveWorkerEntry() : toUrl(options.workerEntry);
    const slowCallMs = options.slowCallMs ?? 250;
    const common = { entry, ...(options.onSlowCall ? { onSlowCall: options.onSlowCall } : {}) };
    // The writer creates and migrates the file the readers then open read-only. The readers' threads
    // boot meanwhile (loading their code is most of a cold open) and open the file once it is ready.
    const writerStart = WorkerClient.start({ ...common, init: { role: 'writer', file, slowCallMs } });
    const count = Math.max(1, Math.min(options.readers ?? 1, 8));
    const readerStarts = Array.from({ length: count }, () => WorkerClient.start({ ...common, init: { role: 'reader', file, slowCallMs }, openWhen: writerStart }));
    const closeStarted = async (starts: Promise<{ client: WorkerClient }>[]) => {
      const settled = await Promise.allSettled(starts);
      await Promise.all(settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.client.close() : undefined)));
    };
    let started: { client: WorkerClient; migratedFrom: number | null };
    try {
      started = await writerStart;
    } catch (error) {
      await closeStarted(readerStarts);
      throw error;
    }
    const { client: writer, migratedFrom } = started;
    const readerOutcomes = await Promise.allSettled(readerStarts);
    const failed = readerOutcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) {
      await Promise.all([writer.close(), closeStarted(readerStarts)]);
      throw failed.reason;
    }
    const readers = readerOutcomes.map((outcome) => (outcome as PromiseFulfilledResult<{ client: WorkerClient }>).value.client);
    return new LocalStore(file, migratedFrom, writer, readers);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.readers.map((reader) => reader.close()));
    await this.writer.close();
  }

  private write<M extends keyof WriterMethods>(method: M, ...args: WriterArgs<M>): Promise<WriterResult<M>> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    return this.writer.call<WriterResult<M>>(method, args);
  }

  private read<M extends keyof ReaderMethods>(method: M, ...args: ReaderArgs<M>): Promise<ReaderResult<M>> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    let reader = this.readers[0] as WorkerClient;
    for (const candidate of this.readers) if (candidate.pendingCalls < reader.pendingCalls) reader = candidate;
    return reader.call<ReaderResult<M>>(method, args);
  }

  // ---- catalog

  /** Adds or replaces items (feed item_upserted, SearchItems answers). */
  applyItemUpserts = (items: Item[]): Promise<ItemUpsertResult> => this.write('applyItemUpserts', items);
  /** Removes items (feed item_removed, webhook item_removed); they stay readable by getItem for a week. */
  applyItemRemovals = (itemIds: number[]): Promise<ItemRemovalResult> => this.write('applyItemRemovals', itemIds);
  /** Applies price_changed entries; ids not in the cache come back in `unknown`. */
  applyPriceChanges = (changes: PriceChange[]): Promise<PriceChangeResult> => this.write('applyPriceChanges', changes);
  /** Live item changes of every kind, in feed order, in one writer call and one transaction. */
  applyItemChanges = (groups: ItemChangeGroup[]): Promise<ItemChangeGroupResult[]> => this.write('applyItemChanges', groups);
  /**
   * Downloads the whole on-sale list in the writer thread and replaces the
   * catalog with it in one transaction at the end. Progress arrives at most
   * ~10 times a second. A non-2xx answer resolves `{ ok: false, … }`; a
   * network failure, a cancel (signal) or an unreadable body rejects with
   * CatalogSyncError and leaves the previous catalog as it was.
   */
  syncCatalog(options: CatalogSyncOptions, onProgress?: (progress: CatalogSyncProgress) => void): Promise<CatalogSyncResult> {
    if (this.closed) return Promise.reject(new StoreClosedError());
    const { signal, ...request } = options;
    return this.writer.call<CatalogSyncResult>('syncCatalog', [request], {
      ...(signal ? { signal } : {}),
      ...(onProgress ? { onProgress } : {}),
    });
  }

  queryCatalog = (query: CatalogQuery = {}): Promise<Page<CatalogRow>> => this.read('queryCatalog', catalogQuerySchema.parse(query));
  getItem = (itemId: number): Promise<ItemDetail | null> => this.read('getItem', itemId);
  findItemsByIds = (itemIds: number[]): Promise<Item[]> => this.read('findItemsByIds', itemIds);
  matchingItemIds = (filters: CatalogFiltersInput, itemIds: number[]): Promise<number[]> => this.read('matchingItemIds', catalogFiltersSchema.parse(filters), itemIds);
  catalogInfo = (): Promise<CatalogInfo> => this.read('catalogInfo');

  // ---- trades

  /** Stores trades from the server (buy answer, poll, back-fill); statuses only move forward. */
  upsertTrades = (trades: Trade[], source: TradeSource): Promise<TradeUpsertResult> => this.write('upsertTrades', trades, source);
  /** Applies a trade_updated frame or webhook; `{ unknown: true }` when the trade is not held (fetch it by tradeId). */
  applyTradeUpdate = (update: TradeUpdate, source: TradeSource): Promise<TradeUpdateResult> => this.write('applyTradeUpdate', update, source);
  queryTrades = (query: TradeQuery = {}): Promise<Page<Trade>> => this.read('queryTrades', tradeQuerySchema.parse(query));
  getTrade = (tradeId: string): Promise<TradeDetail | null> => this.read('getTrade', tradeId);
  activeTrades = (): Promise<Trade[]> => this.read('activeTrades');
  findTradeByExternalId = (externalId: string): Promise<Trade | null> => this.read('findTradeByExternalId', externalId);

  // ---- ledger

  /** Idempotent by id: entries already held are skipped. */
  insertLedger = (entries: BalanceTransaction[]): Promise<LedgerInsertResult> => this.write('insertLedger', entries);
  queryLedger = (query: LedgerQuery = {}): Promise<Page<LedgerRow>> => this.read('queryLedger', ledgerQuerySchema.parse(query));
  balanceSeries = (query: LedgerQuery = {}): Promise<BalancePoint[]> => this.read('balanceSeries', ledgerQuerySchema.parse(query));
  /** createdAt of the newest ledger entry held: the high-water mark for the next ledger poll. */
  latestLedgerCreatedAt = (): Promise<string | null> => this.read('latestLedgerCreatedAt');

  // ---- recipients

  listRecipients = (): Promise<Recipient[]> => this.read('listRecipients');
  getRecipient = (id: string): Promise<Recipient | null> => this.read('getRecipient', id);
  /** Creates (no id) or renames/re-points (id) a recipient. The trade URL is stored as given: validate it first. */
  saveRecipient = (input: { id?: string; label: string; tradeUrl: string }): Promise<Recipient> => this.write('saveRecipient', recipientInputSchema.parse(input));
  deleteRecipient = (id: string): Promise<{ deleted: boolean }> => this.write('deleteRecipient', id);

  // ---- saved searches

  listSearches = (): Promise<SavedSearchList> => this.read('listSearches');
  /** Creates (no id) or renames/replaces (id) a saved search; a taken name rejects with StoreError 'conflict', a deleted id with 'not_found'. */
  saveSearch = async (input: SavedSearchInput): Promise<SavedSearch> => this.write('saveSearch', savedSearchInputSchema.parse(input));
  deleteSearch = (id: string): Promise<{ deleted: boolean }> => this.write('deleteSearch', id);

  // ---- alert rules and firings

  listAlertRules = (): Promise<AlertRule[]> => this.read('listAlertRules');
  getAlertRule = (id: string): Promise<AlertRule | null> => this.read('getAlertRule', id);
  /** Creates or updates a rule; an update keeps createdAt and what auto-buy has spent. */
  saveAlertRule = (input: AlertRuleInput): Promise<AlertRule> => this.write('saveAlertRule', alertRuleInputSchema.parse(input));
  deleteAlertRule = (id: string): Promise<{ deleted: boolean }> => this.write('deleteAlertRule', id);
  setAlertRuleEnabled = (id: string, enabled: boolean): Promise<AlertRule | null> => this.write('setAlertRuleEnabled', id, enabled);
  /** Adds to a rule's auto-buy spend (after a purchase it made). */
  addAlertRuleSpend = (id: string, cents: number): Promise<AlertRule | null> => this.write('addAlertRuleSpend', id, cents);
  /** Records a firing; null when this rule already fired for this item at this price (dedupe). */
  recordFiring = (input: FiringInput): Promise<AlertFiring | null> => this.write('recordFiring', input);
  listFirings = (query: FiringQuery = {}): Promise<AlertFiring[]> => this.read('listFirings', query);
  /** `ruleId:itemId:price` of every stored firing. */
  firingKeys = (): Promise<string[]> => this.read('firingKeys');
  unacknowledgedFiringCount = (): Promise<number> => this.read('unacknowledgedFiringCount');
  acknowledgeFiring = (id: string): Promise<AlertFiring | null> => this.write('acknowledgeFiring', id);
  acknowledgeAllFirings = (): Promise<{ acknowledged: number }> => this.write('acknowledgeAllFirings');
  setFiringAutoBuy = (id: string, autoBuy: { tradeId: string | null; error: string | null }): Promise<AlertFiring | null> => this.write('setFiringAutoBuy', id, autoBuy);
  /** Forgets a rule's firings, so the same item and price can fire again (re-arm). */
  deleteFiringsForRule = (ruleId: string): Promise<{ deleted: number }> => this.write('deleteFiringsForRule', ruleId);
  /** Per rule: auto-buy spend and skips on firings since `sinceIso` (the guard rails' day). */
  autoBuyDay = (sinceIso: string): Promise<AutoBuyDayRow[]> => this.read('autoBuyDay', sinceIso);
  autoBuySkips = (limit = 500): Promise<AutoBuySkipRow[]> => this.read('autoBuySkips', limit);
  /** `ruleId:itemId` of the listings "only new listings" holds back. */
  autoBuyBaseline = (): Promise<string[]> => this.read('autoBuyBaseline');
  setAutoBuyBaseline = (ruleId: string, itemIds: number[]): Promise<{ stored: number }> => this.write('setAutoBuyBaseline', ruleId, itemIds);

  // ---- notification centre

  /** The notification centre's repository (see notifications.ts). */
  readonly notifications: NotificationRepository = {
    insert: (list) => this.write('insertNotifications', list),
    // async: bad input rejects like any other failure of the call.
    list: async (query = {}) => this.read('listNotifications', notificationQuerySchema.parse(query)),
    markRead: async (input) => this.write('markNotificationsRead', notificationMarkReadSchema.parse(input)),
    unreadCount: () => this.read('unreadNotificationCount'),
  };

  // ---- settings and meta

  getSettings = (): Promise<AppSettings> => this.read('getSettings');
  updateSettings = (patch: Partial<AppSettings>): Promise<AppSettings> => this.write('updateSettings', settingsPatchSchema.parse(patch));

  getMeta<T = unknown>(key: string): Promise<T | null> {
    return this.read('getMeta', key) as Promise<T | null>;
  }

  /** Stores any JSON value under a key (cursors, high-water marks). */
  setMeta = (key: string, value: unknown): Promise<void> => this.write('setMeta', key, value);
}

function toUrl(entry: URL | string): URL {
  if (entry instanceof URL) return entry;
  return entry.startsWith('file:') ? new URL(entry) : pathToFileURL(entry);
}

/** For diagnostics: the file a worker entry URL points at. */
export function workerEntryPath(entry: URL = resolveWorkerEntry()): string {
  return fileURLToPath(entry);
}
