/**
 * What a sync compares the list with: every held item's id and hash. The writer
 * keeps the last snapshot and patches it from the change log; the patched one
 * must equal a scan of `items` whatever happened in between (live upserts,
 * removals, price changes, re-syncs), and it must fall back to a scan when the
 * log cannot tell. Real SQLite file, writer in-process, lists over real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { KnownItems } from '../../src/main/core/store/worker/catalogSync';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { Rng } from '../../src/server/catalog/rng';
import { syncWriterWithList } from '../support/listServer';

const dir = mkdtempSync(join(tmpdir(), 'known-items-'));
let writer: WriterService;
let catalog: Item[];

beforeAll(() => {
  catalog = [...generateCatalog({ seed: 3, count: 2600, imageBaseUrl: 'http://sandbox.invalid/img' })];
  writer = new WriterService(join(dir, 'known.sqlite'));
  writer.applyItemUpserts(catalog.slice(0, 2000));
});

afterAll(() => {
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The table as a scan reads it. */
function scanned(): { ids: number[]; hashes: number[] } {
  const rows = writer.db.prepare<[], { itemId: number; hash: number }>('SELECT itemId, hash FROM items ORDER BY itemId').all() as { itemId: number; hash: number }[];
  return { ids: rows.map((row) => row.itemId), hashes: rows.map((row) => row.hash) };
}

function loadSnapshot() {
  KnownItems.load(writer);
  const snapshot = writer.knownItemsSnapshot;
  if (!snapshot) throw new Error('no snapshot after a load');
  return { readBy: snapshot.readBy, ids: [...snapshot.ids], hashes: [...snapshot.hashes] };
}

const syncList = (items: Item[]) => syncWriterWithList(writer, items);

describe('the known items snapshot', () => {
  it('is patched from the change log and equals a scan through live changes and re-syncs', async () => {
    const first = loadSnapshot();
    expect(first.readBy).toBe('scan');
    expect(first).toEqual({ readBy: 'scan', ...scanned() });

    const rng = new Rng(9);
    const held = new Map(catalog.slice(0, 2000).map((item) => [item.itemId, item]));
    const spare = catalog.slice(2000);
    let price = 900_000;
    let patched = 0;
    for (let round = 0; round < 12; round++) {
      const ids = [...held.keys()];
      const pick = () => ids[rng.int(0, ids.length - 1)] as number;
      // Live: new listings, changed items, removals, price changes.
      const added = spare.splice(0, rng.int(0, 30));
      const changed = Array.from({ length: rng.int(0, 20) }, () => {
        const item = held.get(pick()) as Item;
        return { ...item, float: item.float === null ? 0.25 : item.float / 2 };
      });
      writer.applyItemUpserts([...added, ...changed]);
      for (const item of [...added, ...changed]) held.set(item.itemId, item);
      const removed = [...new Set(Array.from({ length: rng.int(0, 25) }, pick))];
      writer.applyItemRemovals(removed);
      for (const itemId of removed) held.delete(itemId);
      // At least one, so every round logs something.
      const live = [...held.keys()].filter((_itemId, i) => i === 0 || rng.int(0, 60) === 0);
      writer.applyPriceChanges(live.map((itemId) => ({ itemId, price: price++ })));
      if (round % 3 === 2) {
        // A re-sync: some repriced, some sold, two new; the rest as held.
        const list = [...held.values()]
          .filter(() => rng.int(0, 40) !== 0)
          .map((item) => (rng.int(0, 20) === 0 ? { ...item, price: price++ } : item))
          .concat(spare.splice(0, 2));
        const result = await syncList(list);
        expect(result).toMatchObject({ ok: true, mode: 'incremental', total: list.length });
        held.clear();
        for (const item of list) held.set(item.itemId, item);
      }
      const snapshot = loadSnapshot();
      if (snapshot.readBy === 'log') patched++;
      expect({ round, ...snapshot, readBy: undefined }).toEqual({ round, ...scanned(), readBy: undefined });
    }
    // Every load after the first was a patch (nothing here trims the log or reloads everything).
    expect(patched).toBe(12);
  });

  it('falls back to a scan when the log was trimmed past it, or counts another number of items', () => {
    loadSnapshot();
    const [one, two] = [catalog[5] as Item, catalog[6] as Item];
    writer.applyItemUpserts([{ ...one, price: one.price + 1, float: 0.123 }]);
    writer.applyItemUpserts([{ ...two, price: two.price + 1, float: 0.321 }]);
    // The first entry since the snapshot is gone: the log cannot say all that changed.
    writer.db.prepare('DELETE FROM item_changes WHERE seq < (SELECT max(seq) FROM item_changes)').run();
    const afterTrim = loadSnapshot();
    expect(afterTrim.readBy).toBe('scan');
    expect(afterTrim).toEqual({ readBy: 'scan', ...scanned() });

    // A row removed without a log entry (not something the writer does): the count tells.
    const victim = afterTrim.ids[10] as number;
    writer.db.prepare('DELETE FROM items WHERE itemId = ?').run(victim);
    const afterUnlogged = loadSnapshot();
    expect(afterUnlogged.readBy).toBe('scan');
    expect(afterUnlogged.ids).not.toContain(victim);
    expect(afterUnlogged).toEqual({ readBy: 'scan', ...scanned() });

    // A reload marker (a large sync) also means a scan.
    writer.logFullReload();
    expect(loadSnapshot().readBy).toBe('scan');
    writer.applyPriceChanges([{ itemId: afterUnlogged.ids[0] as number, price: 5 }]);
    expect(loadSnapshot()).toEqual({ readBy: 'log', ...scanned() });
  });
});
