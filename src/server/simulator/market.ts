import type { Item, PriceChange } from '../../shared/api';
import { SECOND_MS } from '../../shared/time';
import { generateItem } from '../catalog/generator';
import { Rng } from '../catalog/rng';
import { marketValue, type ValuedItem } from '../catalog/value';
import type { TimerHandle } from '../clock';
import type { SandboxCore } from '../domain/core';
import type { ResolvedOptions } from './options';

const TICK_MS = SECOND_MS;
/** While the clock is fast-forwarded, empty ticks thin out (doubling) to one per this much clock time. */
const MAX_IDLE_TICK_MS = 60 * 60 * SECOND_MS;
/** Real-time budget the market may spend at once: this many seconds' worth of events. */
const BURST_SECONDS = 2;
/** The on-sale count is recounted at most this often, in real time (own changes are tracked in between). */
const RECOUNT_EVERY_MS = 10 * SECOND_MS;
/** Tries to find a not-yet-picked on-sale item for one event. */
const PICK_ATTEMPTS = 4;
/** How strongly a reprice leans back toward the listing's value: the log-distance at which it goes the right way 84 % of the time. */
const PULL_SCALE = 0.05;

interface PickedItem {
  itemId: number;
  price: number;
  json: string;
}

/** What one tick did, for tests and diagnostics. */
export interface TickReport {
  repriced: number;
  listed: number;
  removed: number;
}

/**
 * Market noise: every second of real time `eventsPerSecond` events, split by
 * the mix into reprices (one `catalog.reprice` per tick), new listings (one
 * `catalog.upsert`) and items sold elsewhere (one `catalog.remove`).
 *
 * Ticks run on the sandbox clock, but events are budgeted by *real* time: an
 * administrator advancing the clock by a day does not replay a day of market
 * (the first ticks of an advance spend a burst of at most two seconds' worth,
 * then ticks run empty and thin out; when the advance is over, 1 s ticks resume).
 *
 * The catalog size is held near its size at start: a structural event lists a
 * new item while the catalog is below that size and sells one elsewhere while
 * it is above (so new listings make up for items sold elsewhere and bought);
 * at the target the mix's weights decide.
 */
export class MarketMover {
  private readonly rng: Rng;
  private readonly listingRng: Rng;
  private readonly boundsStmt;
  private readonly pickStmt;
  private readonly countStmt;
  private timer: TimerHandle | null = null;
  private unsubscribeAdvanced: (() => void) | null = null;
  private running = false;
  private tokens = 0;
  private carry = 0;
  private lastReal = 0;
  private lastClock = 0;
  private interval = TICK_MS;
  private target = 0;
  private size = 0;
  private countedAt = 0;

  constructor(
    private readonly core: SandboxCore,
    private readonly options: ResolvedOptions,
  ) {
    const root = new Rng(options.seed);
    this.rng = root.fork('simulator market');
    this.listingRng = root.fork('simulator listings');
    // Two subqueries: SQLite answers a lone min() or max() from the primary key, but scans for both at once.
    this.boundsStmt = core.db.prepare(
      'SELECT (SELECT min(item_id) FROM items) AS lo, (SELECT max(item_id) FROM items) AS hi',
    );
    this.pickStmt = core.db.prepare<[number], PickedItem>(
      'SELECT item_id AS itemId, price, json FROM items WHERE on_sale = 1 AND item_id >= ? ORDER BY item_id LIMIT 1',
    );
    this.countStmt = core.db.prepare('SELECT count(*) AS n FROM items WHERE on_sale = 1');
  }

  start(): void {
    if (this.running || this.options.eventsPerSecond <= 0) return;
    this.running = true;
    this.target = this.countOnSale();
    this.size = this.target;
    this.tokens = this.capacity;
    this.carry = 0;
    this.interval = TICK_MS;
    this.unsubscribeAdvanced = this.core.clock.onAdvanced(() => this.afterAdvance());
    this.schedule();
  }

  stop(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = null;
    this.unsubscribeAdvanced?.();
    this.unsubscribeAdvanced = null;
  }

  /** An advance thinned the ticks out: back to one per second from now. */
  private afterAdvance(): void {
    if (!this.running || this.interval === TICK_MS) return;
    this.timer?.cancel();
    this.interval = TICK_MS;
    this.schedule();
  }

  /** The on-sale count the market steers toward. */
  get targetSize(): number {
    return this.target;
  }

  private get capacity(): number {
    return this.options.eventsPerSecond * BURST_SECONDS;
  }

  private schedule(): void {
    this.lastReal = Date.now();
    this.lastClock = this.core.clock.now();
    this.timer = this.core.clock.scheduleIn(this.interval, 'simulator: market tick', () => this.tick());
  }

  private tick(): void {
    if (!this.running) return;
    this.timer = null;
    const realElapsed = Math.max(0, Date.now() - this.lastReal);
    const clockElapsed = Math.max(0, this.core.clock.now() - this.lastClock);
    const eps = this.options.eventsPerSecond;
    this.tokens = Math.min(this.capacity, this.tokens + (eps * realElapsed) / SECOND_MS);
    // Events due by clock time, limited by the real-time budget; a fraction carries over.
    const due = (eps * clockElapsed) / SECOND_MS + this.carry;
    const count = Math.floor(Math.min(this.tokens, due));
    this.tokens -= count;
    this.carry = Math.min(due - count, 1);
    // The clock ran well ahead of real time: an advance is firing timers. Thin out empty ticks.
    const fastForward = realElapsed * 2 < clockElapsed;
    this.interval = fastForward ? Math.min(this.interval * 2, MAX_IDLE_TICK_MS) : TICK_MS;
    try {
      if (count > 0) this.runEvents(count);
    } finally {
      if (this.running) this.schedule();
    }
  }

  /** Runs `count` market events: at most one reprice, one remove and one upsert call. */
  runEvents(count: number): TickReport {
    if (Date.now() - this.countedAt >= RECOUNT_EVERY_MS) this.size = this.countOnSale();
    const mix = this.options.marketMix;
    const total = mix.reprice + mix.newListing + mix.soldElsewhere;
    const repriceShare = mix.reprice / total;
    const listShare = mix.newListing / total;
    let reprices = 0;
    let listings = 0;
    let removals = 0;
    let estimate = this.size;
    for (let i = 0; i < count; i++) {
      const u = this.rng.next();
      if (u < repriceShare) {
        reprices++;
        continue;
      }
      let list: boolean;
      if (mix.newListing === 0) list = false;
      else if (mix.soldElsewhere === 0) list = true;
      else if (estimate !== this.target) list = estimate < this.target;
      else list = u < repriceShare + listShare;
      if (list) listings++;
      else removals++;
      estimate += list ? 1 : -1;
    }

    const bounds = this.boundsStmt.get() as { lo: number | null; hi: number | null };
    const picked = new Set<number>();
    const changes: PriceChange[] = [];
    const gone: number[] = [];
    if (bounds.lo !== null && bounds.hi !== null) {
      for (let i = 0; i < reprices; i++) {
        const item = this.pickOnSale(bounds.lo, bounds.hi, picked);
        if (item) changes.push({ itemId: item.itemId, price: this.newPrice(item.price, valueOf(item.json)) });
      }
      for (let i = 0; i < removals; i++) {
        const item = this.pickOnSale(bounds.lo, bounds.hi, picked);
        if (item) gone.push(item.itemId);
      }
    }
    const items: Item[] = [];
    let nextId = (bounds.hi ?? 0) + 1;
    const catalogOptions = {
      seed: this.options.seed,
      count: this.core.options.items,
      imageBaseUrl: this.options.imageBaseUrl,
    };
    for (let i = 0; i < listings; i++) items.push(generateItem(this.listingRng, nextId++, catalogOptions));

    const repriced = changes.length > 0 ? this.core.catalog.reprice(changes).length : 0;
    const removed = gone.length > 0 ? this.core.catalog.remove(gone).length : 0;
    const listed = items.length > 0 ? this.core.catalog.upsert(items).length : 0;
    this.size += listed - removed;
    return { repriced, listed, removed };
  }

  /** A random on-sale item not picked yet this tick: the first on sale at or after a random id, wrapping. */
  private pickOnSale(lo: number, hi: number, picked: Set<number>): PickedItem | null {
    for (let attempt = 0; attempt < PICK_ATTEMPTS; attempt++) {
      const item = this.pickStmt.get(this.rng.int(lo, hi)) ?? this.pickStmt.get(lo);
      if (!item) return null;
      if (picked.has(item.itemId)) continue;
      picked.add(item.itemId);
      return item;
    }
    return null;
  }

  /**
   * ±repricePercent, whole cents, at least 1 cent, and never the same price. The
   * direction leans toward the listing's value (its name's level and its own
   * premiums), so prices wander around the market instead of drifting away;
   * without a known value it is a coin toss.
   */
  private newPrice(price: number, value: number | null): number {
    const [lo, hi] = this.options.repricePercent;
    const pull = value === null ? 0 : Math.tanh(Math.log(value / price) / PULL_SCALE);
    const up = this.rng.chance(0.5 + 0.45 * pull) || price <= 1;
    const percent = this.rng.float(lo, hi);
    let next = Math.max(1, Math.round(price * (1 + ((up ? 1 : -1) * percent) / 100)));
    if (next === price) next = up ? price + 1 : price - 1;
    return Math.max(1, next);
  }

  private countOnSale(): number {
    this.countedAt = Date.now();
    return (this.countStmt.get() as { n: number }).n;
  }
}

/** The value of a stored item, or null when its JSON is not an item the catalog can value. */
function valueOf(json: string): number | null {
  try {
    const item = JSON.parse(json) as ValuedItem;
    if (typeof item.market_hash_name !== 'string' || !Array.isArray(item.stickers) || !Array.isArray(item.keyChains))
      return null;
    return marketValue(item);
  } catch {
    // Rows are written by the catalog itself; an unreadable one is repriced without a pull.
    return null;
  }
}
