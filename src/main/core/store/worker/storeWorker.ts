/**
 * Entry of a store worker thread (writer or reader, per workerData.role).
 * Serves `{kind:'call', id, method, args}` messages one at a time with
 * `{kind:'result', id, ok, value | error}`; syncCatalog also sends
 * `{kind:'progress'}` messages and honours `{kind:'abort'}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { classifySqliteError, serializeError, StoreClosedError } from '../errors';
import { SCHEMA_VERSION } from '../migrations';
import type { HostMessage, ReaderMethods, WorkerInit, WorkerMessage, WriterMethods } from '../types';
import { ReaderService } from './reader';
import { WriterService } from './writer';

const WRITER_METHODS: readonly (keyof WriterMethods)[] = [
  'applyItemUpserts',
  'applyItemRemovals',
  'applyPriceChanges',
  'applyItemChanges',
  'upsertTrades',
  'applyTradeUpdate',
  'insertLedger',
  'saveRecipient',
  'deleteRecipient',
  'saveAlertRule',
  'deleteAlertRule',
  'setAlertRuleEnabled',
  'addAlertRuleSpend',
  'recordFiring',
  'acknowledgeFiring',
  'acknowledgeAllFirings',
  'setFiringAutoBuy',
  'deleteFiringsForRule',
  'setAutoBuyBaseline',
  'updateSettings',
  'setMeta',
  'insertNotifications',
  'markNotificationsRead',
  'syncCatalog',
];

const READER_METHODS: readonly (keyof ReaderMethods)[] = [
  'queryCatalog',
  'getItem',
  'findItemsByIds',
  'catalogInfo',
  'queryTrades',
  'getTrade',
  'activeTrades',
  'findTradeByExternalId',
  'queryLedger',
  'balanceSeries',
  'latestLedgerCreatedAt',
  'listRecipients',
  'getRecipient',
  'listAlertRules',
  'getAlertRule',
  'listFirings',
  'firingKeys',
  'unacknowledgedFiringCount',
  'autoBuyDay',
  'autoBuySkips',
  'autoBuyBaseline',
  'getSettings',
  'getMeta',
  'listNotifications',
  'unreadNotificationCount',
  'catalogIndexStatus',
];

/** The writer's idle work (merging the price history's runs) starts once no call came for this long. */
const IDLE_AFTER_MS = 250;

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
    service = init.role === 'writer' ? new WriterService(init.file) : new ReaderService(init.file, { catalogIndex: init.catalogIndex, checkpoint: init.checkpoint === true });
  } catch (error) {
    post({ kind: 'init-error', error: serializeError(error) });
    return;
  }
  post({ kind: 'ready', schemaVersion: SCHEMA_VERSION, migratedFrom: service instanceof WriterService ? service.migratedFrom : null });

  const allowed = new Set<string>(init.role === 'writer' ? WRITER_METHODS : READER_METHODS);
  const aborts = new Map<number, AbortController>();
  let closed = false;

  // Idle work, a slice at a time: queued calls run between slices and push the next quiet moment back.
  let idleTimer: NodeJS.Timeout | null = null;
  const runIdleWork = () => {
    idleTimer = null;
    if (closed || !(service instanceof WriterService)) return;
    try {
      if (service.idleWork()) idleTimer = setTimeout(runIdleWork, 0);
    } catch {
      // Its transaction rolled back whole; the next quiet moment tries again, and a lasting disk fault fails the next call.
    }
  };
  const idleLater = () => {
    if (!(service instanceof WriterService)) return;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = closed ? null : setTimeout(runIdleWork, IDLE_AFTER_MS);
  };

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
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
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
    idleLater();
    const done = (value: unknown) => {
      idleLater();
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
      const fn = (service as unknown as Record<string, (...a: unknown[]) => unknown>)[method];
      if (typeof fn !== 'function') throw new Error(`unknown method ${method}`);
      done(fn.apply(service, args));
    } catch (error) {
      fail(id, error);
    }
  });
}

main();
