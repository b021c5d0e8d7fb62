/**
 * The reader's saved snapshot (taken up at the next start instead of reading every row): taken up, it answers
 * as a snapshot read from the rows does, also after rows written since it was saved are patched in; a file of
 * another format or a damaged one is not taken up (the rows are read); the writer's version counter, which
 * the patching follows, survives a reopen.
 */
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LocalStore } from '../../src/main/core/store';
import { openConnection } from '../../src/main/core/store/worker/open';
import { CatalogSnapshot } from '../../src/main/core/catalog/snapshot';
import { CatalogQuery } from '../../src/main/core/catalog/catalogQuery';
import { catalogQuerySchema } from '../../src/shared/ipc/contract';
import { makeItem } from './storeModel/items';
import { ListServer } from './storeModel/listServer';
import { tempDirs } from '../support/tempDirs';
import { applyItemRemovals, applyItemUpserts, applyPriceChanges } from '../support/liveChanges';

const temp = tempDirs();

/** What a snapshot holds for an item: its columns, its lists and its market standing. */
function viewOf(snapshot: CatalogSnapshot, itemId: number) {
  const slot = snapshot.slotOf(itemId);
  return {
    onSale: snapshot.onSale[slot],
    price: snapshot.price[slot],
    float: snapshot.float[slot],
    seed: snapshot.seed[slot],
    phase: snapshot.phases[snapshot.phase[slot] as number],
    rarity: snapshot.rarity[slot],
    flags: snapshot.flags[slot],
    stickerCount: snapshot.stickers[slot],
    charmCount: snapshot.charms[slot],
    listedAt: snapshot.listedAt[slot],
    removedAt: snapshot.removedAt[slot],
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

  it('is not taken up when of another format or damaged: the store answers from the rows', async () => {
    const file = join(temp('snapshot-bad-'), 'm2.sqlite');
    const items = Array.from({ length: 60 }, (_, i) => makeItem(i + 1, i * 7, 100 + i));
    let store = await LocalStore.open({ file });
    await applyItemUpserts(store, items);
    await applyItemRemovals(store, [3, 4]);
    const page = await store.queryCatalog({ sort: 'price', direction: 'desc', limit: 100 });
    const info = await store.catalogInfo();
    await store.close();
    const good = readFileSync(`${file}.snapshot`);
    const saved = deserialize(good) as Record<string, unknown>;
    const columns = saved['columns'] as Record<string, unknown>;
    const bad: [string, Buffer][] = [
      ['cut short', good.subarray(0, good.length >> 1)],
      ['not a snapshot', Buffer.from('{"format":7}')],
      ['of another format', serialize({ ...saved, format: 6 })],
      ['a column of another type', serialize({ ...saved, columns: { ...columns, price: new Int32Array(4096) } })],
      ['a column missing', serialize({ ...saved, columns: { ...columns, removedAt: undefined } })],
      ['lists that do not read as lists', serialize({ ...saved, charmPatterns: { start: [] } })],
    ];
    expect(new CatalogSnapshot(openConnection(file, true).db).load(`${file}.snapshot`), 'the good one').toBe(true);
    const built = fresh(file);
    for (const [what, bytes] of bad) {
      writeFileSync(`${file}.snapshot`, bytes);
      const snapshot = new CatalogSnapshot(openConnection(file, true).db);
      expect(snapshot.load(`${file}.snapshot`), what).toBe(false);
      snapshot.refresh();
      for (const { itemId } of items)
        expect(viewOf(snapshot, itemId), `${what}: item ${itemId}`).toEqual(viewOf(built, itemId));
    }
    // The store itself, on the last of them.
    store = await LocalStore.open({ file });
    expect(await store.queryCatalog({ sort: 'price', direction: 'desc', limit: 100 })).toEqual(page);
    expect(await store.catalogInfo()).toEqual(info);
    await store.close();
  });

  it('is patched from the writer version counter, kept in meta across a reopen after retention dropped the newest rows', async () => {
    const file = join(temp('snapshot-version-'), 'm3.sqlite');
    const snapshotFile = `${file}.snapshot`;
    const item = (itemId: number) => makeItem(itemId, itemId, 100 * itemId);
    const [a, b] = [item(1), item(2)];
    const server = await ListServer.start();
    try {
      let store = await LocalStore.open({ file });
      await applyItemUpserts(store, [a]);
      await applyItemUpserts(store, [b]);
      await applyItemRemovals(store, [b.itemId]);
      await store.close();
      // Eight days pass: b left sale longer ago than the week a sync keeps it.
      const db = new Database(file);
      db.prepare('UPDATE items SET removed_at = removed_at - ? WHERE itemId = ?').run(8 * 24 * 3600_000, b.itemId);
      db.close();

      store = await LocalStore.open({ file });
      const counter = (await store.getMeta('catalog.version')) as number;
      server.serve([a], '2026-11-01T00:00:00.000Z', 'whole');
      expect(await store.syncCatalog({ url: server.url, headers: {} })).toMatchObject({ ok: true, total: 1 });
      // The sync dropped b, whose row held the highest version, and wrote no row: the counter is in meta only.
      expect(await store.getMeta('catalog.version')).toBe(counter + 1);
      await store.close();
      const savedBefore = `${file}.before`;
      copyFileSync(snapshotFile, savedBefore);

      store = await LocalStore.open({ file });
      expect(await store.getMeta('catalog.version'), 'after a reopen').toBe(counter + 1);
      for (const itemId of [3, 4, 5]) await applyItemUpserts(store, [item(itemId)]);
      expect(await store.getMeta('catalog.version')).toBe(counter + 4);
      await store.close();
      // The snapshot as a kill of the app before this close would have left it: the one saved at the close before.
      copyFileSync(savedBefore, snapshotFile);

      store = await LocalStore.open({ file });
      try {
        expect(await store.catalogInfo()).toMatchObject({ totalItems: 4, totalValue: 100 + 300 + 400 + 500 });
        const rows = (await store.queryCatalog({ sort: 'price', direction: 'asc' })).rows;
        expect(rows.map((row) => row.itemId)).toEqual([1, 3, 4, 5]);
      } finally {
        await store.close();
      }
    } finally {
      await server.close();
    }
  });

  it('is not taken up by a snapshot that already read the rows (a query came first): its sorts stay whole', async () => {
    const file = join(temp('snapshot-late-'), 'm4.sqlite');
    const snapshotFile = `${file}.snapshot`;
    const plain = Array.from({ length: 30 }, (_, i) => ({ ...makeItem(i + 1, i, 100 + i), phase: null }));
    let store = await LocalStore.open({ file });
    await applyItemUpserts(store, plain);
    await store.close();
    const savedBefore = `${file}.before`;
    copyFileSync(snapshotFile, savedBefore);
    // Later rows bring phases and names the saved file never held; the app is killed before it saves again.
    store = await LocalStore.open({ file });
    const phased = ['Phase 2', 'Emerald', 'Phase 1'].map((phase, i) => ({
      ...makeItem(100 + i, 7 * i, 500 + i),
      market_hash_name: `★ Karambit | Doppler (Factory New) ${i}`,
      phase,
    }));
    await applyItemUpserts(store, phased);
    await store.close();
    copyFileSync(savedBefore, snapshotFile);

    const early = new CatalogSnapshot(openConnection(file, true).db);
    early.refresh();
    expect(early.load(snapshotFile)).toBe(false);
    early.refresh();
    const built = fresh(file);
    const pageOf = (snapshot: CatalogSnapshot, sort: 'phase' | 'name') =>
      Array.from(
        new CatalogQuery(snapshot).run(catalogQuerySchema.parse({ sort, direction: 'desc', limit: 40 })).slots,
        (slot) => snapshot.itemId[slot],
      );
    for (const sort of ['phase', 'name'] as const) expect(pageOf(early, sort), sort).toEqual(pageOf(built, sort));
    expect(pageOf(built, 'phase').slice(0, 3)).toEqual([100, 102, 101]);
  });
});
