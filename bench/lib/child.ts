import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BENCH_DIR, ROOT_DIR } from './result';
import { join } from 'node:path';

export interface ChildOptions {
  env?: NodeJS.ProcessEnv;
  /** Extra node flags (e.g. --max-old-space-size=8192, --cpu-prof). */
  nodeArgs?: string[];
  /** Pin the child to these CPUs with taskset (when taskset exists). */
  cpus?: string;
  /** Kill the child after this long (default 20 min). */
  timeoutMs?: number;
}

export interface ChildMessage {
  type: string;
  [key: string]: unknown;
}

/** A node child running a TypeScript file under tsx, with an IPC channel for JSON messages. */
export class BenchChild {
  readonly process: ChildProcess;
  private readonly queue: ChildMessage[] = [];
  private waiters: { type: string; resolve: (m: ChildMessage) => void; reject: (e: Error) => void }[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(script: string, args: string[] = [], options: ChildOptions = {}) {
    const file = script.startsWith('/') ? script : join(BENCH_DIR, script);
    // BENCH_CPU_PROF=<dir>: every child writes a V8 CPU profile there (summarize with bench/lib/profile-summary.ts).
    const profile = process.env['BENCH_CPU_PROF']
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`]
      : [];
    const nodeArgv = [...profile, ...(options.nodeArgs ?? []), '--import', 'tsx', file, ...args];
    const useTaskset = options.cpus !== undefined && existsSync('/usr/bin/taskset');
    const command = useTaskset ? '/usr/bin/taskset' : process.execPath;
    const argv = useTaskset ? ['-c', options.cpus as string, process.execPath, ...nodeArgv] : nodeArgv;
    this.process = spawn(command, argv, {
      cwd: ROOT_DIR,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.process.on('message', (message: ChildMessage) => {
      const index = this.waiters.findIndex(
        (w) => w.type === message.type || (message.type === 'error' && w.type !== 'error'),
      );
      if (index >= 0) {
        const [waiter] = this.waiters.splice(index, 1);
        if (message.type === 'error' && waiter?.type !== 'error')
          waiter?.reject(new Error(`child ${script}: ${String(message['message'])}`));
        else waiter?.resolve(message);
      } else {
        this.queue.push(message);
      }
    });
    this.exited = new Promise((resolve) => {
      this.process.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        clearTimeout(this.timer);
        for (const waiter of this.waiters.splice(0)) {
          waiter.reject(
            new Error(`child ${script} exited (code ${code}, signal ${signal}) before sending '${waiter.type}'`),
          );
        }
        resolve({ code, signal });
      });
    });
    this.timer = setTimeout(() => this.process.kill('SIGKILL'), options.timeoutMs ?? 20 * 60_000);
  }

  get pid(): number {
    return this.process.pid as number;
  }

  /** The next message of this type (an 'error' message from the child rejects). */
  next<T extends ChildMessage = ChildMessage>(type: string): Promise<T> {
    const index = this.queue.findIndex((m) => m.type === type || m.type === 'error');
    if (index >= 0) {
      const [message] = this.queue.splice(index, 1) as [ChildMessage];
      if (message.type === 'error' && type !== 'error')
        return Promise.reject(new Error(`child: ${String(message['message'])}`));
      return Promise.resolve(message as T);
    }
    if (this.exitInfo)
      return Promise.reject(new Error(`child exited (code ${this.exitInfo.code}) before sending '${type}'`));
    return new Promise<T>((resolve, reject) =>
      this.waiters.push({ type, resolve: resolve as (m: ChildMessage) => void, reject }),
    );
  }

  send(message: ChildMessage): void {
    this.process.send(message);
  }

  async stop(): Promise<void> {
    if (this.exitInfo) return;
    try {
      this.send({ type: 'stop' });
    } catch {
      // channel already closed
    }
    const timer = setTimeout(() => this.process.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Runs a child to completion and returns its 'result' message. */
export async function runChild<T extends ChildMessage>(
  script: string,
  args: string[] = [],
  options: ChildOptions = {},
): Promise<T> {
  const child = new BenchChild(script, args, options);
  try {
    const result = await child.next<T>('result');
    await child.exited;
    return result;
  } catch (error) {
    child.process.kill('SIGKILL');
    throw error;
  }
}

/** Child side: send a message to the parent (no-op when run by hand). */
export function toParent(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) {
      console.log(JSON.stringify(message));
      resolve();
      return;
    }
    process.send(message, undefined, {}, () => resolve());
  });
}

/** Child side: run `main`, send its value as {type:'result', ...value}, report a failure as {type:'error'}. */
export function childMain(main: () => Promise<Record<string, unknown>>): void {
  main()
    .then(async (value) => {
      await toParent({ ...value, type: 'result' });
      process.disconnect?.();
      process.exit(0);
    })
    .catch(async (error: unknown) => {
      console.error(error);
      await toParent({
        type: 'error',
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      process.exit(1);
    });
}

/** Child side: resolves when the parent sends {type:'stop'} or goes away. */
export function parentStop(): Promise<void> {
  return new Promise((resolve) => {
    process.on('message', (message: ChildMessage) => {
      if (message.type === 'stop') resolve();
    });
    process.on('disconnect', () => resolve());
  });
}
