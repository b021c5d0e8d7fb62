/** Entry of a store worker thread (writer or reader, per workerData.role): answers the host's calls one at a time. */
import { parentPort, workerData } from 'node:worker_threads';
import { classifySqliteError, serializeError } from '../errors';
import {
  STORE_METHODS,
  type HostMessage,
  type StoreMethodOwner,
  type WorkerInit,
  type WorkerMessage,
} from '../protocol';
import type { CatalogSyncProgress, CatalogSyncRequest, TradeWindowRequest } from '../types';
import { ReaderService, SNAPSHOT_READS } from './reader';
import { WriterService } from './writer';

function post(message: WorkerMessage): void {
  parentPort?.postMessage(message);
}

function main(): void {
  const port = parentPort;
  if (!port) throw new Error('storeWorker must run as a worker thread');
  const init = workerData as WorkerInit;
  if (init.role === 'writer') {
    serve(port, init);
    return;
  }
  // A reader opens the file once the host says the writer has prepared it (WorkerInit).
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
    post({ kind: 'result', id: 0, ok: false, error: serializeError(error) });
    return;
  }
  post({ kind: 'result', id: 0, ok: true, value: service instanceof WriterService ? service.migratedFrom : null });

  // The object that serves each method of this thread's role.
  const owners: Partial<Record<StoreMethodOwner, object>> =
    service instanceof WriterService ? { catalog: service.catalog, records: service.records } : { reader: service };
  const targets = new Map<string, Record<string, (...args: unknown[]) => unknown>>(
    Object.entries(STORE_METHODS).flatMap(([owner, methods]) => {
      const target = owners[owner as StoreMethodOwner] as Record<string, (...args: unknown[]) => unknown> | undefined;
      return target ? methods.map((method) => [method, target] as const) : [];
    }),
  );
  const aborts = new Map<number, AbortController>();
  const fail = (id: number, error: unknown) =>
    post({ kind: 'result', id, ok: false, error: serializeError(classifySqliteError(error, init.file)) });

  port.on('message', (message: HostMessage) => {
    if (message.kind === 'abort') aborts.get(message.id)?.abort();
    if (message.kind === 'close') {
      for (const controller of aborts.values()) controller.abort();
      try {
        service.close();
        post({ kind: 'result', id: message.id, ok: true, value: null });
      } catch (error) {
        fail(message.id, error);
      }
      port.close();
    }
    if (message.kind !== 'call') return;
    const { id, method, args } = message;
    try {
      if ((method === 'syncCatalog' || method === 'streamTradeWindow') && service instanceof WriterService) {
        const controller = new AbortController();
        aborts.set(id, controller);
        const context = {
          signal: controller.signal,
          progress: (progress: CatalogSyncProgress) => post({ kind: 'progress', id, progress }),
        };
        (method === 'syncCatalog'
          ? service.syncCatalog(args[0] as CatalogSyncRequest, context)
          : service.streamTradeWindow(args[0] as TradeWindowRequest, context)
        )
          .then(
            (value) => post({ kind: 'result', id, ok: true, value }),
            (error: unknown) => fail(id, error),
          )
          .finally(() => aborts.delete(id));
        return;
      }
      const target = targets.get(method);
      if (!target) throw new Error(`unknown ${init.role} method ${method}`);
      const answer = () => {
        try {
          const value = (target[method] as (...args: unknown[]) => unknown).apply(target, args);
          post({ kind: 'result', id, ok: true, value: value === undefined ? null : value });
        } catch (error) {
          fail(id, error);
        }
      };
      // A catalog read while a large change is patched in steps waits for the last step; every other read goes now.
      if (service instanceof ReaderService && SNAPSHOT_READS.has(method) && !service.snapshotCaughtUp())
        service.whenCaughtUp(answer);
      else answer();
    } catch (error) {
      fail(id, error);
    }
  });
}

main();
