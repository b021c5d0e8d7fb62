import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Trade } from '../../../shared/api';
import type { CatalogRow, EngineEventBatch, SavedSearch } from '../../../shared/ipc';
import { EventBatcher, MAX_TRADES_PER_BATCH } from './batcher';

const row = (itemId: number, price: number): CatalogRow => ({
  itemId,
  assetId: String(itemId),
  market_hash_name: 'AK-47 | Redline (Field-Tested)',
  phase: null,
  price,
  float: 0.2,
  paintSeed: 1,
  rarityColor: '#d32ce6',
  img: null,
  stickerCount: 0,
  stickerNames: [],
  keyChainNames: [],
  statTrak: false,
  souvenir: false,
  listedAt: '2026-11-21T00:00:00.000Z',
  lastMove: null,
  market: null,
});

const trade = (tradeId: string, status: Trade['status']) => ({ tradeId, status }) as Trade;

describe('EventBatcher', () => {
  let batches: EngineEventBatch[];
  let batcher: EventBatcher;

  beforeEach(() => {
    vi.useFakeTimers();
    batches = [];
    batcher = new EventBatcher(50);
    batcher.subscribe((batch) => batches.push(batch));
  });
  afterEach(() => vi.useRealTimers());

  it('sends nothing while idle; news after a quiet interval goes at the end of its task, news within one at its end', () => {
    vi.advanceTimersByTime(500);
    expect(batches).toEqual([]);
    batcher.push({ activeTrades: 1 });
    batcher.push({ activeTrades: 2 });
    expect(batches).toHaveLength(0); // not inside the pushing task...
    vi.advanceTimersByTime(0);
    expect(batches).toHaveLength(1); // ...but right after it, both in one batch
    expect(batches[0]).toMatchObject({ seq: 1, activeTrades: 2 });
    vi.advanceTimersByTime(10);
    batcher.push({ activeTrades: 3 });
    vi.advanceTimersByTime(39);
    expect(batches).toHaveLength(1); // 49 ms since the last batch
    vi.advanceTimersByTime(1);
    expect(batches).toHaveLength(2);
    expect(batches[1]).toMatchObject({ seq: 2, activeTrades: 3 });
    vi.advanceTimersByTime(200);
    batcher.push({ activeTrades: 4 });
    vi.advanceTimersByTime(0);
    expect(batches).toHaveLength(3);
  });

  it('caps the flush rate at one batch per 50 ms under a continuous stream', () => {
    const flushedAt: number[] = [];
    batcher.subscribe(() => flushedAt.push(Date.now()));
    for (let ms = 0; ms < 1000; ms++) {
      batcher.push({
        items: {
          upserted: [],
          removed: [],
          prices: [{ itemId: ms % 7, price: ms, previous: null }],
          invalidated: false,
        },
      });
      vi.advanceTimersByTime(1);
    }
    // The first at once, then one at the end of each interval: at 0, 50, ..., 1000 ms (the loop ends at 1000).
    expect(flushedAt).toHaveLength(21);
    for (let i = 1; i < flushedAt.length; i++)
      expect((flushedAt[i] as number) - (flushedAt[i - 1] as number)).toBeGreaterThanOrEqual(50);
  });

  it('merges price changes per item, keeping the first previous and the last price', () => {
    batcher.push({
      items: { upserted: [], removed: [], prices: [{ itemId: 1, price: 110, previous: 100 }], invalidated: false },
    });
    batcher.push({
      items: { upserted: [], removed: [], prices: [{ itemId: 1, price: 95, previous: 110 }], invalidated: false },
    });
    batcher.push({
      items: { upserted: [], removed: [], prices: [{ itemId: 2, price: 5, previous: 4 }], invalidated: false },
    });
    batcher.flush();
    expect(batches[0]?.items?.prices).toEqual([
      { itemId: 1, price: 95, previous: 100 },
      { itemId: 2, price: 5, previous: 4 },
    ]);
  });

  it('keeps one market per name and phase, the latest', () => {
    const market = (name: string, phase: string | null, reference: number) => ({
      name,
      phase,
      reference,
      listings: 4,
      plainListings: 3,
    });
    batcher.push({
      markets: [
        market('AK-47 | Redline (Field-Tested)', null, 3000),
        market('★ Karambit | Doppler (Factory New)', 'Ruby', 900_000),
      ],
    });
    batcher.push({ markets: [market('AK-47 | Redline (Field-Tested)', null, 3100)] });
    batcher.push({ markets: [market('★ Karambit | Doppler (Factory New)', 'Phase 2', 130_000)] });
    batcher.flush();
    expect(batches[0]?.markets).toEqual([
      market('AK-47 | Redline (Field-Tested)', null, 3100),
      market('★ Karambit | Doppler (Factory New)', 'Ruby', 900_000),
      market('★ Karambit | Doppler (Factory New)', 'Phase 2', 130_000),
    ]);
    batcher.push({ activeTrades: 1 });
    batcher.flush();
    expect(batches[1]?.markets).toBeUndefined();
  });

  it('lets the latest item news win: removal after upsert, upsert after removal', () => {
    batcher.push({ items: { upserted: [row(1, 10), row(2, 20)], removed: [], prices: [], invalidated: false } });
    batcher.push({
      items: { upserted: [], removed: [1, 3], prices: [{ itemId: 2, price: 25, previous: 20 }], invalidated: false },
    });
    batcher.push({ items: { upserted: [row(3, 30)], removed: [], prices: [], invalidated: true } });
    batcher.flush();
    const items = batches[0]?.items;
    expect(items?.upserted.map((r) => r.itemId).sort()).toEqual([2, 3]);
    expect(items?.removed).toEqual([1]);
    expect(items?.prices).toEqual([{ itemId: 2, price: 25, previous: 20 }]);
    expect(items?.invalidated).toBe(true);
  });

  it('keeps one entry per trade, the latest, and concatenates notifications', () => {
    batcher.push({
      trades: [trade('a', 'PENDING')],
      notifications: [{ id: 'n1', kind: 'trade', title: 't', body: 'b', target: null, at: 'x' }],
    });
    batcher.push({
      trades: [trade('a', 'SENT'), trade('b', 'PENDING')],
      notifications: [{ id: 'n2', kind: 'trade', title: 't', body: 'b', target: null, at: 'x' }],
    });
    batcher.flush();
    expect(batches[0]?.trades?.map((t) => [t.tradeId, t.status])).toEqual([
      ['a', 'SENT'],
      ['b', 'PENDING'],
    ]);
    expect(batches[0]?.notifications?.map((n) => n.id)).toEqual(['n1', 'n2']);
    batcher.flush();
    expect(batches).toHaveLength(1);
  });

  it('carries at most MAX_TRADES_PER_BATCH trades: past it, only that trades changed, until the next batch', () => {
    const many = Array.from({ length: MAX_TRADES_PER_BATCH + 1 }, (_, i) => trade(`t${i}`, 'COMPLETED'));
    batcher.push({ trades: many.slice(0, 150) });
    batcher.push({ trades: many.slice(150) });
    batcher.push({ trades: [trade('late', 'SENT')] });
    batcher.flush();
    expect(batches[0]?.trades).toBeUndefined();
    expect(batches[0]?.tradesInvalidated).toBe(true);
    batcher.push({ trades: [trade('next', 'SENT')] });
    batcher.flush();
    expect(batches[1]?.trades?.map((t) => t.tradeId)).toEqual(['next']);
    expect(batches[1]?.tradesInvalidated).toBeUndefined();
  });

  it('keeps the latest news of each saved search: a save then a deletion is a deletion, two saves the second', () => {
    const search = (id: string, name: string) => ({
      id,
      name,
      query: {} as SavedSearch['query'],
      createdAt: 'x',
      updatedAt: 'x',
    });
    batcher.push({ savedSearches: { saved: [search('a', 'First'), search('b', 'Kept')], deleted: [] } });
    batcher.push({ savedSearches: { saved: [search('b', 'Renamed')], deleted: ['a'] } });
    batcher.flush();
    expect(batches[0]?.savedSearches).toEqual({ saved: [search('b', 'Renamed')], deleted: ['a'] });
    batcher.push({ activeTrades: 1 });
    batcher.flush();
    expect(batches[1]?.savedSearches).toBeUndefined();
  });
});
