/**
 * The reader's saved snapshot (taken up at the next start instead of reading every row): taken up, it answers
 * as a snapshot read from the rows does, also after rows written since it was saved are patched in.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalStore } from '../../src/main/core/store';
import { openConnection } from '../../src/main/core/store/worker/open';
import { CatalogSnapshot } from '../../src/main/core/store/worker/snapshot';
import { makeItem } from './storeModel/items';
import { tempDirs } from '../support/tempDirs';
import { applyItemRemovals, applyItemUpserts, applyPriceChanges } from '../support/liveChanges';

const temp = tempDirs();

/** What a snapshot holds for an item: its columns, its lists and its market standing. */
function viewOf(snapshot: CatalogSnapshot, itemId: number) {
  const slot = snapshot.slotOf(itemId);
  return {
    onSale: snapshot.onSale[slot],
    price: snapshot.price[slot],
    seed: snapshot.seed[slot],
    name: snapshot.names[snapshot.nameId[slot] as number],
    stickers: snapshot.stickerNames.bySlot.get(slot).map((id) => snapshot.stickerNames.names[id]),
    sameStickers: snapshot.sameStickers[slot],
    charms: snapshot.charmNames.bySlot.get(slot).map((id) => snapshot.charmNames.names[id]),
    charmPatterns: snapshot.charmPatterns.get(slot),
    standing: snapshot.markets.standing(slot),
    groupSize: snapshot.markets.groupSlots(slot).length,
  };
}

function fresh(file: string): CatalogSnapshot {
  const snapshot = new CatalogSnapshot(openConnection(file, true).db);
  snapshot.refresh();
  return snapshot;
}

describe('saved snapshot', () => {
  it('is taken up at the next start and answers as one read from the rows, before and after later writes', async () => {
    const file = join(temp('snapshot-save-'), 'm1.sqlite');
    const items = Array.from({ length: 400 }, (_, i) => makeItem(i + 1, i * 31, 100 + ((i * 37) % 900)));
    let store = await LocalStore.open({ file });
    await applyItemUpserts(store, items);
    await applyItemRemovals(store, [5, 6, 7]);
    // Items re-written with other stickers and charms: their lists' old runs are left behind in the pool.
    await applyItemUpserts(
      store,
      items.slice(100, 200).map((item) => ({ ...makeItem(item.itemId, item.itemId * 97, item.price + 1) })),
    );
    await store.queryCatalog({ limit: 1 });
    await store.close();
    expect(existsSync(`${file}.snapshot`)).toBe(true);

    const taken = new CatalogSnapshot(openConnection(file, true).db);
    expect(taken.load(`${file}.snapshot`)).toBe(true);
    const ids = items.map((item) => item.itemId);
    const built = fresh(file);
    for (const itemId of ids) expect(viewOf(taken, itemId), `item ${itemId}`).toEqual(viewOf(built, itemId));

    // Written after the save: the taken-up snapshot patches them in.
    store = await LocalStore.open({ file });
    await applyItemUpserts(
      store,
      items.slice(0, 50).map((item) => makeItem(item.itemId, item.itemId * 13, item.price * 2)),
    );
    await applyPriceChanges(store, [{ itemId: 300, price: 1 }]);
    await store.close();
    taken.refresh();
    const rebuilt = fresh(file);
    for (const itemId of ids)
      expect(viewOf(taken, itemId), `item ${itemId} after later writes`).toEqual(viewOf(rebuilt, itemId));
  });
});
