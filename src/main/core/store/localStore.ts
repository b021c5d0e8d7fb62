/**
 * LocalStore: the host's face of an account's SQLite cache, calls to its writer and reader threads (README.md).
 * The worker entry: from TypeScript source (vitest, tsx) worker/bootstrap.mjs, which registers tsx in the
 * thread; in a bundle, `storeWorker.js` beside the chunk holding this module (electron.vite.config.ts emits it).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPrivateFile, PRIVATE_DIR_MODE } from '../privateFiles';
import { AutoBuyJournal } from './autoBuyJournal';
import { closedError, readOnlyError, StoreError } from './errors';
import { SCHEMA_VERSION } from './schema';
import { STORE_METHODS, type StoreCalls } from './protocol';
import type {
  AutoBuyRecordInput,
  AutoBuySettled,
  AutoBuySettlement,
  CatalogSyncProgress,
  CatalogSyncRequest,
  CatalogSyncResult,
  TradeWindowRequest,
  TradeWindowResult,
} from './types';
import { WorkerClient, type CallExtras } from './workerClient';

export interface LocalStoreOptions {
  /** The SQLite file; its folder is created. */
  file: string;
  /** The worker entry to start; see the comment at the top of this file. */
  workerEntry?: URL;
}

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

export interface CatalogSyncOptions extends CatalogSyncRequest {
  signal?: AbortSignal;
}

/** An open store: its calls (StoreCalls, one per worker method) and the handful below. */
export type LocalStore = StoreCalls & StoreHandle;

class StoreHandle {
  private closed = false;

  constructor(
    readonly file: string,
    /** The schema version the file had before this open migrated it; null when it was current. */
    readonly migratedFrom: number | null,
    private readonly writer: WorkerClient,
    private readonly reader: WorkerClient,
    private readonly journal: AutoBuyJournal,
  ) {
    for (const [owner, methods] of Object.entries(STORE_METHODS)) {
      const client = owner === 'reader' ? reader : writer;
      // A call this class defines itself (settleAutoBuy) wraps the worker's.
      for (const method of methods)
        if (!(method in this))
          (this as Record<string, unknown>)[method] = (...args: unknown[]) => this.call(client, method, args);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.reader.close();
    await this.writer.close();
    this.journal.close();
  }

  /**
   * An auto-buy about to be sent, written to the journal (AutoBuyJournal) before this returns: call it in the task
   * that sends the request. Throws when it cannot be written; then nothing may be sent.
   */
  journalAutoBuy(record: AutoBuyRecordInput): void {
    if (this.closed) throw closedError();
    this.journal.append(record);
  }

  /** What became of an auto-buy (the writer's settleAutoBuy); once every journaled buy's outcome is stored the journal is emptied. */
  settleAutoBuy(settlement: AutoBuySettlement): Promise<AutoBuySettled> {
    const settled = this.call<AutoBuySettled>(this.writer, 'settleAutoBuy', [settlement]);
    const stored = (ok: boolean) => !this.closed && this.journal.stored(settlement.externalId, ok);
    settled.then(
      () => stored(true),
      () => stored(false),
    );
    return settled;
  }

  private call<T>(client: WorkerClient, method: string, args: unknown[], extras?: CallExtras): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    return client.call<T>(method, args, extras);
  }

  /**
   * Downloads the whole on-sale list in the writer thread and makes it the catalog in one transaction at the
   * end; progress at most ~10 times a second. A non-2xx answer resolves `{ ok: false, … }`; a network failure,
   * a cancel or an unreadable body rejects with CatalogSyncError and leaves the previous catalog as it was.
   */
  syncCatalog(
    options: CatalogSyncOptions,
    onProgress?: (progress: CatalogSyncProgress) => void,
  ): Promise<CatalogSyncResult> {
    const { signal, ...request } = options;
    return this.call(this.writer, 'syncCatalog', [request], { signal, onProgress });
  }

  /**
   * A new cache's first fill: the 14-day window streamed and stored in the writer thread, in chunks
   * (worker/tradeWindow.ts). A non-2xx answer resolves `{ ok: false, … }`; a network failure, a cancel or a trade
   * not in the API's shape rejects with CatalogSyncError, the chunks before it stored and no fill position written.
   */
  streamTradeWindow(
    options: TradeWindowRequest & { signal?: AbortSignal },
    onProgress?: (progress: CatalogSyncProgress) => void,
  ): Promise<TradeWindowResult> {
    const { signal, ...request } = options;
    return this.call(this.writer, 'streamTradeWindow', [request], { signal, onProgress });
  }
}

export const LocalStore = {
  /** The schema version this build writes. */
  schemaVersion: SCHEMA_VERSION,

  /**
   * Opens (creating and migrating as needed) the store. Fails with a StoreError coded `version` (a file from a newer
   * app), `corrupt` or `read_only`; the file is never deleted or rewritten on failure.
   */
  async open(options: LocalStoreOptions): Promise<LocalStore> {
    const { file } = options;
    try {
      mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
    } catch (error) {
      throw readOnlyError(file, `cannot create its folder: ${(error as Error).message}`);
    }
    // Owner-only before SQLite opens it; SQLite gives its -wal and -shm the same mode.
    createPrivateFile(file);
    const entry = options.workerEntry ?? resolveWorkerEntry();
    // The writer creates and migrates the file the reader then opens read-only. The reader's thread boots
    // meanwhile (loading its code is most of a cold open) and opens the file once it is ready.
    const writerStart = WorkerClient.start({ entry, init: { role: 'writer', file } });
    const readerStart = WorkerClient.start({ entry, init: { role: 'reader', file }, openWhen: writerStart });
    const [writer, reader] = await Promise.allSettled([writerStart, readerStart]);
    if (writer.status === 'rejected' || reader.status === 'rejected') {
      await Promise.all(
        [writer, reader].map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.client.close() : undefined)),
      );
      throw writer.status === 'rejected' ? writer.reason : (reader as PromiseRejectedResult).reason;
    }
    // Auto-buys whose requests were out when the app last stopped: in flight in the table, to be looked up.
    let journal: AutoBuyJournal | null = null;
    try {
      const opened = AutoBuyJournal.open(`${file}.auto-buys`);
      journal = opened.journal;
      if (opened.lines.length > 0) {
        await writer.value.client.call('replayAutoBuys', [opened.lines]);
        journal.clear();
      }
    } catch (error) {
      journal?.close();
      await Promise.all([writer.value.client.close(), reader.value.client.close()]);
      throw error instanceof StoreError
        ? error
        : readOnlyError(file, `cannot open its auto-buy journal: ${(error as Error).message}`);
    }
    return new StoreHandle(
      file,
      writer.value.migratedFrom,
      writer.value.client,
      reader.value.client,
      journal,
    ) as unknown as LocalStore;
  },
};
