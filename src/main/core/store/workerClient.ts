import { Worker } from 'node:worker_threads';
import { closedError, deserializeError, StoreError } from './errors';
import type { HostMessage, WorkerInit, WorkerMessage } from './protocol';
import type { CatalogSyncProgress } from './types';

interface PendingCall {
  method: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: ((progress: CatalogSyncProgress) => void) | undefined;
}

/** A call's progress listener and cancel signal (the catalog sync's). */
export type CallExtras = Pick<PendingCall, 'onProgress'> & { signal?: AbortSignal | undefined };

/** A small young generation: the threads drop short-lived objects fast (−50 MB of a 500k sync's peak RSS). */
const YOUNG_GENERATION_MB = 8;

interface WorkerStartOptions {
  entry: URL;
  init: WorkerInit;
  /** A reader opens the file once this resolves (at once when not given); a rejection ends the thread. */
  openWhen?: Promise<unknown>;
}

/** The host side of one store worker: RPC over postMessage. The thread keeps the process alive only while calls are pending. */
export class WorkerClient {
  private nextId = 1;
  private readonly pending = new Map<number, PendingCall>();
  private failure: Error | null = null;
  private closing: Promise<void> | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    readonly role: WorkerInit['role'],
  ) {
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (message: WorkerMessage) => this.onMessage(message));
    worker.on('error', (error) =>
      this.fail(new StoreError('worker', `the store ${role} thread crashed: ${error.message}`, null, { cause: error })),
    );
    worker.on('exit', (code) =>
      this.fail(
        this.closing ? closedError() : new StoreError('worker', `the store ${role} thread exited (code ${code})`),
      ),
    );
    worker.unref();
  }

  /** Starts a thread; resolves once it has opened the file (`migratedFrom`: see StoreHandle), or rejects with why not. */
  static async start(options: WorkerStartOptions): Promise<{ client: WorkerClient; migratedFrom: number | null }> {
    const { role } = options.init;
    let worker: Worker;
    try {
      worker = new Worker(options.entry, {
        workerData: options.init,
        name: `store-${role}`,
        resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      });
    } catch (error) {
      throw new StoreError('worker', `could not start the store ${role} thread: ${(error as Error).message}`, null, {
        cause: error,
      });
    }
    const client = new WorkerClient(worker, role);
    // The thread's first answer (id 0) says it opened the file, or why not.
    const opened = new Promise<unknown>((resolve, reject) => client.pending.set(0, { method: '', resolve, reject }));
    worker.ref();
    // Not opened when the writer failed: the thread is ended, and the writer's error is the one reported.
    if (role === 'reader')
      void (options.openWhen ?? Promise.resolve()).then(
        () => client.post({ kind: 'open' }),
        () => void worker.terminate(),
      );
    try {
      return { client, migratedFrom: (await opened) as number | null };
    } catch (error) {
      void worker.terminate();
      throw error;
    }
  }

  call<T>(method: string, args: unknown[], { signal, onProgress }: CallExtras = {}): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closing) return Promise.reject(closedError());
    const id = this.nextId++;
    const onAbort = () => this.post({ kind: 'abort', id });
    if (signal?.aborted) queueMicrotask(onAbort);
    else signal?.addEventListener('abort', onAbort, { once: true });
    const result = new Promise<T>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject, onProgress });
      if (this.pending.size === 1) this.worker.ref();
      this.post({ kind: 'call', id, method, args });
    });
    return signal ? result.finally(() => signal.removeEventListener('abort', onAbort)) : result;
  }

  /** Asks the worker to close its connection, then ends the thread. */
  close(): Promise<void> {
    if (this.closing) return this.closing;
    const id = this.nextId++;
    const closed = new Promise<void>((resolve) => {
      this.pending.set(id, { method: 'close', resolve: () => resolve(), reject: () => resolve() });
    });
    this.worker.ref();
    this.post({ kind: 'close', id });
    this.closing = (async () => {
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, 5000).unref());
      await Promise.race([closed, this.exited, timeout]);
      await this.worker.terminate();
      await this.exited;
    })();
    return this.closing;
  }

  private post(message: HostMessage): void {
    try {
      this.worker.postMessage(message);
    } catch (error) {
      this.fail(new StoreError('worker', `could not reach the store ${this.role} thread: ${(error as Error).message}`));
    }
  }

  private onMessage(message: WorkerMessage): void {
    if (message.kind === 'progress') {
      try {
        this.pending.get(message.id)?.onProgress?.(message.progress);
      } catch {
        // A failing progress listener must not take the host down; the call itself goes on.
      }
      return;
    }
    const call = this.pending.get(message.id);
    if (!call) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0 && !this.closing) this.worker.unref();
    if (message.ok) call.resolve(message.value);
    else call.reject(deserializeError(message.error, call.method));
  }

  private fail(error: Error): void {
    if (!this.failure) this.failure = error;
    for (const [id, call] of this.pending) {
      this.pending.delete(id);
      call.reject(error);
    }
  }
}
