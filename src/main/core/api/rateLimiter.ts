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
  /** Extra time an answered request is counted, for clock skew between us and the server. */
  marginMs?: number;
  /** A slot whose request never reports its answer (a lost handle) is taken as answered this long after its grant. */
  unsettledAfterMs?: number;
  /** The share of each bucket's limit `live` and `bulk` requests together may hold at once (default one half). */
  bulkShare?: number;
}

/**
 * `now`: a request someone waits for (a buy, a page the user opened): first in line, never held by the share. `live`:
 * a read a feed frame asked for (a trade the desk does not hold, the ledger after frames): in the bulk share, so a
 * burst of frames never runs the key past its budget, but served before `bulk` and with a reserve of the share
 * `bulk` cannot take. `bulk`: the desk's paging (back-fill, reconcile, ledger sync): it waits while the desk's
 * requests of every kind (a `now` one too) fill the share less that reserve, and behind every other kind, so the
 * desk's own requests leave paging less room, and buys and the merchant's own back end (same key) keep theirs.
 */
export type SlotKind = 'now' | 'live' | 'bulk';

/** What an answer's `X-RateLimit-Limit`, `-Remaining` and `-Reset` (here in ms) say about the server's window. */
export interface ServerRateView {
  limit: number;
  remaining: number;
  resetMs: number;
}

/** One granted request. Its slot is held until the answer, then for a window from the answer. */
export interface RateSlot {
  /**
   * The request was answered or failed: the server counted it (if at all) before now. `server` is the answer's
   * view of the window, when it gave one. Idempotent.
   */
  settle(server?: ServerRateView | null): void;
}

/** Why the server asked us to wait: a maintenance backoff ends as soon as the server is seen back. */
export type BackoffReason = 'rate-limited' | 'maintenance';

/** Asked right before a queued call is granted its slot (and by `review`): anything but null or undefined ends its wait with it. */
export type Admit = () => unknown;

interface Waiter {
  kind: SlotKind;
  resolve: (slot: RateSlot) => void;
  reject: (reason: unknown) => void;
  detach: () => void;
  admit: Admit | undefined;
}

interface PendingSlot {
  grantedAt: number;
  kind: SlotKind;
}

/** Which slots a count or an expiry is about: all of them, or those in the bulk share (`live` and `bulk`). */
type Counted = 'all' | 'shared';

const counts = (kind: SlotKind, counted: Counted): boolean => counted === 'all' || kind !== 'now';

/** Which kinds a limit holds: the share's, `live` and `bulk`; paging's (the desk's every request counted), `bulk`. */
const heldBy = (kind: SlotKind, counted: Counted): boolean => (counted === 'shared' ? kind !== 'now' : kind === 'bulk');

interface BucketState {
  limit: number;
  /** Granted, not answered yet: held without end (up to `unsettledAfterMs`). */
  readonly pending: Set<PendingSlot>;
  /** Answer times of settled requests, ascending. */
  readonly answered: number[];
  /** The same for requests in the bulk share (`live` and `bulk`; each is in `answered` too). */
  readonly answeredShared: number[];
  /** Requests the server counted that were not ours (another program with the same key), as of `foreignAt`. */
  foreign: number;
  foreignAt: number;
  /** The server said no slot is left until then (`Remaining: 0`, `Reset`). */
  holdUntil: number;
  readonly waiters: Waiter[];
}

const BUCKETS: readonly RateBucket[] = ['catalog', 'default'];
/** Order of service: a lower rank is served first. */
const RANK: Readonly<Record<SlotKind, number>> = { now: 0, live: 1, bulk: 2 };
const DEFAULT_MARGIN_MS = 250;
/** Longer than any request's time-out (15 s) plus reading its body. */
const DEFAULT_UNSETTLED_AFTER_MS = 60_000;
export const DEFAULT_BULK_SHARE = 0.5;
/**
 * The part of the bulk share paging (`bulk`) never takes: a long paging job (a new cache's ledger, a resumed back-fill)
 * fills its share in a burst, then frees a slot only as its oldest answer leaves the window, so without a reserve a
 * live read would wait up to a minute behind it. A tenth (15 of the default 150) covers a burst's reads.
 */
export const LIVE_RESERVE = 0.1;

const realTimers: LimiterTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

function validShare(share: number): number {
  if (!(share > 0 && share <= 1)) throw new RangeError(`bulk share must be above 0 and at most 1, got ${share}`);
  return share;
}

function insertSorted(list: number[], value: number): void {
  let index = list.length;
  while (index > 0 && (list[index - 1] as number) > value) index--;
  list.splice(index, 0, value);
}

/**
 * The client side of the API's per-merchant limits, one per account and shared by everything that calls the
 * API. A slot is held from its grant until its answer, then for the window (plus a margin) from the answer:
 * the server counts a request when it arrives, which is never after its answer, however long the request
 * waited for a socket on the way. Each answer's `X-RateLimit-*` headers correct the count for requests we did
 * not send. `acquire` grants at once when a slot is free, else queues until one frees: `now` requests first, then
 * `live`, then `bulk`, each kind first come, first served (see SlotKind). A server 429/503 sets a backoff all
 * acquires wait out.
 */
export class ClientRateLimiter {
  readonly #now: () => number;
  readonly #timers: LimiterTimers;
  readonly #limits: Record<RateBucket, number>;
  readonly #holdMs: number;
  readonly #marginMs: number;
  readonly #unsettledAfterMs: number;
  #bulkShare: number;
  readonly #buckets: Record<RateBucket, BucketState>;
  readonly #listeners = new Set<(status: RateLimitStatus) => void>();
  #backoffUntil = 0;
  #backoffReason: BackoffReason = 'rate-limited';
  #timer: { handle: unknown; at: number } | null = null;
  #emitQueued = false;
  #lastEmitted = '';

  constructor(options: ClientRateLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#timers = options.timers ?? realTimers;
    this.#limits = options.limits ?? RATE_LIMITS;
    this.#marginMs = options.marginMs ?? DEFAULT_MARGIN_MS;
    this.#holdMs = (options.windowMs ?? RATE_LIMIT_WINDOW_MS) + this.#marginMs;
    this.#unsettledAfterMs = options.unsettledAfterMs ?? DEFAULT_UNSETTLED_AFTER_MS;
    this.#bulkShare = validShare(options.bulkShare ?? DEFAULT_BULK_SHARE);
    const bucket = (limit: number): BucketState => ({
      limit,
      pending: new Set(),
      answered: [],
      answeredShared: [],
      foreign: 0,
      foreignAt: 0,
      holdUntil: 0,
      waiters: [],
    });
    this.#buckets = { catalog: bucket(this.#limits.catalog), default: bucket(this.#limits.default) };
  }

  /** The clock this limiter reads; backoff deadlines are on it. */
  now(): number {
    return this.#now();
  }

  /**
   * A slot now when one is free, else when one frees (FIFO). `admit` (for a request that may no longer be wanted
   * by then) is asked when a queued call's turn comes and by `review`: a refusal ends the wait with it, and the
   * slot goes to the next in line. A slot free at once is granted without asking: the caller has just decided.
   */
  acquire(bucket: RateBucket, signal?: AbortSignal, admit?: Admit, kind: SlotKind = 'now'): Promise<RateSlot> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const slot = this.tryAcquire(bucket, kind);
    if (slot) return Promise.resolve(slot);
    return new Promise<RateSlot>((resolve, reject) => {
      const queue = this.#buckets[bucket].waiters;
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index >= 0) queue.splice(index, 1);
        reject(abortReason(signal as AbortSignal));
        this.#schedule();
      };
      const waiter: Waiter = {
        kind,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
        admit,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      this.#schedule();
    });
  }

  /**
   * Grants a slot now when one is free and nobody it would overtake queues for it (a `now` request overtakes
   * queued `live` and `bulk` ones, a `live` one queued `bulk` ones); null otherwise (nothing queued). Lets a call go
   * out in the same task that asked for it: a buy's request is written before anything the caller's task does next
   * (see MerchantApiClient#call).
   */
  tryAcquire(bucket: RateBucket, kind: SlotKind = 'now'): RateSlot | null {
    const now = this.#now();
    this.#expire(bucket, now);
    const queue = this.#buckets[bucket].waiters;
    const ahead = queue.some((waiter) => RANK[waiter.kind] <= RANK[kind]);
    if (ahead || !this.#canGrant(bucket, now, kind)) return null;
    return this.#grant(bucket, now, kind);
  }

  /** Sets the share of each bucket `live` and `bulk` requests may hold (0 < share ≤ 1). */
  setBulkShare(share: number): void {
    this.#bulkShare = validShare(share);
    this.#schedule();
  }

  /** Requests waiting for a slot of `bucket` (diagnostics, and a test's sign that a call is held here). */
  queued(bucket: RateBucket): number {
    return this.#buckets[bucket].waiters.length;
  }

  /** Granted requests of `bucket` not answered yet (a test's sign that all it let through has been answered). */
  unanswered(bucket: RateBucket): number {
    return this.#buckets[bucket].pending.size;
  }

  /** Asks every queued call's `admit` now (what it depends on changed): a refusal ends that wait at once. */
  review(): void {
    for (const bucket of BUCKETS) {
      const queue = this.#buckets[bucket].waiters;
      for (const waiter of [...queue]) {
        const refusal = waiter.admit?.() ?? null;
        if (refusal === null) continue;
        queue.splice(queue.indexOf(waiter), 1);
        waiter.detach();
        waiter.reject(refusal);
      }
    }
    this.#schedule();
  }

  /** The server asked us to wait (429 or 503): nothing is granted before `untilMs`. */
  noteBackoff(untilMs: number, reason: BackoffReason = 'rate-limited'): void {
    if (untilMs <= this.#backoffUntil) return;
    this.#backoffUntil = untilMs;
    this.#backoffReason = reason;
    this.#emitSoon();
    this.#schedule();
  }

  /**
   * The server is seen answering again (its feed is back, or the user asked to retry now): a maintenance
   * backoff has no reason left. A rate-limit backoff stays: the window it protects has not moved.
   */
  endMaintenanceBackoff(): void {
    if (this.#backoffUntil === 0 || this.#backoffReason !== 'maintenance') return;
    this.#backoffUntil = 0;
    this.#emitSoon();
    this.#schedule();
  }

  status(): RateLimitStatus {
    const now = this.#now();
    for (const bucket of BUCKETS) this.#expire(bucket, now);
    const remaining = (bucket: RateBucket) => Math.max(0, this.#buckets[bucket].limit - this.#count(bucket));
    return {
      catalogRemaining: remaining('catalog'),
      catalogLimit: this.#buckets.catalog.limit,
      defaultRemaining: remaining('default'),
      defaultLimit: this.#buckets.default.limit,
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

  #count(bucket: RateBucket): number {
    const state = this.#buckets[bucket];
    return state.pending.size + state.answered.length + state.foreign;
  }

  /** The desk's own slots in the bulk share (`shared`), or of every kind (`all`). */
  #held(bucket: RateBucket, counted: Counted): number {
    const state = this.#buckets[bucket];
    let pending = 0;
    for (const slot of state.pending) if (counts(slot.kind, counted)) pending++;
    return pending + (counted === 'shared' ? state.answeredShared : state.answered).length;
  }

  /** The slots `live` and `bulk` may hold together (`shared`), and the desk's in all for paging: less the reserve. */
  #limitOf(bucket: RateBucket, counted: Counted): number {
    const shared = Math.max(1, Math.floor(this.#buckets[bucket].limit * this.#bulkShare));
    return counted === 'shared' ? shared : Math.max(1, shared - Math.max(1, Math.floor(shared * LIVE_RESERVE)));
  }

  /** Whether `kind` is held back by the limit of `counted` (the `now` kind by neither). */
  #atLimit(bucket: RateBucket, kind: SlotKind, counted: Counted): boolean {
    return heldBy(kind, counted) && this.#held(bucket, counted) >= this.#limitOf(bucket, counted);
  }

  #canGrant(bucket: RateBucket, now: number, kind: SlotKind): boolean {
    const state = this.#buckets[bucket];
    if (now < this.#backoffUntil || now < state.holdUntil || this.#count(bucket) >= state.limit) return false;
    return !this.#atLimit(bucket, kind, 'shared') && !this.#atLimit(bucket, kind, 'all');
  }

  #grant(bucket: RateBucket, now: number, kind: SlotKind): RateSlot {
    const state = this.#buckets[bucket];
    const pending: PendingSlot = { grantedAt: now, kind };
    state.pending.add(pending);
    this.#emitSoon();
    if (this.#listeners.size > 0) this.#schedule();
    return {
      settle: (server) => {
        if (!state.pending.delete(pending)) return;
        const at = this.#now();
        if (server) this.#observe(bucket, server, pending.grantedAt, at);
        this.#answered(state, pending.kind, at);
        this.#emitSoon();
        this.#schedule();
      },
    };
  }

  /**
   * Follows the server's count: what it counts beyond our own requests holds slots too, for a window from now.
   * Of ours, only those answered before this one was granted were surely counted before it; the others in
   * flight may not have been, so what is left is taken as someone else's (another program with this key).
   */
  #observe(bucket: RateBucket, server: ServerRateView, grantedAt: number, at: number): void {
    const state = this.#buckets[bucket];
    if (server.limit > 0) state.limit = Math.min(this.#limits[bucket], server.limit);
    this.#expire(bucket, at);
    let oursBefore = 1; // this request
    for (const answeredAt of state.answered) if (answeredAt < grantedAt) oursBefore++;
    state.foreign = Math.max(0, server.limit - server.remaining - oursBefore);
    state.foreignAt = at;
    if (server.remaining <= 0) state.holdUntil = Math.max(state.holdUntil, at + server.resetMs + this.#marginMs);
  }

  #expire(bucket: RateBucket, now: number): void {
    const state = this.#buckets[bucket];
    let changed = false;
    for (const pending of state.pending) {
      if (pending.grantedAt + this.#unsettledAfterMs > now) continue;
      state.pending.delete(pending);
      this.#answered(state, pending.kind, pending.grantedAt + this.#unsettledAfterMs);
    }
    if (this.#dropExpired(state.answered, now)) changed = true;
    this.#dropExpired(state.answeredShared, now);
    if (state.foreign > 0 && state.foreignAt + this.#holdMs <= now) {
      state.foreign = 0;
      changed = true;
    }
    if (changed) this.#emitSoon();
  }

  /** Counts a slot of `kind` as answered at `at`, in every list it belongs to. */
  #answered(state: BucketState, kind: SlotKind, at: number): void {
    insertSorted(state.answered, at);
    if (counts(kind, 'shared')) insertSorted(state.answeredShared, at);
  }

  /** Drops the answer times that left the window; true when any did. */
  #dropExpired(answered: number[], now: number): boolean {
    let expired = 0;
    while (expired < answered.length && (answered[expired] as number) + this.#holdMs <= now) expired++;
    answered.splice(0, expired);
    return expired > 0;
  }

  /** The waiter served next: the first of the lowest rank (`now`, then `live`, then `bulk`); undefined when none. */
  #first(bucket: RateBucket): Waiter | undefined {
    let first: Waiter | undefined;
    for (const waiter of this.#buckets[bucket].waiters)
      if (!first || RANK[waiter.kind] < RANK[first.kind]) first = waiter;
    return first;
  }

  /** The waiter served next, when it can be granted now; null otherwise. */
  #next(bucket: RateBucket, now: number): Waiter | null {
    const waiter = this.#first(bucket);
    return waiter && this.#canGrant(bucket, now, waiter.kind) ? waiter : null;
  }

  #pump(): void {
    const now = this.#now();
    if (this.#backoffUntil !== 0 && this.#backoffUntil <= now) {
      this.#backoffUntil = 0;
      this.#emitSoon();
    }
    for (const bucket of BUCKETS) {
      this.#expire(bucket, now);
      const queue = this.#buckets[bucket].waiters;
      for (let waiter = this.#next(bucket, now); waiter; waiter = this.#next(bucket, now)) {
        queue.splice(queue.indexOf(waiter), 1);
        waiter.detach();
        const refusal = waiter.admit?.() ?? null;
        if (refusal === null) waiter.resolve(this.#grant(bucket, now, waiter.kind));
        else waiter.reject(refusal);
      }
    }
  }

  /**
   * The next moment the count of a bucket's `counted` slots drops; Infinity when only an answer can free a slot.
   */
  #nextExpiry(bucket: RateBucket, counted: Counted = 'all'): number {
    const state = this.#buckets[bucket];
    let at = Infinity;
    const list = counted === 'all' ? state.answered : state.answeredShared;
    const oldest = list[0];
    if (oldest !== undefined) at = oldest + this.#holdMs;
    if (state.foreign > 0 && counted === 'all') at = Math.min(at, state.foreignAt + this.#holdMs);
    // A lost slot becomes an answered one then: wake to re-time it.
    for (const pending of state.pending) {
      if (counts(pending.kind, counted)) at = Math.min(at, pending.grantedAt + this.#unsettledAfterMs);
    }
    return at;
  }

  /** When the waiter served next could have its slot (backoffs aside). */
  #slotFreeAt(bucket: RateBucket): number {
    const state = this.#buckets[bucket];
    const kind = this.#first(bucket)?.kind ?? 'now';
    let freeAt = this.#count(bucket) < state.limit ? 0 : this.#nextExpiry(bucket);
    for (const counted of ['shared', 'all'] as const) {
      if (this.#atLimit(bucket, kind, counted)) freeAt = Math.max(freeAt, this.#nextExpiry(bucket, counted));
    }
    return freeAt;
  }

  /** The next moment something changes that a waiter or a listener cares about; null when nothing will. */
  #nextWake(): number | null {
    const listening = this.#listeners.size > 0;
    let wake = Infinity;
    for (const bucket of BUCKETS) {
      const state = this.#buckets[bucket];
      const expiry = this.#nextExpiry(bucket);
      if (state.waiters.length > 0) {
        wake = Math.min(wake, Math.max(this.#slotFreeAt(bucket), this.#backoffUntil, state.holdUntil));
      }
      if (listening) wake = Math.min(wake, expiry);
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
    const handle = this.#timers.setTimeout(
      () => {
        this.#timer = null;
        this.#pump();
        this.#schedule();
      },
      Math.max(0, wake - this.#now()),
    );
    // Waking only to refresh a status display must not keep the process alive.
    if (!BUCKETS.some((bucket) => this.#buckets[bucket].waiters.length > 0))
      (handle as { unref?: () => void }).unref?.();
    this.#timer = { handle, at: wake };
  }

  #emitSoon(): void {
    if (this.#emitQueued || this.#listeners.size === 0) return;
    this.#emitQueued = true;
    queueMicrotask(() => {
      this.#emitQueued = false;
      const status = this.status();
      const key = JSON.stringify(status);
      if (key === this.#lastEmitted) return;
      this.#lastEmitted = key;
      for (const listener of this.#listeners) listener(status);
    });
  }
}
