import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file in the data directory: one engine per data directory, across processes. */
export const LOCK_FILE = 'merchant-desk.lock';
/** A breaker file older than this was left by a process that died while breaking a stale lock. */
const BREAKER_STALE_MS = 10_000;

interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
  token: string;
}

/** Another live engine holds the data directory. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';

  constructor(
    readonly dataDir: string,
    readonly owner: { pid: number; startedAt: string | null; sameProcess: boolean },
  ) {
    super(
      owner.sameProcess
        ? `The data folder ${dataDir} is already used by another engine in this process; close it first.`
        : `Another Merchant Desk (process ${owner.pid}${owner.startedAt ? `, started ${owner.startedAt}` : ''}) is already using the data folder ${dataDir}. ` +
            'Close it first, or start this one with another data folder (--data-dir). ' +
            `If no other Merchant Desk is running, delete ${join(dataDir, LOCK_FILE)}.`,
    );
  }
}

/** Data directories held by engines of this process (a pid check cannot tell two of ours apart). */
const heldHere = new Set<string>();
/** Locks to give back if the process exits without closing its engines (one listener for all of them). */
const live = new Set<DataDirLock>();
let exitHook = false;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): LockOwner | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockOwner>;
    if (typeof value.pid !== 'number' || typeof value.token !== 'string') return null;
    return {
      pid: value.pid,
      host: String(value.host ?? ''),
      startedAt: String(value.startedAt ?? ''),
      token: value.token,
    };
  } catch {
    return null;
  }
}

function createExclusive(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

/**
 * An exclusive lock on a data directory, so two hosts (two `npm run web`, or Electron and a web host) never
 * run two engines on the same files: that would be two live feeds, two SQLite writers and two rate budgets
 * for one account. A lock file with the owner's pid; released on close and at process exit, and taken over
 * when its pid is dead (a crash or a kill leaves it behind).
 */
export class DataDirLock {
  private released = false;

  private constructor(
    readonly dataDir: string,
    readonly file: string,
    private readonly token: string,
    private readonly key: string,
  ) {}

  /**
   * Takes the lock or throws `DataDirLockedError`. Returns null (and says why through `warn`) when the
   * directory cannot hold a lock file at all (read-only): the engine then runs unlocked and the store
   * reports its own problem.
   */
  static acquire(dataDir: string, warn: (line: string) => void = () => {}): DataDirLock | null {
    let key: string;
    try {
      key = realpathSync(dataDir);
    } catch {
      key = dataDir;
    }
    if (heldHere.has(key))
      throw new DataDirLockedError(dataDir, { pid: process.pid, startedAt: null, sameProcess: true });
    const file = join(dataDir, LOCK_FILE);
    const token = randomUUID();
    const content = `${JSON.stringify({ pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), token } satisfies LockOwner)}\n`;
    try {
      for (let attempt = 0; attempt < 5; attempt++) {
        if (createExclusive(file, content)) {
          heldHere.add(key);
          const lock = new DataDirLock(dataDir, file, token, key);
          live.add(lock);
          if (!exitHook) {
            exitHook = true;
            process.on('exit', () => {
              for (const held of [...live]) held.release();
            });
          }
          return lock;
        }
        const owner = readOwner(file);
        // Another machine's process (a shared folder) cannot be checked: it counts as alive.
        if (owner && (owner.host !== hostname() || (alive(owner.pid) && owner.pid !== process.pid))) {
          throw new DataDirLockedError(dataDir, {
            pid: owner.pid,
            startedAt: owner.startedAt || null,
            sameProcess: false,
          });
        }
        if (!owner && Date.now() - safeMtime(file) < 2_000) {
          // Being written by its creator right now: look again in a moment.
          sleepSync(50);
          continue;
        }
        DataDirLock.breakStale(file, owner?.token ?? null);
      }
    } catch (error) {
      if (error instanceof DataDirLockedError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EROFS' || code === 'EPERM') {
        warn(`data folder lock: cannot write ${file} (${code}); running without the one-engine-per-folder guard`);
        return null;
      }
      throw error;
    }
    throw new Error(`Could not take the lock ${file}: it keeps changing; is another Merchant Desk starting?`);
  }

  /**
   * Removes a stale lock, guarded by a short-lived breaker file so that two processes breaking the same stale
   * lock at once cannot remove the one the faster of them just created.
   */
  private static breakStale(file: string, staleToken: string | null): void {
    const breaker = `${file}.break`;
    if (!createExclusive(breaker, String(process.pid))) {
      if (Date.now() - safeMtime(breaker) > BREAKER_STALE_MS) removeQuietly(breaker);
      else sleepSync(20);
      return;
    }
    try {
      const current = readOwner(file);
      if ((current?.token ?? null) === staleToken) removeQuietly(file);
    } finally {
      removeQuietly(breaker);
    }
  }

  /** Gives the directory back (only our own lock file is removed). Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    live.delete(this);
    heldHere.delete(this.key);
    if (readOwner(this.file)?.token === this.token) removeQuietly(this.file);
  }
}

function safeMtime(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
