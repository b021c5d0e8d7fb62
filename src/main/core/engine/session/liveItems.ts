import type { Item, PriceChange } from '../../../../shared/api';
import type { CatalogRow } from '../../../../shared/ipc';
import { packPriceChanges, priceChangeOutcome } from '../../catalog';
import type { CatalogTotals, ItemChangeGroup, PriceMove } from '../../store/types';
import { type ItemFrame, ItemWriteQueue } from './itemWriteQueue';
import type { SessionContext } from './sessionContext';

/** At most this many item events in one writer call (a transaction of a few tenths of a second at most). */
const MAX_ITEM_EVENTS_PER_WRITE = 20_000;
/** Under a flood, the next writer call is sent while one is under way, once this many events wait (see ItemWriteQueue). */
const MIN_ITEM_EVENTS_TO_OVERLAP = 5_000;
/** Smaller writer calls go at most this often under a steady flow (see ItemWriteQueue). */
const MIN_MS_BETWEEN_ITEM_WRITES = 50;
/** SearchItems takes at most this many ids. */
const SEARCH_IDS_PER_REQUEST = 500;

/** Frames in arrival order as groups for the writer: each run of frames of one kind becomes one group. */
export function itemChangeGroups(frames: readonly ItemFrame[]): ItemChangeGroup[] {
  type Building =
    | { kind: 'upserts'; items: Item[] }
    | { kind: 'prices'; changes: PriceChange[] }
    | { kind: 'removals'; itemIds: number[] };
  const groups: Building[] = [];
  for (const frame of frames) {
    const last = groups[groups.length - 1];
    switch (frame.type) {
      case 'item_upserted':
        if (last?.kind === 'upserts') for (const item of frame.items) last.items.push(item);
        else groups.push({ kind: 'upserts', items: frame.items.slice() });
        break;
      case 'price_changed':
        if (last?.kind === 'prices') for (const change of frame.items) last.changes.push(change);
        else groups.push({ kind: 'prices', changes: frame.items.slice() });
        break;
      case 'item_removed':
        if (last?.kind === 'removals') for (const itemId of frame.itemIds) last.itemIds.push(itemId);
        else groups.push({ kind: 'removals', itemIds: frame.itemIds.slice() });
        break;
    }
  }
  return groups.map((group) =>
    group.kind === 'prices' ? { kind: 'prices', changes: packPriceChanges(group.changes) } : group,
  );
}

/**
 * Live item frames: alerts see new listings at once, the frames go to the store in batches (ItemWriteQueue), and
 * each written change is announced with the catalog's totals after it. Repriced items the cache never held are
 * fetched whole.
 */
export class LiveItems {
  private readonly writes = new ItemWriteQueue({
    write: (frames) => this.write(frames),
    onError: (error) => this.ctx.report('applying item frames', error),
    maxEventsPerWrite: MAX_ITEM_EVENTS_PER_WRITE,
    maxWritesInFlight: 2,
    minEventsToOverlap: MIN_ITEM_EVENTS_TO_OVERLAP,
    minMsBetweenWrites: MIN_MS_BETWEEN_ITEM_WRITES,
  });

  /** Items whose names' markets are read next: one read at a time, and what changes meanwhile joins the next one. */
  private marketItems: number[] = [];
  private marketsRead: Promise<void> | null = null;

  constructor(
    private readonly ctx: SessionContext,
    /** The catalog's count and value after a write (the session keeps the catalog's summary). */
    private readonly totalsAfterWrite: (totals: CatalogTotals) => void,
  ) {}

  onFrame(frame: ItemFrame): Promise<void> {
    // Auto-buy sees new listings at once (its exception, see AlertService.evaluateFrame); the write waits its turn.
    if (frame.type === 'item_upserted') this.ctx.hooks.onFrameItems(frame.items);
    return this.writes.push(frame);
  }

  stop(): void {
    this.writes.stop();
  }

  private async write(frames: ItemFrame[]): Promise<void> {
    const groups = itemChangeGroups(frames);
    const results = await this.ctx.store.applyItemChanges(groups);
    const unknown: number[] = [];
    for (const [i, entry] of results.entries()) {
      switch (entry.kind) {
        case 'upserts':
          this.announce(entry.result.totals, { upserted: entry.result.upserted, prices: entry.result.prices });
          this.written(entry.result.upserted);
          break;
        case 'prices': {
          const group = groups[i] as Extract<ItemChangeGroup, { kind: 'prices' }>;
          const outcome = priceChangeOutcome(group.changes, entry.result.previous);
          if (outcome.prices.length > 0) {
            this.announce(entry.result.totals, { prices: outcome.prices });
            this.ctx.hooks.onItemsWritten(outcome.prices.map((move) => move.itemId));
          }
          unknown.push(...outcome.unknown);
          break;
        }
        case 'removals':
          if (entry.result.removed.length > 0) this.announce(entry.result.totals, { removed: entry.result.removed });
          break;
      }
    }
    if (unknown.length === 0) return;
    // Repriced items we never saw are fetched whole, unless the same burst removed them. The next burst may be
    // written meanwhile (ItemWriteQueue); a removal in it was made on the server before its frame was sent,
    // so the fetch, made later, does not bring the item back.
    const removed = new Set(groups.flatMap((group) => (group.kind === 'removals' ? group.itemIds : [])));
    await this.fetchUnknown(unknown.filter((itemId) => !removed.has(itemId)));
  }

  /**
   * A live change of cached items; the catalog's totals after it go to the session's summary. Then the markets of
   * their names: another listing's move shifts the reference of every row of its name.
   */
  private announce(
    totals: CatalogTotals,
    change: { upserted?: CatalogRow[]; removed?: number[]; prices?: PriceMove[] },
  ): void {
    const items = {
      upserted: change.upserted ?? [],
      removed: change.removed ?? [],
      prices: change.prices ?? [],
      invalidated: false,
    };
    this.totalsAfterWrite(totals);
    this.ctx.events.push({ items });
    for (const row of items.upserted) this.marketItems.push(row.itemId);
    for (const itemId of items.removed) this.marketItems.push(itemId);
    for (const move of items.prices) this.marketItems.push(move.itemId);
    this.marketsRead ??= this.announceMarkets();
  }

  private async announceMarkets(): Promise<void> {
    try {
      while (this.marketItems.length > 0) {
        const markets = await this.ctx.store.nameMarkets(this.marketItems.splice(0));
        if (markets.length > 0) this.ctx.events.push({ markets });
      }
    } catch (error) {
      // The store closes under a pending read when the session stops.
      this.ctx.report('reading the markets of changed items', error);
    } finally {
      this.marketsRead = null;
    }
  }

  private written(rows: readonly CatalogRow[]): void {
    if (rows.length > 0) this.ctx.hooks.onItemsWritten(rows.map((row) => row.itemId));
  }

  /** Items a price change named that the cache never held: fetched whole, 500 ids per request. */
  private async fetchUnknown(itemIds: number[]): Promise<void> {
    const client = this.ctx.api?.client;
    if (!client) return;
    for (let i = 0; i < itemIds.length; i += SEARCH_IDS_PER_REQUEST) {
      const ids = itemIds.slice(i, i + SEARCH_IDS_PER_REQUEST);
      const found = await client.searchItems({ itemId: ids }, { signal: this.ctx.signal });
      if (found.items.length === 0) continue;
      const [written] = await this.ctx.store.applyItemChanges([{ kind: 'upserts', items: found.items }]);
      if (written?.kind !== 'upserts') continue;
      this.announce(written.result.totals, { upserted: written.result.upserted, prices: written.result.prices });
      this.written(written.result.upserted);
    }
  }
}
