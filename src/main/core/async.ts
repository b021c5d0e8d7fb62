// The engine's async patterns, each written once (after VS Code's base/common/async.ts): a throttler for
// single-flight work, a debouncer, a pacer, and timers on an injected clock that all end when their owner stops (the
// account session's). They know nothing of the engine, so alerts/, buy/ and notify/ (which must not import engine/)
// use them too.

export type TimerHandle = unknown;

/** Time and timers. The system clock reads the globals at each call, so a test's fake timers apply. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * One task at a time. `queue` while a task runs asks for one more run after it (the latest task wins, and every
 * caller meanwhile shares that one follow-up); `join` while a task runs (or one is queued) only waits for it.
 * Idle, both run the task at once. The follow-up starts in the same turn the task before it settles.
 */
export class Throttler {
  private active: Promise<void> | null = null;
  private next: { task: () => Promise<void>; run: Promise<void>; settle: (run: Promise<void>) => void } | null = null;

  get busy(): boolean {
    return this.active !== null;
  }

  queue(task: () => Promise<void>): Promise<void> {
    if (!this.active) return this.start(task);
    if (this.next) {
      this.next.task = task;
      return this.next.run;
    }
    let settle!: (run: Promise<void>) => void;
    const run = new Promise<void>((resolve) => (settle = resolve));
    this.next = { task, run, settle };
    return run;
  }

  join(task: () => Promise<void>): Promise<void> {
    return this.next?.run ?? this.active ?? this.start(task);
  }

  private start(task: () => Promise<void>): Promise<void> {
    const run = (async () => task())();
    this.active = run;
    const done = () => {
      this.active = null;
      const next = this.next;
      this.next = null;
      if (next) next.settle(this.start(next.task));
    };
    run.then(done, done);
    return run;
  }
}

/**
 * An owner's timers (the account session's): every one is cleared at `dispose`, and none fires after it. `sleep`
 * resolves early when the timers are disposed, so a loop waiting out a gap ends with its owner.
 */
export class Timers {
  private readonly handles = new Set<TimerHandle>();
  private readonly sleepers = new Set<() => void>();
  private disposed = false;

  constructor(readonly clock: Clock = systemClock) {}

  /** Runs `callback` once after `ms`; returns a function that cancels it. */
  later(ms: number, callback: () => void): () => void {
    if (this.disposed) return () => {};
    const handle = this.clock.setTimeout(() => {
      this.handles.delete(handle);
      if (!this.disposed) callback();
    }, ms);
    this.handles.add(handle);
    return () => {
      if (this.handles.delete(handle)) this.clock.clearTimeout(handle);
    };
  }

  /** Runs `callback` every `ms` (the next period starts after it returns); returns a function that stops it. */
  every(ms: number, callback: () => void): () => void {
    let cancel = () => {};
    let stopped = false;
    const tick = () => {
      cancel = this.later(ms, () => {
        callback();
        if (!stopped) tick();
      });
    };
    tick();
    return () => {
      stopped = true;
      cancel();
    };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.disposed) return resolve();
      const done = () => {
        this.sleepers.delete(done);
        cancel();
        resolve();
      };
      const cancel = this.later(ms, done);
      this.sleepers.add(done);
    });
  }

  dispose(): void {
    this.disposed = true;
    for (const handle of this.handles) this.clock.clearTimeout(handle);
    this.handles.clear();
    for (const wake of [...this.sleepers]) wake();
  }
}

/** Runs `task` once, `delayMs` after the last `schedule()` (each call moves it back). */
export class Debouncer {
  private cancel: (() => void) | null = null;

  constructor(
    private readonly timers: Timers,
    private readonly delayMs: number,
    private readonly task: () => void,
  ) {}

  schedule(): void {
    this.cancel?.();
    this.cancel = this.timers.later(this.delayMs, () => {
      this.cancel = null;
      this.task();
    });
  }

  /** Drops a pending run; true when one was pending. */
  flush(): boolean {
    const pending = this.cancel !== null;
    this.cancel?.();
    this.cancel = null;
    return pending;
  }
}

/** Runs `task` soon after `schedule()`, at once when idle, but at most once every `gapMs`: calls meanwhile share the next run. */
export class Pacer {
  private cancel: (() => void) | null = null;
  private lastRun = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly timers: Timers,
    private readonly gapMs: number,
    private readonly task: () => void,
  ) {}

  schedule(): void {
    if (this.cancel) return;
    const wait = Math.max(0, this.lastRun + this.gapMs - this.timers.clock.now());
    this.cancel = this.timers.later(wait, () => {
      this.cancel = null;
      this.lastRun = this.timers.clock.now();
      this.task();
    });
  }
}
