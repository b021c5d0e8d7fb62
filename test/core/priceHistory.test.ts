/**
 * The price history on a real SQLite file: live moves read from the change log until
 * folded into a run of price_moves; runs merged in slices (by the writer, and by the
 * store worker when idle) without a reader seeing a move lost or doubled; moves older
 * than 30 days pruned a slice per sync.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { LocalStore } from '../../src/main/core/store';
import { MERGE_SLICE_MOVES, PRICE_HISTORY_MS, RUN_FANOUT } from '../../src/main/core/store/worker/priceHistory';
import { ReaderService } from '../../src/main/core/store/worker/reader';
import { META } from '../../src/main/core/store/worker/rows';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { generateCatalog } from '../../src/server/catalog/generator';
import { until } from '../support/until';

const dir = mkdtempSync(join(tmpdir(), 'price-history-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 24 * 60 * 60 * 1000;

const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

describe('live price moves', () => {
  it('are read from the change log until folded into price_moves, and read the same after', async () => {
    const file = join(dir, 'moves.sqlite');
    const writer = new WriterService(file);
    const reader = new ReaderService(file, { catalogIndex: false });
    try {
      const [item, other] = [...generateCatalog({ seed: 8, count: 2, imageBaseUrl: 'http://sandbox.invalid/img' })] as [Item, Item];
      writer.applyItemUpserts([{ ...item, price: 1000 }, other]);
      const prices = () => reader.getItem(item.itemId)?.priceHistory.map((point) => point.price);
      const count = (sql: string) => writer.db.prepare(sql).pluck().get() as number;
      // Two live price changes and a whole-item update that moves the price.
      await tick();
      writer.applyPriceChanges([{ itemId: item.itemId, price: 1100 }, { itemId: other.itemId, price: other.price + 5 }]);
      await tick();
      writer.applyPriceChanges([{ itemId: item.itemId, price: 1200 }]);
      await tick();
      writer.applyItemUpserts([{ ...item, price: 1300, float: 0.5 }]);
      expect(prices()).toEqual([1000, 1100, 1200, 1300]);
      expect(count('SELECT count(*) FROM price_moves')).toBe(0);
      expect(count('SELECT count(*) FROM item_changes WHERE moved IS NOT NULL')).toBe(4);

      const before = reader.getItem(item.itemId)?.priceHistory;
      writer.db.transaction(() => writer.foldPriceMoves())();
      expect(count('SELECT count(*) FROM price_moves')).toBe(4);
      expect(writer.readMeta(META.movesFolded)).toBe(count('SELECT max(seq) FROM item_changes'));
      expect(reader.getItem(item.itemId)?.priceHistory).toEqual(before);

      // Moves on top of folded ones; of two at the same time, the later one counts.
      await tick();
      writer.applyPriceChanges([{ itemId: item.itemId, price: 1250 }]);
      const last = count(`SELECT max(at) FROM price_moves WHERE itemId = ${item.itemId}`);
      writer.db.prepare('INSERT INTO item_changes (itemId, at, moved, previous) VALUES (?, ?, ?, ?)').run(item.itemId, last, 1299, 1200);
      expect(prices()).toEqual([1000, 1100, 1200, 1299, 1250]);
      writer.db.transaction(() => writer.foldPriceMoves())();
      expect(prices()).toEqual([1000, 1100, 1200, 1299, 1250]);
    } finally {
      reader.close();
      writer.close();
    }
  });
});

describe('price history runs', () => {
  const count = (writer: WriterService, sql: string) => writer.db.prepare(sql).pluck().get() as number;

  it('merges the newest runs of one size class in slices: readers see every move once throughout, the later of two at one time, and a restart finishes the merge', () => {
    const file = join(dir, 'runs.sqlite');
    let writer = new WriterService(file);
    const reader = new ReaderService(file, { catalogIndex: false });
    try {
      const items = [...generateCatalog({ seed: 9, count: 3, imageBaseUrl: 'http://sandbox.invalid/img' })];
      writer.applyItemUpserts(items);
      const ids = items.map((item) => item.itemId);
      const now = Date.now();
      const old = now - PRICE_HISTORY_MS - 60_000;
      // Listed before every move written below (a history shows the moves since the listing).
      writer.db.prepare('UPDATE items SET listed_at = ?').run(old);
      // RUN_FANOUT runs; the watched items move in every run, filler items make the merge take several slices.
      const fillerPerRun = Math.ceil((2.5 * MERGE_SLICE_MOVES) / RUN_FANOUT);
      for (let r = 0; r < RUN_FANOUT; r++) {
        const moves: [number, number, number, number][] = [];
        for (const [k, itemId] of ids.entries()) moves.push([itemId, now - 10_000 + r * 100 + k, 1000 + r, 999 + r]);
        for (let f = 0; f < fillerPerRun; f++) moves.push([10_000_000 + f * 3 + (r % 3), now - 20_000 + r, 500, 400]);
        // A move past the retention (dropped by the merge) and a move of the first item at one time in every run (the last run's stays).
        moves.push([ids[2] as number, old, 1, 2]);
        moves.push([ids[0] as number, now - 5_000, 7000 + r, 6000]);
        appendRunOf(writer, moves);
      }
      const history = (itemId: number) => reader.getItem(itemId)?.priceHistory.map((point) => `${point.at}=${point.price}`) ?? [];
      const before = ids.map(history);
      const oldIso = new Date(old).toISOString();
      // The third item's oldest move is past the retention: it starts the history (its listing point and the move).
      expect(before[2]?.slice(0, 2).every((point) => point.startsWith(oldIso))).toBe(true);
      /** Mid-merge, the first two histories read as before; the third's (checked at the end) as before or as after. */
      const seenThird: string[][] = [];
      const expectWhole = () => {
        expect(ids.slice(0, 2).map(history)).toEqual(before.slice(0, 2));
        seenThird.push(history(ids[2] as number));
      };
      expect(before[0]).toContain(`${new Date(now - 5_000).toISOString()}=${7000 + RUN_FANOUT - 1}`);
      const total = count(writer, 'SELECT count(*) FROM price_moves');
      const distinct = count(writer, 'SELECT count(*) FROM (SELECT DISTINCT itemId, at FROM price_moves)');

      // One slice: a merge under way, readers see the same histories.
      writer.db.transaction(() => expect(writer.priceHistory.mergeStep(now)).toBe(true))();
      const merge = writer.priceHistory.pendingMerge();
      expect(merge?.sources).toHaveLength(RUN_FANOUT);
      expectWhole();
      expect(count(writer, `SELECT count(*) FROM price_moves WHERE run = ${merge?.into}`)).toBeGreaterThan(0);

      // A restart in the middle: the merge is in meta and goes on from where it was.
      writer.close();
      writer = new WriterService(file);
      expect(writer.priceHistory.pendingMerge()).toEqual(merge);
      let slices = 1;
      for (let more = true; more; slices++) {
        more = writer.idleWork();
        expectWhole();
      }
      // ~50k moves at ~20k a slice.
      expect(slices).toBeGreaterThanOrEqual(3);
      expect(writer.priceHistory.pendingMerge()).toBeNull();
      // One run holds everything: each (item, time) once, the old moves gone.
      expect(count(writer, 'SELECT count(*) FROM price_move_runs')).toBe(1);
      expect(count(writer, 'SELECT count(DISTINCT run) FROM price_moves')).toBe(1);
      expect(count(writer, 'SELECT count(*) FROM price_moves')).toBe(distinct - 1);
      expect(total).toBeGreaterThan(distinct);
      expect(count(writer, `SELECT count(*) FROM price_moves WHERE at < ${now - PRICE_HISTORY_MS}`)).toBe(0);
      const span = writer.db.prepare('SELECT moves, first_at, last_at FROM price_move_runs').get() as { moves: number; first_at: number; last_at: number };
      expect(span).toEqual({ moves: distinct - 1, first_at: now - 20_000, last_at: now - 5_000 });
      // The histories read the same, but for the old move, which retention dropped (the listing point is then the next move's previous price).
      expect(ids.slice(0, 2).map(history)).toEqual(before.slice(0, 2));
      const third = history(ids[2] as number);
      // At the old time only the listing point is left (its price the next move's previous one).
      expect(third.filter((point) => point.startsWith(oldIso))).toHaveLength(1);
      expect(third.slice(1)).toEqual(before[2]?.slice(2));
      for (const seen of seenThird) expect([before[2], third]).toContainEqual(seen);
      // Nothing more to merge until RUN_FANOUT new runs share a class again.
      expect(writer.idleWork()).toBe(false);
    } finally {
      reader.close();
      writer.close();
    }
  });

  it('live folds append runs, and the store worker merges them once no call came for a while', async () => {
    const file = join(dir, 'worker-runs.sqlite');
    const items = [...generateCatalog({ seed: 10, count: 4, imageBaseUrl: 'http://sandbox.invalid/img' })];
    const writer = new WriterService(file);
    try {
      writer.applyItemUpserts(items);
      // RUN_FANOUT live folds: each burst of price changes folded into its own run.
      for (let r = 1; r <= RUN_FANOUT; r++) {
        await tick();
        writer.applyPriceChanges(items.map((item, k) => ({ itemId: item.itemId, price: 10_000 * r + k })));
        writer.db.transaction(() => writer.foldPriceMoves())();
      }
      expect(count(writer, 'SELECT count(*) FROM price_move_runs')).toBe(RUN_FANOUT);
      expect(count(writer, 'SELECT count(*) FROM price_moves')).toBe(RUN_FANOUT * items.length);
    } finally {
      writer.close();
    }
    const store = await LocalStore.open({ file });
    try {
      const before = await store.getItem(items[1]?.itemId as number);
      expect(before?.priceHistory.map((point) => point.price).slice(-RUN_FANOUT)).toEqual(Array.from({ length: RUN_FANOUT }, (_, r) => 10_000 * (r + 1) + 1));
      // A call, then quiet: the worker merges in the background.
      await store.applyPriceChanges([{ itemId: items[0]?.itemId as number, price: 123 }]);
      const check = new Database(file, { readonly: true });
      try {
        await until(() => (check.prepare('SELECT count(*) FROM price_move_runs').pluck().get() as number) === 1, 10_000);
        expect(check.prepare('SELECT count(*) FROM price_moves').pluck().get()).toBe(RUN_FANOUT * items.length);
      } finally {
        check.close();
      }
      expect(await store.getItem(items[1]?.itemId as number)).toEqual(before);
    } finally {
      await store.close();
    }
  });
});

describe('price history retention', () => {
  it('drops runs past 30 days whole, and prunes older moves a slice of items at a time, then marks the run clean', () => {
    const writer = new WriterService(join(dir, 'history.sqlite'));
    try {
      const now = Date.parse('2026-11-23T12:00:00.000Z');
      const cutoff = now - 30 * DAY;
      // A run wholly past the retention, then 80,000 items each with one move 40 days old and one 10 days old.
      const gone = appendRunOf(writer, Array.from({ length: 1000 }, (_, i) => [i + 1, now - 35 * DAY, 5, 4]));
      const insert = writer.db.prepare('INSERT INTO price_moves (run, itemId, at, price, previous) VALUES (?, ?, ?, ?, ?)');
      writer.db.transaction(() => {
        for (let itemId = 1; itemId <= 80_000; itemId++) {
          insert.run(gone + 1, itemId, now - 40 * DAY, 200, 100);
          insert.run(gone + 1, itemId, now - 10 * DAY, 300, 200);
        }
        writer.db.prepare('INSERT INTO price_move_runs (run, moves, first_at, last_at) VALUES (?, ?, ?, ?)').run(gone + 1, 160_000, now - 40 * DAY, now - 10 * DAY);
      })();
      const count = (sql: string) => writer.db.prepare(sql).pluck().get() as number;

      // The old run goes whole; the first slice ends at the item holding the 50,001st move: items 1..25,001.
      expect(writer.priceHistory.prune(now)).toBe(1000 + 25_001);
      expect(count(`SELECT count(*) FROM price_move_runs WHERE run = ${gone}`)).toBe(0);
      expect(count(`SELECT count(*) FROM price_moves WHERE run = ${gone}`)).toBe(0);
      expect(writer.readMeta(META.pruneFrom)).toBe(25_001);
      expect(count(`SELECT count(*) FROM price_moves WHERE itemId <= 25001 AND at < ${cutoff}`)).toBe(0);
      expect(count(`SELECT count(*) FROM price_moves WHERE itemId > 25001 AND at < ${cutoff}`)).toBe(80_000 - 25_001);
      // Recent moves stay.
      expect(count(`SELECT count(*) FROM price_moves WHERE at >= ${cutoff}`)).toBe(80_000);

      // Further syncs take the next slices, then the rest.
      let rounds = 1;
      while (count(`SELECT count(*) FROM price_moves WHERE at < ${cutoff}`) > 0 && rounds < 10) {
        writer.priceHistory.prune(now);
        rounds++;
      }
      expect(count(`SELECT count(*) FROM price_moves WHERE at < ${cutoff}`)).toBe(0);
      expect(count('SELECT count(*) FROM price_moves')).toBe(80_000);
      expect(rounds).toBe(4);
      // The last slice ran to the end: the run holds nothing older than the cutoff, and the next prune has nothing to do.
      expect(writer.readMeta(META.pruneFrom)).toBe(0);
      expect(count(`SELECT first_at FROM price_move_runs WHERE run = ${gone + 1}`)).toBe(cutoff);
      expect(writer.priceHistory.prune(now)).toBe(0);
    } finally {
      writer.close();
    }
  });
});

function appendRunOf(writer: WriterService, moves: [number, number, number, number][]): number {
  const run = writer.db.prepare('SELECT coalesce(max(run), 0) + 1 FROM price_move_runs').pluck().get() as number;
  const insert = writer.db.prepare('INSERT INTO price_moves (run, itemId, at, price, previous) VALUES (?, ?, ?, ?, ?)');
  writer.db.transaction(() => {
    for (const [itemId, at, price, previous] of moves) insert.run(run, itemId, at, price, previous);
    writer.db.prepare('INSERT INTO price_move_runs (run, moves, first_at, last_at) SELECT ?, count(*), min(at), max(at) FROM price_moves WHERE run = ?').run(run, run);
  })();
  return run;
}
