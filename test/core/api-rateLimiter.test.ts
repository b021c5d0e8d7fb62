import { describe, expect, it } from 'vitest';
import { ClientRateLimiter, type LimiterTimers } from '../../src/main/core/api/rateLimiter';
import type { RateBucket } from '../../src/shared/api';

/** A clock whose timers fire only when the test moves time on, each at its own due time. */
class FakeClock implements LimiterTimers {
  time = Date.parse('2026-01-01T00:00:00.000Z');
  #timers = new Map<number, { at: number; callback: () => void }>();
  #nextId = 1;
  now = () => this.time;
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    for (;;) {
      const due = [...this.#timers.entries()].filter(([, t]) => t.at <= target).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
      await settle();
    }
    this.time = target;
    await settle();
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A request answered the moment it is granted. */
async function answered(limiter: ClientRateLimiter, bucket: RateBucket): Promise<void> {
  (await limiter.acquire(bucket)).settle();
}

/** tryAcquire's slot, answered at once; false when none was granted. */
function tryAnswered(limiter: ClientRateLimiter, bucket: RateBucket): boolean {
  const slot = limiter.tryAcquire(bucket);
  slot?.settle();
  return slot !== null;
}

function track(promise: Promise<unknown>) {
  const state = { done: false, error: null as unknown };
  promise.then(
    () => (state.done = true),
    (error: unknown) => (state.error = error),
  );
  return state;
}

function fakeLimiter(options: { windowMs?: number } = {}) {
  const clock = new FakeClock();
  return { clock, limiter: new ClientRateLimiter({ now: clock.now, timers: clock, ...options }) };
}

describe('ClientRateLimiter', () => {
  it('grants 10 catalog requests at once and holds the 11th until the oldest leaves the window (60 s + 250 ms)', async () => {
    const { clock, limiter } = fakeLimiter();
    for (let i = 0; i < 10; i++) await answered(limiter, 'catalog');
    expect(limiter.status().catalogRemaining).toBe(0);
    const eleventh = track(answered(limiter, 'catalog'));
    await clock.advance(60_249);
    expect(eleventh.done).toBe(false);
    await clock.advance(1);
    expect(eleventh.done).toBe(true);
    expect(limiter.status().catalogRemaining).toBe(9); // the ten granted together left together
    // The other bucket is independent.
    await answered(limiter, 'default');
    expect(limiter.status().defaultRemaining).toBe(299);
  });

  it('tryAcquire grants a free slot at once, and refuses (queuing nothing) when full, behind waiters, or backed off', async () => {
    const { clock, limiter } = fakeLimiter();
    for (let i = 0; i < 9; i++) expect(tryAnswered(limiter, 'catalog')).toBe(true);
    expect(limiter.status().catalogRemaining).toBe(1);
    const tenth = track(answered(limiter, 'catalog'));
    await settle();
    expect(tenth.done).toBe(true);
    expect(tryAnswered(limiter, 'catalog')).toBe(false); // full
    expect(limiter.status().catalogRemaining).toBe(0);
    const waiter = track(answered(limiter, 'catalog'));
    await clock.advance(60_250); // the ten leave the window; the waiter takes one
    expect(waiter.done).toBe(true);
    expect(tryAnswered(limiter, 'catalog')).toBe(true); // free again, nobody queued
    expect(limiter.status().catalogRemaining).toBe(8);

    limiter.noteBackoff(clock.now() + 5_000);
    expect(tryAnswered(limiter, 'default')).toBe(false); // a server backoff holds every bucket
    expect(limiter.status().defaultRemaining).toBe(300);
    await clock.advance(5_000);
    expect(tryAnswered(limiter, 'default')).toBe(true);
  });

  it('refuses tryAcquire while a waiter queues, even as a slot frees (first come, first served)', async () => {
    const { clock, limiter } = fakeLimiter();
    for (let i = 0; i < 10; i++) expect(tryAnswered(limiter, 'catalog')).toBe(true);
    const waiter = track(answered(limiter, 'catalog'));
    clock.time += 60_250; // the slots are free, but the waiter's timer has not run yet
    expect(tryAnswered(limiter, 'catalog')).toBe(false);
    await clock.advance(0);
    expect(waiter.done).toBe(true);
  });

  it('grants waiters in FIFO order as slots free up, one per expiring grant', async () => {
    const { clock, limiter } = fakeLimiter();
    await answered(limiter, 'catalog');
    await clock.advance(1_000);
    for (let i = 0; i < 9; i++) await answered(limiter, 'catalog');
    const order: number[] = [];
    const waiters = [1, 2, 3].map((n) => answered(limiter, 'catalog').then(() => order.push(n)));
    await clock.advance(59_250); // the first grant (t=0) leaves at 60 250
    expect(order).toEqual([1]);
    await clock.advance(1_000); // the nine at t=1000 leave together
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
  });

  it('queues a newcomer behind earlier waiters even when it arrives just as a slot frees', async () => {
    const { clock, limiter } = fakeLimiter();
    await answered(limiter, 'catalog');
    await clock.advance(500);
    for (let i = 0; i < 9; i++) await answered(limiter, 'catalog');
    const first = track(answered(limiter, 'catalog'));
    await clock.advance(59_749);
    const second = track(answered(limiter, 'catalog')); // arrives 1 ms before a slot frees
    await clock.advance(1);
    expect(first.done).toBe(true);
    expect(second.done).toBe(false);
    await clock.advance(500);
    expect(second.done).toBe(true);
  });

  it('drops an aborted waiter and rejects it with the abort reason', async () => {
    const { clock, limiter } = fakeLimiter();
    for (let i = 0; i < 10; i++) await answered(limiter, 'catalog');
    const controller = new AbortController();
    const aborted = track(limiter.acquire('catalog', controller.signal));
    const next = track(answered(limiter, 'catalog'));
    controller.abort(new Error('user left'));
    await settle();
    expect((aborted.error as Error).message).toBe('user left');
    await clock.advance(60_250);
    expect(next.done).toBe(true);
    expect(limiter.status().catalogRemaining).toBe(9); // the aborted waiter took no slot
    await expect(limiter.acquire('catalog', AbortSignal.abort())).rejects.toThrow();
  });

  it("asks a waiter's admit when its turn comes and when reviewed: a refusal ends its wait, and the slot goes to the next in line", async () => {
    const { clock, limiter } = fakeLimiter();
    await answered(limiter, 'catalog');
    await clock.advance(1_000);
    for (let i = 0; i < 9; i++) await answered(limiter, 'catalog'); // one slot frees at 60 250, the others at 61 250
    let stopped: Error | null = null;
    const asked: string[] = [];
    const gated = (name: string) => () => {
      asked.push(name);
      return stopped;
    };
    const refusedAtTurn = track(limiter.acquire('catalog', undefined, gated('a')));
    const refusedByReview = track(limiter.acquire('catalog', undefined, gated('b')));
    const ungated = track(answered(limiter, 'catalog'));
    const admitted = track(limiter.acquire('catalog', undefined, gated('c')));
    // Nothing is asked while they wait.
    await clock.advance(29_000);
    expect(asked).toEqual([]);
    // Reviewed while allowed: all stay queued.
    limiter.review();
    expect(asked).toEqual(['a', 'b', 'c']);
    await settle();
    expect([refusedAtTurn, refusedByReview, admitted].map((s) => s.done || s.error !== null)).toEqual([
      false,
      false,
      false,
    ]);
    // Their condition changes; the first one's turn comes before any review: refused when its slot frees.
    stopped = new Error('stopped');
    await clock.advance(30_250);
    expect(refusedAtTurn.error).toBe(stopped);
    // Its slot went to the next in line, which was refused too (asked at its turn), then to the ungated call.
    expect(refusedByReview.error).toBe(stopped);
    expect(ungated.done).toBe(true);
    expect(admitted.done || admitted.error !== null).toBe(false);
    // A review ends a refused wait at once, without waiting for a slot.
    limiter.review();
    await settle();
    expect(admitted.error).toBe(stopped);
    expect(limiter.queued('catalog')).toBe(0);
    expect(limiter.status().catalogRemaining).toBe(0); // the one ungated grant took the one free slot
  });

  it('waits out a server backoff even with free slots and reports it in status()', async () => {
    const { clock, limiter } = fakeLimiter();
    const statuses: (string | null)[] = [];
    const unsubscribe = limiter.onChange((status) => statuses.push(status.backoffUntil));
    limiter.noteBackoff(clock.now() + 30_000);
    limiter.noteBackoff(clock.now() + 10_000); // a shorter one never shortens the wait
    expect(limiter.status().backoffUntil).toBe('2026-01-01T00:00:30.000Z');
    const waiting = track(answered(limiter, 'default'));
    await clock.advance(29_999);
    expect(waiting.done).toBe(false);
    await clock.advance(1);
    expect(waiting.done).toBe(true);
    expect(limiter.status().backoffUntil).toBeNull();
    expect(statuses).toContain('2026-01-01T00:00:30.000Z');
    expect(statuses.at(-1)).toBeNull();
    unsubscribe();
  });

  it('tells listeners when requests are granted and when they leave the window', async () => {
    const { clock, limiter } = fakeLimiter();
    const seen: number[] = [];
    limiter.onChange((status) => seen.push(status.catalogRemaining));
    await Promise.all([answered(limiter, 'catalog'), answered(limiter, 'catalog')]);
    await settle();
    expect(seen).toEqual([8]); // coalesced
    await clock.advance(60_250);
    expect(seen).toEqual([8, 10]);
  });

  it('holds a slot from its grant until its answer, then a window from the answer (a request that waited for a socket)', async () => {
    const { clock, limiter } = fakeLimiter();
    const slots = await Promise.all(Array.from({ length: 10 }, () => limiter.acquire('catalog')));
    const eleventh = track(limiter.acquire('catalog'));
    await clock.advance(30_000); // the requests are on their way all this time
    for (const slot of slots) slot.settle();
    slots[0]?.settle(); // settling twice changes nothing
    await clock.advance(60_249);
    expect(eleventh.done).toBe(false);
    await clock.advance(1);
    expect(eleventh.done).toBe(true);
  });

  it('takes a slot whose answer is never reported as answered a minute after its grant', async () => {
    const { clock, limiter } = fakeLimiter();
    for (let i = 0; i < 10; i++) await limiter.acquire('catalog');
    const next = track(limiter.acquire('catalog'));
    await clock.advance(60_000 + 60_249);
    expect(next.done).toBe(false);
    await clock.advance(1);
    expect(next.done).toBe(true);
  });

  it("counts what the server's X-RateLimit headers show beyond its own requests, for a window", async () => {
    const { clock, limiter } = fakeLimiter();
    (await limiter.acquire('default')).settle({ limit: 300, remaining: 49, resetMs: 20_000 }); // 250 sent by someone else
    expect(limiter.status().defaultRemaining).toBe(49);
    // Our own requests answered later are not taken for someone else's.
    const ours = await Promise.all(Array.from({ length: 9 }, () => limiter.acquire('default')));
    ours.forEach((slot, i) => slot.settle({ limit: 300, remaining: 48 - i, resetMs: 20_000 }));
    expect(limiter.status().defaultRemaining).toBeLessThanOrEqual(40);
    await clock.advance(60_250);
    expect(limiter.status().defaultRemaining).toBe(300);
    // A lower limit from the server is followed; none higher than the API's.
    (await limiter.acquire('catalog')).settle({ limit: 5, remaining: 4, resetMs: 60_000 });
    expect(limiter.status()).toMatchObject({ catalogLimit: 5, catalogRemaining: 4 });
    (await limiter.acquire('catalog')).settle({ limit: 50, remaining: 45, resetMs: 60_000 });
    expect(limiter.status().catalogLimit).toBe(10);
  });

  it('grants nothing in a bucket the server says is empty until its Reset', async () => {
    const { clock, limiter } = fakeLimiter({ windowMs: 10_000 });
    (await limiter.acquire('default')).settle({ limit: 300, remaining: 0, resetMs: 30_000 }); // a longer window than ours
    const next = track(limiter.acquire('default'));
    await clock.advance(30_249);
    expect(next.done).toBe(false);
    await clock.advance(1);
    expect(next.done).toBe(true);
  });

  it('ends a maintenance backoff when asked, never a rate-limit one', async () => {
    const { clock, limiter } = fakeLimiter();
    limiter.noteBackoff(clock.now() + 60_000, 'maintenance');
    const waiting = track(answered(limiter, 'default'));
    limiter.endMaintenanceBackoff();
    await clock.advance(0);
    expect(waiting.done).toBe(true);
    expect(limiter.status().backoffUntil).toBeNull();
    limiter.noteBackoff(clock.now() + 30_000, 'rate-limited');
    limiter.endMaintenanceBackoff();
    expect(limiter.status().backoffUntil).not.toBeNull();
  });

  it('lets bulk requests hold at most their share of a window, and never holds up a `now` request for them', async () => {
    const { clock, limiter } = fakeLimiter();
    const bulk = () => limiter.acquire('default', undefined, undefined, 'bulk').then((slot) => slot.settle());
    for (let i = 0; i < 135; i++) await bulk(); // half of 300, less the live reserve (LIVE_RESERVE)
    expect(limiter.tryAcquire('default', 'bulk')).toBeNull();
    const queuedBulk = track(bulk());
    await clock.advance(1_000);
    expect(queuedBulk.done).toBe(false);
    // A buy goes out at once, past the queued bulk request, as long as the window has room.
    expect(tryAnswered(limiter, 'default')).toBe(true);
    expect(limiter.status().defaultRemaining).toBe(164);
    // The bulk share frees when the first bulk answers leave the window (60 s + 250 ms), not before.
    await clock.advance(59_249);
    expect(queuedBulk.done).toBe(false);
    await clock.advance(1);
    expect(queuedBulk.done).toBe(true);
  });

  it('serves queued `now` requests before queued bulk ones, each kind first come, first served', async () => {
    const { clock, limiter } = fakeLimiter({});
    for (let i = 0; i < 300; i++) expect(tryAnswered(limiter, 'default')).toBe(true);
    const order: string[] = [];
    const wait = (name: string, kind: 'now' | 'bulk') =>
      limiter.acquire('default', undefined, undefined, kind).then((slot) => {
        order.push(name);
        slot.settle();
      });
    const all = [wait('bulk 1', 'bulk'), wait('bulk 2', 'bulk'), wait('now 1', 'now'), wait('now 2', 'now')];
    expect(limiter.tryAcquire('default', 'now')).toBeNull(); // behind the queued `now` ones
    await clock.advance(60_250);
    await Promise.all(all);
    expect(order).toEqual(['now 1', 'now 2', 'bulk 1', 'bulk 2']);
  });

  it.each([
    // share, the slots it holds, paging's part of them (the rest is the live reserve)
    [0.01, 3, 2],
    [0.1, 30, 27],
    [0.5, 150, 135],
    [1, 300, 270],
  ])(
    'at a share of %s (%i slots), paging holds at most %i and a live read goes out at once past its queue',
    async (share, shared, paging) => {
      const { limiter } = fakeLimiter();
      limiter.setBulkShare(share);
      const granted = (kind: 'live' | 'bulk') => {
        let count = 0;
        for (let slot = limiter.tryAcquire('default', kind); slot; slot = limiter.tryAcquire('default', kind)) {
          slot.settle();
          count++;
        }
        return count;
      };
      expect(granted('bulk')).toBe(paging);
      const queuedPaging = track(limiter.acquire('default', undefined, undefined, 'bulk'));
      await settle();
      expect(queuedPaging.done).toBe(false);
      // Live reads take the reserve at once, past the queued page, and no more than the share in all.
      expect(granted('live')).toBe(shared - paging);
      expect(limiter.status().defaultRemaining).toBe(300 - shared);
      // A `now` request still goes out past both, while the window has room.
      if (shared < 300) expect(tryAnswered(limiter, 'default')).toBe(true);
      expect(queuedPaging.done).toBe(false);
    },
  );

  it('lets live reads take the whole share, and paging only what they leave of its part', async () => {
    const { limiter } = fakeLimiter();
    limiter.setBulkShare(0.1); // 30 slots, 27 of them for paging
    for (let i = 0; i < 10; i++) limiter.tryAcquire('default', 'live')?.settle();
    let paging = 0;
    for (let slot = limiter.tryAcquire('default', 'bulk'); slot; slot = limiter.tryAcquire('default', 'bulk')) paging++;
    expect(paging).toBe(17); // the desk's requests together never above paging's part
    let live = 0;
    for (let slot = limiter.tryAcquire('default', 'live'); slot; slot = limiter.tryAcquire('default', 'live')) live++;
    expect(live).toBe(3); // the reserve, and never above the share
    expect(limiter.status().defaultRemaining).toBe(270);
  });

  it("counts the desk's own `now` requests against paging: pages take what they leave, live reads keep their reserve", async () => {
    const { limiter } = fakeLimiter(); // a share of 150, 135 of them for paging
    for (let i = 0; i < 20; i++) expect(tryAnswered(limiter, 'default')).toBe(true);
    let paging = 0;
    for (let slot = limiter.tryAcquire('default', 'bulk'); slot; slot = limiter.tryAcquire('default', 'bulk')) paging++;
    expect(paging).toBe(115); // the desk's requests in all at paging's part
    let live = 0;
    for (let slot = limiter.tryAcquire('default', 'live'); slot; slot = limiter.tryAcquire('default', 'live')) live++;
    expect(live).toBe(35); // live reads and pages together at the share: a feed burst is not held by the UI's requests
    expect(tryAnswered(limiter, 'default')).toBe(true); // a buy still goes out at once
  });

  it('serves a queued live read before queued pages, as soon as the share has a slot for it', async () => {
    const { clock, limiter } = fakeLimiter();
    limiter.setBulkShare(0.01); // 3 slots: 2 for paging, 1 live reserve
    const order: string[] = [];
    const wait = (name: string, kind: 'live' | 'bulk') =>
      limiter.acquire('default', undefined, undefined, kind).then((slot) => {
        order.push(name);
        slot.settle();
      });
    const pages = [wait('page 1', 'bulk'), wait('page 2', 'bulk'), wait('page 3', 'bulk'), wait('page 4', 'bulk')];
    await settle(); // pages 1 and 2 answered at 0
    await clock.advance(1_000);
    const reads = [wait('read 1', 'live'), wait('read 2', 'live')]; // the reserve takes the first
    await settle();
    expect(order).toEqual(['page 1', 'page 2', 'read 1']);
    expect(limiter.tryAcquire('default', 'live')).toBeNull(); // behind the queued live read
    const buy = limiter.tryAcquire('default', 'now'); // behind nobody, and in the desk's count
    expect(buy).not.toBeNull();
    buy?.settle();
    // The two pages leave the window at 60 250: the queued read goes first. The first read and the `now` request fill
    // paging's part until they leave at 61 250; then one page (the share is full again).
    await clock.advance(59_249);
    expect(order).toHaveLength(3);
    await clock.advance(1);
    expect(order).toEqual(['page 1', 'page 2', 'read 1', 'read 2']);
    await clock.advance(1_000);
    expect(order).toEqual(['page 1', 'page 2', 'read 1', 'read 2', 'page 3']);
    await clock.advance(61_250);
    await Promise.all([...pages, ...reads]);
    expect(order.at(-1)).toBe('page 4');
  });

  it('takes a new bulk share at once for the queue, and refuses a share that is not a fraction', async () => {
    const { clock, limiter } = fakeLimiter();
    limiter.setBulkShare(0.1);
    const bulk = () => limiter.acquire('default', undefined, undefined, 'bulk').then((slot) => slot.settle());
    for (let i = 0; i < 27; i++) await bulk(); // 30, less the live reserve
    const queued = track(bulk());
    await clock.advance(0);
    expect(queued.done).toBe(false);
    limiter.setBulkShare(0.2);
    await clock.advance(0);
    expect(queued.done).toBe(true);
    for (const share of [0, -0.5, 1.5, Number.NaN]) expect(() => limiter.setBulkShare(share)).toThrow(/bulk share/);
    expect(() => new ClientRateLimiter({ bulkShare: 2 })).toThrow(/bulk share/);
  });

  it('works on real time (short window)', async () => {
    const limiter = new ClientRateLimiter({ limits: { catalog: 2, default: 2 }, windowMs: 150, marginMs: 50 });
    const started = Date.now();
    await answered(limiter, 'default');
    await answered(limiter, 'default');
    await answered(limiter, 'default');
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
  });
});
