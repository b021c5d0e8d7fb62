import { describe, expect, it } from 'vitest';
import type { FeedFrame, Item } from '../../src/shared/api';
import { itemChangeGroups } from '../../src/main/core/engine/session/liveItems';
import { packPriceChanges } from '../../src/main/core/catalog';

type ItemFrame = Extract<FeedFrame, { type: 'item_upserted' | 'price_changed' | 'item_removed' }>;

const item = (itemId: number) => ({ itemId }) as unknown as Item;
const prices = (...ids: number[]): ItemFrame => ({
  type: 'price_changed',
  items: ids.map((itemId) => ({ itemId, price: itemId * 10 })),
});
const removals = (...ids: number[]): ItemFrame => ({ type: 'item_removed', itemIds: ids });
const upserts = (...ids: number[]): ItemFrame => ({ type: 'item_upserted', items: ids.map(item) });

describe('item frames → writer groups', () => {
  it('merges each run of one kind into one group and keeps the feed order across kinds', () => {
    const frames = [
      prices(1, 2),
      prices(3),
      removals(1),
      removals(4),
      upserts(1),
      prices(1),
      upserts(5, 6),
      upserts(7),
    ];
    expect(itemChangeGroups(frames)).toEqual([
      // Price changes packed as (itemId, price) pairs: one copy across threads.
      { kind: 'prices', changes: new Float64Array([1, 10, 2, 20, 3, 30]) },
      { kind: 'removals', itemIds: [1, 4] },
      { kind: 'upserts', items: [item(1)] },
      { kind: 'prices', changes: packPriceChanges([{ itemId: 1, price: 10 }]) },
      { kind: 'upserts', items: [item(5), item(6), item(7)] },
    ]);
  });

  it('never changes the frames it was given', () => {
    const frames = [removals(1), removals(2)];
    itemChangeGroups(frames);
    expect(frames).toEqual([removals(1), removals(2)]);
    expect(itemChangeGroups([])).toEqual([]);
  });
});
