/**
 * The live-events writer on its own, for profiling (not a benchmark of the suite):
 * the real WriterService on a copy of the synced 500k store, fed the live-events
 * mix (lib/liveEventsPlan.ts: price changes, removals, re-listings of removed
 * items at a new price) in calls of CALL events, the items in a seeded random
 * order. Prints µs an event every 20 calls (the cost grows with the price
 * history), the worst call, and user/system CPU an event; run it under
 * `node --cpu-prof` or `strace -f -c` to see where the time goes.
 *
 * --wal-pages: each call's commit is measured alone (the WAL emptied before it) and the pages it wrote
 * are counted per table or index at the end (dbstat): which structure a commit's WAL bytes go to.
 *
 *   npx tsx bench/lib/writer-alone.ts [calls=100] [events-per-call=18000] [--prices-only] [--turn=2200] [--wal-pages]
 */
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Item } from '../../src/shared/api';
import type { ItemChangeGroup } from '../../src/main/core/store/types';
import { packPriceChanges } from '../../src/main/core/catalog/priceChanges';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { BATCH, eventsOf, shuffleItemIds } from './liveEventsPlan';
import { preparedStoreCopy } from './sandbox';

const numbers = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const CALLS = Number(numbers[0] ?? 100);
const CALL_EVENTS = Number(numbers[1] ?? 18_000);
const PRICES_ONLY = process.argv.includes('--prices-only');
const WAL_PAGES = process.argv.includes('--wal-pages');
/** --turn=N: the generator's turns of ~N events (the paced phase emits ~55 a millisecond: three small groups each). */
const TURN = Number(
  process.argv.find((arg) => arg.startsWith('--turn='))?.slice('--turn='.length) ??
    BATCH.reprice + BATCH.relist + BATCH.remove,
);
const SHARE = TURN / (BATCH.reprice + BATCH.relist + BATCH.remove);
const PER_TURN = {
  reprice: Math.max(1, Math.round(BATCH.reprice * SHARE)),
  relist: Math.round(BATCH.relist * SHARE),
  remove: Math.round(BATCH.remove * SHARE),
};

const dir = mkdtempSync(join(tmpdir(), 'md-writer-alone-'));
const writer = new WriterService(await preparedStoreCopy(500_000, dir));
const ids = writer.db.prepare<[], number>('SELECT itemId FROM items ORDER BY itemId').pluck().all() as number[];
shuffleItemIds(ids, 20_261_124);
const jsonOf = writer.db.prepare<[number], string>('SELECT json FROM item_json WHERE itemId = ?').pluck();
let cursor = 0;
let nextPrice = 2_000_000_000;
const removed: Item[] = [];

/** One call's groups: turns of the plan's mix, removals from the far side of the price cursor. */
function call(): ItemChangeGroup[] {
  const groups: ItemChangeGroup[] = [];
  const turns = Math.max(1, Math.round(CALL_EVENTS / (PER_TURN.reprice + PER_TURN.relist + PER_TURN.remove)));
  for (let turn = 0; turn < turns; turn++) {
    groups.push({
      kind: 'prices',
      changes: packPriceChanges(
        Array.from({ length: PER_TURN.reprice }, () => ({
          itemId: ids[cursor++ % ids.length] as number,
          price: nextPrice++,
        })),
      ),
    });
    if (PRICES_ONLY) continue;
    // Re-listed only once removed a while (as the benchmark's generator does).
    const relist =
      removed.length > 3 * BATCH.relist
        ? removed.splice(0, PER_TURN.relist).map((item) => ({ ...item, price: nextPrice++ }))
        : [];
    if (relist.length > 0) groups.push({ kind: 'upserts', items: relist });
    const victims: number[] = [];
    for (let i = 0; i < PER_TURN.remove; i++) {
      const itemId = ids[(cursor + ids.length / 2 + i * 7) % ids.length] as number;
      const json = jsonOf.get(itemId);
      if (json === undefined || removed.some((item) => item.itemId === itemId)) continue;
      victims.push(itemId);
      removed.push(JSON.parse(json) as Item);
    }
    groups.push({ kind: 'removals', itemIds: victims });
  }
  return groups;
}

/** Page numbers of the frames in the WAL (each frame: a 24-byte header whose first 4 bytes are the page number). */
function walPages(file: string, pageSize: number): number[] {
  const fd = openSync(`${file}-wal`, 'r');
  try {
    const bytes = fstatSync(fd).size;
    const header = Buffer.alloc(4);
    const pages: number[] = [];
    for (let at = 32; at + 24 + pageSize <= bytes; at += 24 + pageSize) {
      readSync(fd, header, 0, 4, at);
      pages.push(header.readUInt32BE(0));
    }
    return pages;
  } finally {
    closeSync(fd);
  }
}
const pageSize = writer.db.pragma('page_size', { simple: true }) as number;
/** Each measured commit's pages by owner (a page changes owner when freed and reused: mapped right after each commit). */
const commitPages: string[][] = [];
/** The owners of the small structures live events write, by page number (dbstat walks only the b-trees named). */
const ownersStatement = writer.db.prepare<[], { name: string; pageno: number }>(
  `SELECT name, pageno FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name IN ('items', 'item_json', 'price_history', 'names', 'meta'))`,
);
let owners = new Map<number, string>();
const ownerOf = (page: number) => owners.get(page) ?? 'other (free pages)';

writer.catalog.applyItemChanges(call()); // warms the statements
const cpu = process.cpuUsage();
let events = 0;
let worst = 0;
let windowMs = 0;
let windowEvents = 0;
for (let i = 1; i <= CALLS; i++) {
  const groups = call();
  if (WAL_PAGES) owners = new Map(ownersStatement.all().map((row) => [row.pageno, row.name]));
  if (WAL_PAGES) writer.db.pragma('wal_checkpoint(TRUNCATE)');
  const started = performance.now();
  writer.catalog.applyItemChanges(groups);
  const ms = performance.now() - started;
  if (WAL_PAGES) commitPages.push(walPages(writer.file, pageSize).map((page) => ownerOf(page)));
  worst = Math.max(worst, ms);
  windowMs += ms;
  windowEvents += eventsOf(groups);
  if (i % 20 === 0 || i === CALLS) {
    const perEvent = (ms: number) => ((ms * 1000) / windowEvents).toFixed(1);
    console.log(`calls ${i}: ${perEvent(windowMs)} µs an event`);
    events += windowEvents;
    windowMs = 0;
    windowEvents = 0;
  }
}
const used = process.cpuUsage(cpu);
console.log(
  `${events} events in ${CALLS} calls of ~${CALL_EVENTS}${PRICES_ONLY ? ' (price changes only)' : ''}: worst call ${worst.toFixed(0)} ms; ` +
    `CPU ${(used.user / events).toFixed(2)} µs user + ${(used.system / events).toFixed(2)} µs system an event`,
);
if (WAL_PAGES) {
  // Per structure: pages a commit, mean and median (a fold or trim shows as a mean far above the median).
  const perCommit = new Map<string, number[]>();
  commitPages.forEach((names, commit) => {
    for (const name of names) {
      const counts = perCommit.get(name) ?? new Array<number>(commitPages.length).fill(0);
      counts[commit] = (counts[commit] as number) + 1;
      perCommit.set(name, counts);
    }
  });
  const total = commitPages.reduce((sum, pages) => sum + pages.length, 0);
  const commits = commitPages.length;
  console.log(
    `WAL pages a commit: ${(total / commits).toFixed(0)} (${((total * pageSize) / commits / 1e6).toFixed(2)} MB), ${(total / events).toFixed(2)} an event; per structure mean, median, max:`,
  );
  const rows = [...perCommit].map(([name, counts]) => ({
    name,
    mean: counts.reduce((a, b) => a + b, 0) / commits,
    sorted: [...counts].sort((a, b) => a - b),
  }));
  for (const { name, mean, sorted } of rows.sort((a, b) => b.mean - a.mean)) {
    console.log(
      `  ${mean.toFixed(1).padStart(8)} ${String(sorted[Math.floor(commits / 2)]).padStart(6)} ${String(sorted[commits - 1]).padStart(6)}  ${name}`,
    );
  }
}
writer.close();
rmSync(dir, { recursive: true, force: true });
