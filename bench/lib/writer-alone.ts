/**
 * The live-events writer on its own, for profiling (not a benchmark of the suite):
 * the real WriterService on a copy of the synced 500k store, fed the live-events
 * mix (lib/liveEventsPlan.ts: price changes, removals, re-listings of removed
 * items at a new price) in calls of CALL events, the items in a seeded random
 * order. Prints µs an event every 20 calls (the cost grows with the price
 * history), the worst call, and user/system CPU an event; run it under
 * `node --cpu-prof` or `strace -f -c` to see where the time goes.
 *
 *   npx tsx bench/lib/writer-alone.ts [calls=100] [events-per-call=18000] [--prices-only] [--turn=2200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Item } from '../../src/shared/api';
import type { ItemChangeGroup } from '../../src/main/core/store/types';
import { packPriceChanges } from '../../src/main/core/store/priceChanges';
import { WriterService } from '../../src/main/core/store/worker/writer';
import { BATCH, shuffleItemIds } from './liveEventsPlan';
import { preparedStoreCopy } from './sandbox';

const numbers = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const CALLS = Number(numbers[0] ?? 100);
const CALL_EVENTS = Number(numbers[1] ?? 18_000);
const PRICES_ONLY = process.argv.includes('--prices-only');
/** --turn=N: the generator's turns of ~N events (the paced phase emits ~55 a millisecond: three small groups each). */
const TURN = Number(process.argv.find((arg) => arg.startsWith('--turn='))?.slice('--turn='.length) ?? BATCH.reprice + BATCH.relist + BATCH.remove);
const SHARE = TURN / (BATCH.reprice + BATCH.relist + BATCH.remove);
const PER_TURN = { reprice: Math.max(1, Math.round(BATCH.reprice * SHARE)), relist: Math.round(BATCH.relist * SHARE), remove: Math.round(BATCH.remove * SHARE) };

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
    groups.push({ kind: 'prices', changes: packPriceChanges(Array.from({ length: PER_TURN.reprice }, () => ({ itemId: ids[cursor++ % ids.length] as number, price: nextPrice++ }))) });
    if (PRICES_ONLY) continue;
    // Re-listed only once removed a while (as the benchmark's generator does).
    const relist = removed.length > 3 * BATCH.relist ? removed.splice(0, PER_TURN.relist).map((item) => ({ ...item, price: nextPrice++ })) : [];
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

const eventsOf = (groups: ItemChangeGroup[]) =>
  groups.reduce((sum, group) => sum + (group.kind === 'prices' ? group.changes.length / 2 : group.kind === 'upserts' ? group.items.length : group.itemIds.length), 0);

/** Time inside the writer's folds (they run inside applyItemChanges), to tell their share from the rest. */
const foldMs = { moves: 0, removals: 0 };
for (const name of ['foldPriceMoves', 'foldRemovals'] as const) {
  const fold = writer[name].bind(writer) as (...args: unknown[]) => unknown;
  const key = name === 'foldPriceMoves' ? 'moves' : 'removals';
  (writer as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    const started = performance.now();
    try {
      return fold(...args);
    } finally {
      foldMs[key] += performance.now() - started;
    }
  };
}

writer.applyItemChanges(call()); // reads the live prices once
const cpu = process.cpuUsage();
let events = 0;
let worst = 0;
let windowMs = 0;
let windowEvents = 0;
for (let i = 1; i <= CALLS; i++) {
  const groups = call();
  const started = performance.now();
  writer.applyItemChanges(groups);
  const ms = performance.now() - started;
  worst = Math.max(worst, ms);
  windowMs += ms;
  windowEvents += eventsOf(groups);
  if (i % 20 === 0 || i === CALLS) {
    const perEvent = (ms: number) => ((ms * 1000) / windowEvents).toFixed(1);
    console.log(
      `calls ${i}: ${perEvent(windowMs)} µs an event (folds of moves ${perEvent(foldMs.moves)}, of removals ${perEvent(foldMs.removals)})`,
    );
    foldMs.moves = 0;
    foldMs.removals = 0;
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
writer.close();
rmSync(dir, { recursive: true, force: true });
