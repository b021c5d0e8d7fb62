/**
 * Entry of a store worker thread (writer or reader, per workerData.role).
 * Serves `{kind:'call', id, method, args}` messages one at a time with
 * `{kind:'result', id, ok, value | error}`; syncCatalog also sends
 * `{kind:'progress'}` messages and honours `{kind:'abort'}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { classifySqliteError, serializeError, StoreClosedError } from '../errors';
import { SCHEMA_VERSION } from '../schema';
import type { HostMessage, ReaderMethods, WorkerInit, WorkerMessage, WriterMethods } from '../types';
import { ReaderService } from './reader';
import { WriterService } from './writer';

/** The methods each role serves (records of every method name: the compiler finds one left out). */
const WRITER_METHODS: Record<keyof WriterMethods, true> = {
  applyItemUpserts: true, applyItemRemovals: true, applyPriceChanges: true, applyItemChanges: true, upsertTrades: true, applyTradeUpdate: true,
  insertLedger: true, saveRecipient: true, deleteRecipient: true, saveAlertRule: true, deleteAlertRule: true, setAlertRuleEnabled: true,
  addAlertRuleSpend: true, recordFiring: true, acknowledgeFiring: true, acknowledgeAllFirings: true, setFiringAutoBuy: true,
  deleteFiringsForRule: true, setAutoBuyBaseline: true, updateSettings: true, setMeta: true, insertNotifications: true, markNotificationsRead: true,
  saveSearch: true, deleteSearch: true, syncCatalog: true,
};
const READER_METHODS: Record<keyof ReaderMethods, true> = {
  queryCatalog: true, getItem: true, findItemsByIds: true, matchingItemIds: true, catalogInfo: true, queryTrades: true, getTrade: true, activeTrades: true,
  findTradeByExternalId: true, queryLedger: true, balanceSeries: true, latestLedgerCreatedAt: true, listRecipients: true, getRecipient: true,
  listAlertRules: true, getAlertRule: true, listFirings: true, firingKeys: true, unacknowledgedFiringCount: true, autoBuyDay: true,
  autoBuySkips: true, autoBuyBaseline: true, getSettings: true, getMeta: true, listNotifications: true, unreadNotificationCount: true,
  listSearches: true,
};

function post(message: WorkerMessage): void {
  parentPort?.postMessage(message);
}

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('storeWorker must run as a worker thread');
  const init = workerData as WorkerInit;
  if (!init.deferOpen) {
    serve(port, init);
    return;
  }
  // Booted early (see WorkerInit.deferOpen): open the file when the host says the writer is ready.
  port.once('message', (message: HostMessage) => {
    if (message.kind === 'open') serve(port, init);
    else port.close();
  });
}

function serve(port: NonNullable<typeof parentPort>, init: WorkerInit): void {
  let service: WriterService | ReaderService;
  try {
    service = init.role === 'writer' ? new WriterService(init.file) : new ReaderService(init.file);
  } catch (error) {
    post({ kind: 'init-error', error: serializeError(error) });
    return;
  }
  post({ kind: 'ready', schemaVersion: SCHEMA_VERSION, migratedFrom: service instanceof WriterService ? service.migratedFrom : null });

  const allowed = new Set<string>(Object.keys(init.role === 'writer' ? WRITER_METHODS : READER_METHODS));
  const aborts = new Map<number, AbortController>();
  let closed = false;

  const fail = (id: number, error: unknown) => {
    post({ kind: 'result', id, ok: false, error: serializeError(classifySqliteError(error, init.file)) });
  };

  port.on('message', (message: HostMessage) => {
    if (message.kind === 'open') return;
    if (message.kind === 'abort') {
      aborts.get(message.id)?.abort();
      return;
    }
    if (message.kind === 'close') {
      for (const controller of aborts.values()) controller.abort();
      if (!closed) {
        closed = true;
        try {
          service.close();
        } catch (error) {
          fail(message.id, error);
          return;
        }
      }
      post({ kind: 'result', id: message.id, ok: true, value: null });
      port.close();
      return;
    }
    const { id, method, args } = message;
    if (closed) {
      fail(id, new StoreClosedError());
      return;
    }
    if (!allowed.has(method)) {
      fail(id, new Error(`unknown ${init.role} method ${method}`));
      return;
    }
    const started = performance.now();
    const done = (value: unknown) => {
      const ms = performance.now() - started;
      if (ms >= init.slowCallMs) post({ kind: 'slow', method, ms: Math.round(ms) });
      post({ kind: 'result', id, ok: true, value: value === undefined ? null : value });
    };
    try {
      if (method === 'syncCatalog' && service instanceof WriterService) {
        const controller = new AbortController();
        aborts.set(id, controller);
        const [request] = args as Parameters<WriterMethods['syncCatalog']>;
        service
          .syncCatalog(request, { signal: controller.signal, progress: (progress) => post({ kind: 'progress', id, progress }) })
          .then(done, (error: unknown) => fail(id, error))
          .finally(() => aborts.delete(id));
        return;
      }
      // The writer's methods are its catalog's and its records'; a reader's are its own.
      const owners: object[] = service instanceof WriterService ? [service.catalog, service.records] : [service];
      const owner = owners.find((candidate) => typeof (candidate as Record<string, unknown>)[method] === 'function');
      if (!owner) throw new Error(`unknown method ${method}`);
      done(((owner as Record<string, (...a: unknown[]) => unknown>)[method] as (...a: unknown[]) => unknown).apply(owner, args));
    } catch (error) {
      fail(id, error);
    }
  });
}

main();
