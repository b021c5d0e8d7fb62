import { RATE_LIMITS, RATE_LIMIT_WINDOW_MS, type RateBucket } from '../../../shared/api';
import type { RateLimitStatus } from '../../../shared/ipc/models';

export interface LimiterTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ClientRateLimiterOptions {
  now?: () => number;
  timers?: LimiterTimers;
  limits?: Record<RateBucket, number>;
  windowMs?: number;
  /** Extra time a granted request is counted, for clock skew and transit between us and the server. */
  marginMs?: number;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  detach: () => void;
}

const BUCKETS: readonly RateBucket[] = ['catalog', 'default'];
const DEFAULT_MARGIN_MS = 250;

const realTimers: LimiterTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/**
 * The client side of the API's per-merchant limits, one per account and shared
 * by everything that calls the API: a sliding window of grant times per
 * bucket. `acquire` grants at once when a slot is free, else queues (FIFO)
 * until the oldest grant leaves the window, so the app never sends more than
 * the server allows. A server 429/503 sets a backoff all acquires wait out.
 */
export class ClientRateLimiter {
  readonly #now: () => number;
  readonly #timers: LimiterTimers;
  readonly #limits: Record<RateBucket, number>;
  readonly #holdMs: number;
  readonly #granted: Record<RateBucket, number[]> = { catalog: [], default: [] };
  readonly #waiters: Record<RateBucket, Waiter[]> = { catalog: [], default: [] };
  readonly #listeners = new Set<(status: RateLimitStatus) => void>();
  #backoffUntil = 0;
  #timer: { handle: unknown; at: number } | null = null;
  #emitQueued = false;

  constructor(options: ClientRateLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#timers = options.timers ?? realTimers;
    this.#limits = options.limits ?? RATE_LIMITS;
    this.#holdMs = (options.windowMs ?? RATE_LIMIT_WINDOW_MS) + (options.marginMs ?? DEFAULT_MARGIN_MS);
  }

  /** The clock this limiter reads; backoff deadlines are on it. */
  now(): number {
    return this.#now();
  }

  acquire(bucket: RateBucket, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.tryAcquire(bucket)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const queue = this.#waiters[bucket];
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        reject(abortReason(signal as AbortSignal));
        this.#schedule();
      };
      const waiter: Waiter = { resolve, reject, detach: () => signal?.removeEventListener('abort', onAbort) };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.#schedule();
    });
  }

  /**
   * Grants a slot now when one is free and nobody queues for it; false otherwise (nothing queued). Lets a
   * call go out in the same task that asked for it: a buy's request is written before anything the
   * caller's task does next (see MerchantApiClient#call).
   */
  tryAcquire(bucket: RateBucket): boolean {
    const now = this.#now();
    this.#expire(bucket, now);
    if (this.#waiters[bucket].length > 0 || !this.#canGrant(bucket, now)) return false;
    this.#grant(bucket, now);
    return true;
  }

  /** The server asked us to wait (429 or 503): nothing is granted before `untilMs`. */
  noteBackoff(untilMs: number): void {
    if (untilMs <= this.#backoffUntil) return;
    this.#backoffUntil = untilMs;
    this.#emitSoon();
    this.#schedule();
  }

  status(): RateLimitStatus {
    const now = this.#now();
    for (const bucket of BUCKETS) this.#expire(bucket, now);
    return {
      catalogRemaining: Math.max(0, this.#limits.catalog - this.#granted.catalog.length),
      catalogLimit: this.#limits.catalog,
      defaultRemaining: Math.max(0, this.#limits.default - this.#granted.default.length),
      defaultLimit: this.#limits.default,
      backoffUntil: this.#backoffUntil > now ? new Date(this.#backoffUntil).toISOString() : null,
    };
  }

  /** Called (coalesced, after the current task) whenever `status()` changes; returns the unsubscribe. */
  onChange(listener: (status: RateLimitStatus) => void): () => void {
    this.#listeners.add(listener);
    this.#schedule();
    return () => {
      this.#listeners.delete(listener);
      this.#schedule();
    };
  }

  #canGrant(bucket: RateBucket, now: number): boolean {
    return now >= this.#backoffUntil && this.#granted[bucket].length < this.#limits[bucket];
  }

  #grant(bucket: RateBucket, now: number): void {
    this.#granted[bucket].push(now);
    this.#emitSoon();
    if (this.#listeners.size > 0) this.#schedule();
  }

  #expire(bucket: RateBucket, now: number): void {
    const stamps = this.#granted[bucket];
    let expired = 0;
    while (expired < stamps.length && (stamps[expired] as number) + this.#holdMs <= now) expired++;
    if (expired > 0) {
      stamps.splice(0, expired);
      this.#emitSoon();
    }
  }

  #pump(): void {
    const now = this.#now();
    if (this.#backoffUntil !== 0 && this.#backoffUntil <= now) {
      this.#backoffUntil = 0;
      this.#emitSoon();
    }
    for (const bucket of BUCKETS) {
      this.#expire(bucket, now);
      const queue = this.#waiters[bucket];
      while (queue.length > 0 && this.#canGrant(bucket, now)) {
        const waiter = queue.shift() as Waiter;
        waiter.detach();
        this.#grant(bucket, now);
        waiter.resolve();
      }
    }
  }

  /** The next moment something changes that a waiter or a listener cares about; null when nothing will. */
  #nextWake(): number | null {
    const listening = this.#listeners.size > 0;
    let wake = Infinity;
    for (const bucket of BUCKETS) {
      const oldest = this.#granted[bucket][0];
      if (this.#waiters[bucket].length > 0) {
        const slotFreeAt = this.#granted[bucket].length < this.#limits[bucket] ? 0 : (oldest as number) + this.#holdMs;
        wake = Math.min(wake, Math.max(slotFreeAt, this.#backoffUntil));
      }
      if (listening && oldest !== undefined) wake = Math.min(wake, oldest + this.#holdMs);
    }
    if (listening && this.#backoffUntil > 0) wake = Math.min(wake, this.#backoffUntil);
    return wake === Infinity ? null : wake;
  }

  #schedule(): void {
    const wake = this.#nextWake();
    if (this.#timer && this.#timer.at === wake) return;
    if (this.#timer) this.#timers.clearTimeout(this.#timer.handle);
    this.#timer = null;
    if (wake === null) return;
    const handle = this.#timers.setTimeout(() => {
      this.#timer = null;
      this.#pump();
      this.#schedule();
    }, Math.max(0, wake - this.#now()));
    // Waking only to refresh a status display must not keep the process alive.
    if (!BUCKETS.some((bucket) => this.#waiters[bucket].length > 0)) (handle as { unref?: () => void }).unref?.();
    this.#timer = { handle, at: wake };
  }

  #emitSoon(): void {
    if (this.#emitQueued || this.#listeners.size === 0) return;
    this.#emitQueued = true;
    queueMicrotask(() => {
      this.#emitQueued = false;
      const status = this.status();
      for (const listener of this.#listeners) listener(status);
    });
  }
}
