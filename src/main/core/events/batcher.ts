import type { CatalogRow, EngineEventBatch, NameMarket, SavedSearch } from '../../../shared/ipc';
import type { Trade } from '../../../shared/api';
import { toUtcIso } from '../../../shared/time';

export type EventPatch = Omit<EngineEventBatch, 'seq' | 'at'>;

/** At most ~20 flushes a second. */
export const DEFAULT_FLUSH_INTERVAL_MS = 50;
/** A batch carries at most this many trades; past it, only that trades changed (a page re-queries what it shows). */
export const MAX_TRADES_PER_BATCH = 200;

/**
 * Coalesces engine events into batches (after Signal's batcher: the timer
 * starts with the first event, so an idle engine sends nothing). A batch goes
 * once the interval since the last one has passed: the first event after a
 * quiet interval goes at the end of its task (with whatever that task pushed),
 * later ones within the interval wait for its end. So at most one batch per
 * interval, and news of a quiet engine is not held back by it. Within a
 * batch the latest value wins: one entry per trade, one price per item
 * (keeping the oldest `previous`, so a flash shows the net move), one market
 * per name and phase, an upsert or removal supersedes earlier item news of
 * the same id, and so does a saved search's save or deletion.
 */
export class EventBatcher {
  private pending: EventPatch | null = null;
  private trades = new Map<string, Trade>();
  private tradesInvalidated = false;
  private upserted = new Map<number, CatalogRow>();
  private removed = new Set<number>();
  private prices = new Map<number, { itemId: number; price: number; previous: number | null }>();
  private invalidated = false;
  private savedSearches = new Map<string, SavedSearch>();
  private deletedSearches = new Set<string>();
  private markets = new Map<string, NameMarket>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private seq = 0;
  private readonly listeners = new Set<(batch: EngineEventBatch) => void>();

  constructor(
    private readonly intervalMs = DEFAULT_FLUSH_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  subscribe(listener: (batch: EngineEventBatch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  push(patch: EventPatch): void {
    const pending = (this.pending ??= {});
    if (!this.tradesInvalidated) for (const trade of patch.trades ?? []) this.trades.set(trade.tradeId, trade);
    // Operations → Recipients re-reads its page when trades move: a flag, not the trades again.
    if ((patch.trades && patch.trades.length > 0) || patch.tradesInvalidated) pending.recipientsChanged = true;
    if (this.trades.size > MAX_TRADES_PER_BATCH) {
      this.tradesInvalidated = true;
      this.trades = new Map();
    }
    for (const market of patch.markets ?? []) this.markets.set(`${market.name}\u0000${market.phase ?? ''}`, market);
    if (patch.items) {
      for (const row of patch.items.upserted) {
        this.removed.delete(row.itemId);
        this.prices.delete(row.itemId);
        this.upserted.set(row.itemId, row);
      }
      for (const itemId of patch.items.removed) {
        this.upserted.delete(itemId);
        this.prices.delete(itemId);
        this.removed.add(itemId);
      }
      for (const change of patch.items.prices) {
        const earlier = this.prices.get(change.itemId);
        this.prices.set(change.itemId, { ...change, previous: earlier ? earlier.previous : change.previous });
      }
      this.invalidated ||= patch.items.invalidated;
    }
    if (patch.savedSearches) {
      for (const search of patch.savedSearches.saved) {
        this.deletedSearches.delete(search.id);
        this.savedSearches.set(search.id, search);
      }
      for (const id of patch.savedSearches.deleted) {
        this.savedSearches.delete(id);
        this.deletedSearches.add(id);
      }
    }
    if (patch.firings) pending.firings = [...(pending.firings ?? []), ...patch.firings];
    if (patch.notifications) pending.notifications = [...(pending.notifications ?? []), ...patch.notifications];
    const { trades: _t, items: _i, markets: _m, firings: _f, notifications: _n, savedSearches: _s, ...scalars } = patch;
    Object.assign(pending, scalars);
    // Clamped: a wall clock set back must not hold a batch longer than the interval.
    this.timer ??= setTimeout(
      () => this.flush(),
      Math.min(this.intervalMs, Math.max(0, this.lastFlushAt + this.intervalMs - this.now())),
    );
  }

  /** Sends what is pending now (also used on shutdown). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.pending) return;
    this.lastFlushAt = this.now();
    const batch: EngineEventBatch = { ...this.pending, seq: ++this.seq, at: toUtcIso(this.lastFlushAt) };
    if (this.trades.size > 0) batch.trades = [...this.trades.values()];
    if (this.tradesInvalidated) batch.tradesInvalidated = true;
    if (this.markets.size > 0) batch.markets = [...this.markets.values()];
    if (this.upserted.size > 0 || this.removed.size > 0 || this.prices.size > 0 || this.invalidated) {
      batch.items = {
        upserted: [...this.upserted.values()],
        removed: [...this.removed],
        prices: [...this.prices.values()],
        invalidated: this.invalidated,
      };
    }
    if (this.savedSearches.size > 0 || this.deletedSearches.size > 0) {
      batch.savedSearches = { saved: [...this.savedSearches.values()], deleted: [...this.deletedSearches] };
    }
    this.pending = null;
    this.savedSearches = new Map();
    this.deletedSearches = new Set();
    this.trades = new Map();
    this.tradesInvalidated = false;
    this.markets = new Map();
    this.upserted = new Map();
    this.removed = new Set();
    this.prices = new Map();
    this.invalidated = false;
    for (const listener of this.listeners) listener(batch);
  }

  close(): void {
    this.flush();
    this.listeners.clear();
  }
}
