/**
 * The price history's storage: `price_moves` as sorted runs (migration 014). Every
 * fold of live moves and every sync's moves is appended as a new run, clustered by
 * (run, itemId, at): the new rows land on new pages at the end of the b-tree, so a
 * fold costs the same at 10M held moves as at none. An item's history is one seek
 * per run (reader.getItem). Runs of one size class are merged while the writer is
 * idle, a slice of items at a time (mergeStep), so the number of runs stays near
 * RUN_FANOUT per size class; moves older than PRICE_HISTORY_MS go at merges, with
 * whole runs, or a slice per sync (prune).
 */
import type { Db } from './open';
import { META } from './rows';

/** Price moves are kept this long (the history charts' longest view). */
export const PRICE_HISTORY_MS = 30 * 24 * 60 * 60 * 1000;
/** Retention prunes a slice of a run at a time (the slice up to the next this many moves), so no sync pays for all of it. */
export const PRUNE_SLICE_MOVES = 50_000;
/** This many runs of one size class (the newest ones) are merged into one. */
export const RUN_FANOUT = 8;
/** Size class 0 holds runs up to this many moves (a few live folds); each class above is RUN_FANOUT times bigger. */
export const RUN_BASE_MOVES = 100_000;
/** One merge slice moves about this many moves: a few tens of ms, the longest an incoming call waits for it. */
export const MERGE_SLICE_MOVES = 20_000;
/** Past this many runs a live fold merges a slice itself (the writer never idle): bounds what a history read seeks. */
export const FORCED_MERGE_RUNS = 256;

/** A merge under way (kept in meta, so a restart finishes it): `sources` are moved into `into`, items above `from` left. */
export interface RunMerge {
  into: number;
  sources: number[];
  /** The biggest source: its item ids cut the slices. */
  guide: number;
  /** Of the guide's moves, this many make a slice. */
  guideSlice: number;
  from: number;
}

interface Run {
  run: number;
  moves: number;
  first_at: number;
  last_at: number;
}

/** What the history needs of its owner: the meta table (the writer's). */
export interface MetaAccess {
  readMeta(key: string): unknown;
  setMeta(key: string, value: unknown): void;
}

/** A run's size class: 0 up to RUN_BASE_MOVES, then one more per RUN_FANOUT× more moves. */
export function sizeClass(moves: number): number {
  return moves <= RUN_BASE_MOVES ? 0 : Math.floor(Math.log(moves / RUN_BASE_MOVES) / Math.log(RUN_FANOUT) + 1e-9);
}

function prepareStatements(db: Db) {
  return {
    nextRun: db.prepare<[], number>('SELECT coalesce(max(run), 0) + 1 FROM price_move_runs').pluck(),
    runs: db.prepare<[], Run>('SELECT run, moves, first_at, last_at FROM price_move_runs ORDER BY run DESC'),
    runCount: db.prepare<[], number>('SELECT count(*) FROM price_move_runs').pluck(),
    spanOfRun: db.prepare<[number], { moves: number; first_at: number | null; last_at: number | null }>(
      'SELECT count(*) AS moves, min(at) AS first_at, max(at) AS last_at FROM price_moves WHERE run = ?',
    ),
    insertRun: db.prepare<[number, number, number, number]>('INSERT INTO price_move_runs (run, moves, first_at, last_at) VALUES (?, ?, ?, ?)'),
    dropRun: db.prepare<[number]>('DELETE FROM price_move_runs WHERE run = ?'),
    dropMovesOfRun: db.prepare<[number]>('DELETE FROM price_moves WHERE run = ?'),
    // Live moves from the change log, in item order; of two moves of an item in one ms the later's price stays,
    // with the earlier's price before (the price before that instant).
    appendLive: db.prepare<[number, number]>(
      'INSERT INTO price_moves (run, itemId, at, price, previous) SELECT ?, itemId, at, moved, previous FROM item_changes WHERE seq > ? AND moved IS NOT NULL ORDER BY itemId, at, seq ' +
        'ON CONFLICT (run, itemId, at) DO UPDATE SET price = excluded.price',
    ),
    sliceEnd: db.prepare<[number, number, number], number>('SELECT itemId FROM price_moves WHERE run = ? AND itemId > ? ORDER BY itemId LIMIT 1 OFFSET ?').pluck(),
    // Of two moves of an item at one time, the later run's price stays with the earlier's price before (as a reader reads them).
    mergeSlice: db.prepare<[number, string, number, number, number]>(
      `INSERT INTO price_moves (run, itemId, at, price, previous)
       SELECT ?, itemId, at, price, previous FROM price_moves
       WHERE run IN (SELECT value FROM json_each(?)) AND itemId > ? AND itemId <= ? AND at >= ? ORDER BY itemId, at, run
       ON CONFLICT (run, itemId, at) DO UPDATE SET price = excluded.price`,
    ),
    dropMergedSlice: db.prepare<[string, number, number]>('DELETE FROM price_moves WHERE run IN (SELECT value FROM json_each(?)) AND itemId > ? AND itemId <= ?'),
    // A merge slice's moves in the merged run (a range of it), added to the run's span.
    addSliceSpan: db.prepare<[number, number, number, number]>(
      `UPDATE price_move_runs SET moves = price_move_runs.moves + s.n,
         first_at = min(price_move_runs.first_at, coalesce(s.lo, price_move_runs.first_at)),
         last_at = max(price_move_runs.last_at, coalesce(s.hi, price_move_runs.last_at))
       FROM (SELECT count(*) AS n, min(at) AS lo, max(at) AS hi FROM price_moves WHERE run = ? AND itemId > ? AND itemId <= ?) AS s
       WHERE price_move_runs.run = ?`,
    ),
    dropEmptyRun: db.prepare<[number]>('DELETE FROM price_move_runs WHERE run = ? AND moves = 0'),
    pruneSlice: db.prepare<[number, number, number, number]>('DELETE FROM price_moves WHERE run = ? AND itemId > ? AND itemId <= ? AND at < ?'),
    raiseFirstAt: db.prepare<[number, number]>('UPDATE price_move_runs SET first_at = max(first_at, ?) WHERE run = ?'),
    dropSold: db.prepare<[number]>(
      'DELETE FROM price_moves WHERE run IN (SELECT run FROM price_move_runs) AND itemId IN (SELECT itemId FROM sold_items WHERE removed_at < ?)',
    ),
  };
}

export class PriceHistory {
  private readonly s: ReturnType<typeof prepareStatements>;

  constructor(
    private readonly db: Db,
    private readonly meta: MetaAccess,
  ) {
    this.s = prepareStatements(db);
  }

  /** The live moves logged after change-log entry `folded`, as a new run. Inside the caller's transaction. */
  appendLiveMoves(folded: number): void {
    const run = this.s.nextRun.get() as number;
    this.s.appendLive.run(run, folded);
    this.registerRun(run);
    // The writer may never be idle under a flood of events: past the cap it merges as it goes.
    if ((this.s.runCount.get() as number) > FORCED_MERGE_RUNS) this.mergeStep(Date.now());
  }

  /** The moves of the prices a sync changed (temp.sync_changed), all at `now`, as a new run. */
  appendSyncMoves(now: number): void {
    const run = this.s.nextRun.get() as number;
    // Prepared here: the sync's temp table exists only while it runs.
    this.db
      .prepare<[number, number]>('INSERT INTO price_moves (run, itemId, at, price, previous) SELECT ?, itemId, ?, price, old_price FROM temp.sync_changed WHERE price <> old_price ORDER BY itemId')
      .run(run, now);
    this.registerRun(run);
  }

  private registerRun(run: number): void {
    const span = this.s.spanOfRun.get(run);
    if (!span || span.moves === 0) return;
    this.s.insertRun.run(run, span.moves, span.first_at as number, span.last_at as number);
  }

  /** The merge under way, if any. */
  pendingMerge(): RunMerge | null {
    return (this.meta.readMeta(META.movesMerge) as RunMerge | null) ?? null;
  }

  /**
   * One slice of merging: the merge under way, or a new one when the newest RUN_FANOUT or more runs
   * share a size class. Moves past the retention are left out. Inside the caller's transaction.
   * Returns whether merging work is left.
   */
  mergeStep(now: number): boolean {
    const merge = this.pendingMerge() ?? this.planMerge();
    if (!merge) return false;
    const sources = JSON.stringify(merge.sources);
    const to = this.s.sliceEnd.get(merge.guide, merge.from, merge.guideSlice - 1) ?? Number.MAX_SAFE_INTEGER;
    this.s.mergeSlice.run(merge.into, sources, merge.from, to, now - PRICE_HISTORY_MS);
    this.s.dropMergedSlice.run(sources, merge.from, to);
    // The span grows a slice at a time: no scan of the whole merged run at the end.
    this.s.addSliceSpan.run(merge.into, merge.from, to, merge.into);
    if (to < Number.MAX_SAFE_INTEGER) {
      this.meta.setMeta(META.movesMerge, { ...merge, from: to });
      return true;
    }
    for (const run of merge.sources) this.s.dropRun.run(run);
    this.s.dropEmptyRun.run(merge.into);
    this.meta.setMeta(META.movesMerge, null);
    return this.mergeableTail() !== null;
  }

  /** The newest runs when RUN_FANOUT or more of them share a size class (newest first), else null. */
  private mergeableTail(): Run[] | null {
    const runs = this.s.runs.all();
    const newest = runs[0];
    if (!newest) return null;
    const tail: Run[] = [];
    for (const run of runs) {
      if (sizeClass(run.moves) !== sizeClass(newest.moves)) break;
      tail.push(run);
    }
    return tail.length >= RUN_FANOUT ? tail : null;
  }

  /** A merge of the mergeable tail into a new (newest) run, registered and recorded in meta. */
  private planMerge(): RunMerge | null {
    const tail = this.mergeableTail();
    if (!tail) return null;
    const into = (tail[0] as Run).run + 1;
    const total = tail.reduce((sum, run) => sum + run.moves, 0);
    const guide = tail.reduce((biggest, run) => (run.moves > biggest.moves ? run : biggest));
    // The merged run is the newest: it holds the moves of every source, and later runs hold later moves.
    // Its span starts empty (first after last) and grows with each slice.
    this.s.insertRun.run(into, 0, Number.MAX_SAFE_INTEGER, 0);
    const merge: RunMerge = {
      into,
      sources: tail.map((run) => run.run),
      guide: guide.run,
      guideSlice: Math.max(1, Math.round((MERGE_SLICE_MOVES * guide.moves) / Math.max(1, total))),
      from: 0,
    };
    this.meta.setMeta(META.movesMerge, merge);
    return merge;
  }

  /**
   * Retention, once per sync: runs whose every move is past PRICE_HISTORY_MS are dropped whole, and one
   * slice of the oldest run that still holds such moves is pruned (a slice of item ids from where the last
   * one ended; after its last item the run is marked clean). Runs of a merge under way are left to it.
   * Returns the moves dropped.
   */
  prune(now: number): number {
    const cutoff = now - PRICE_HISTORY_MS;
    const merge = this.pendingMerge();
    const busy = new Set(merge ? [merge.into, ...merge.sources] : []);
    const runs = this.s.runs.all().filter((run) => !busy.has(run.run));
    let dropped = 0;
    for (const run of runs.filter((r) => r.last_at < cutoff)) {
      dropped += this.s.dropMovesOfRun.run(run.run).changes;
      this.s.dropRun.run(run.run);
    }
    const oldest = runs.filter((r) => r.last_at >= cutoff && r.first_at < cutoff).at(-1);
    if (!oldest) {
      this.meta.setMeta(META.pruneFrom, 0);
      return dropped;
    }
    const sameRun = this.meta.readMeta(META.pruneRun) === oldest.run;
    const from = sameRun ? ((this.meta.readMeta(META.pruneFrom) as number | null) ?? 0) : 0;
    const to = this.s.sliceEnd.get(oldest.run, from, PRUNE_SLICE_MOVES) ?? null;
    dropped += this.s.pruneSlice.run(oldest.run, from, to ?? Number.MAX_SAFE_INTEGER, cutoff).changes;
    this.meta.setMeta(META.pruneRun, oldest.run);
    this.meta.setMeta(META.pruneFrom, to ?? 0);
    // Its last slice done: nothing in it is older than the cutoff any more.
    if (to === null) this.s.raiseFirstAt.run(cutoff, oldest.run);
    return dropped;
  }

  /** The moves of items sold before `cutoff` (their `sold_items` rows go too). */
  dropMovesOfSold(cutoff: number): void {
    this.s.dropSold.run(cutoff);
  }
}
