/**
 * The store under test in a process of its own (storeChild.ts), so that a "kill" is a real crash: SIGKILL,
 * no close, the WAL and its index left as they were. Both the child and the store worker are bundled once
 * (test/support/bundle.ts): a start then costs ~0.2 s instead of tsx compiling the sources.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Item } from '../../../src/shared/api';
import type { CatalogInfo, CatalogRow, ItemDetail, Page } from '../../../src/shared/ipc';
import type { CatalogQuery } from '../../../src/shared/ipc/contract';
import type { CatalogSyncResult, ItemChangeGroup, ItemChangeGroupResult } from '../../../src/main/core/store';
import { bundleForNode, STORE_WORKER_SOURCE } from '../../support/bundle';

export interface StoreBundles {
  child: string;
  worker: URL;
  dispose(): void;
}

export async function bundleStore(): Promise<StoreBundles> {
  const { files, dispose } = await bundleForNode({
    storeWorker: STORE_WORKER_SOURCE,
    storeChild: join(import.meta.dirname, 'storeChild.ts'),
  });
  return { child: fileURLToPath(files.storeChild), worker: files.storeWorker, dispose };
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: { name: string; message: string; code: unknown };
}

export class StoreCallError extends Error {
  constructor(
    readonly method: string,
    readonly errorName: string,
    message: string,
    readonly code: unknown,
  ) {
    super(`${method}: ${errorName}: ${message}`);
  }
}

/** A LocalStore in a child process, with the methods the model test calls. */
export class StoreProcess {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { method: string; resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private exitError: Error | null = null;
  private readonly exited: Promise<void>;
  private stderr = '';

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((done) => child.once('exit', () => done()));
    child.on('message', (message: Reply) => {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      if (message.ok) call.resolve(message.value);
      else
        call.reject(
          new StoreCallError(
            call.method,
            message.error?.name ?? 'Error',
            message.error?.message ?? '',
            message.error?.code ?? null,
          ),
        );
    });
    child.once('exit', (code, signal) => {
      this.exitError = new Error(`store process exited (${signal ?? code}): ${this.stderr.slice(-2000)}`);
      for (const call of this.pending.values()) call.reject(this.exitError);
      this.pending.clear();
    });
  }

  static async start(file: string, bundles: StoreBundles): Promise<StoreProcess> {
    const child = spawn(process.execPath, [bundles.child, file, bundles.worker.href], {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const store = new StoreProcess(child);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (store.stderr += chunk));
    await new Promise<void>((done, fail) => {
      child.once('message', (message: { ready?: boolean; error?: string }) =>
        message.ready ? done() : fail(new Error(`store did not open: ${message.error}`)),
      );
      child.once('exit', (code, signal) =>
        fail(new Error(`store process exited before it was ready (${signal ?? code}): ${store.stderr.slice(-2000)}`)),
      );
    });
    return store;
  }

  private call<T>(method: string, ...args: unknown[]): Promise<T> {
    if (this.exitError) return Promise.reject(this.exitError);
    const id = this.nextId++;
    return new Promise<T>((done, fail) => {
      this.pending.set(id, { method, resolve: done as (value: unknown) => void, reject: fail });
      this.child.send({ id, method, args });
    });
  }

  applyItemChanges = (groups: ItemChangeGroup[]) => this.call<ItemChangeGroupResult[]>('applyItemChanges', groups);
  syncCatalog = (request: { url: string; headers: Record<string, string> }) =>
    this.call<CatalogSyncResult>('syncCatalog', request);
  queryCatalog = (query: CatalogQuery) => this.call<Page<CatalogRow>>('queryCatalog', query);
  getItem = (itemId: number) => this.call<ItemDetail | null>('getItem', itemId);
  findItemsByIds = (itemIds: number[]) => this.call<Item[]>('findItemsByIds', itemIds);
  catalogInfo = () => this.call<CatalogInfo>('catalogInfo');

  /** The store's own close, then the process ends. */
  async close(): Promise<void> {
    if (this.exitError) return;
    await this.call('close').catch(() => undefined);
    await this.exited;
  }

  /** A crash: SIGKILL, nothing closed. */
  async kill(): Promise<void> {
    if (!this.exitError) this.child.kill('SIGKILL');
    await this.exited;
  }
}
