/**
 * Live item events end to end: the sandbox's catalog emits price changes,
 * re-listings and removals (sb.core.catalog.reprice/upsert/remove) as fast as the
 * engine keeps up; the real Engine, connected over loopback WebSocket, applies
 * them to SQLite (writer worker) and delivers them in coalesced batches to an
 * engine.subscribe listener that stands in for the renderer store.
 *
 * Sandbox and engine share this process (one clock): each event's emission time
 * is recorded when the generator calls the catalog, and its delivery time when a
 * batch reaches the subscriber. Every price is unique (one increasing counter),
 * so a delivered (itemId, price) names its event; removals are keyed by itemId.
 * Items are rotated through the whole 500k catalog, so one item never sees two
 * events within a batch window (the batcher would merge them).
 *
 * Baseline, same run: raw `ws` frames per second on loopback (lib/wsBaseline.ts).
 */
import { rmSync } from 'node:fs';
import type { Item } from '../src/shared/api';
import type { EngineEventBatch } from '../src/shared/ipc';
import { itemFor } from '../src/server/domain/itemRecord';
import { machineInfo } from './lib/machine';
import { buildResult, runCount, summaryLine, writeResult } from './lib/result';
import { createMerchant, scratchDir, startBenchSandbox, startEngine, waitFor } from './lib/sandbox';
import { max, median, percentile, round, summarize } from './lib/stats';
import { rawWsFramesPerSec } from './lib/wsBaseline';

const ITEMS = 500_000;
const RUNS = runCount(5, 2);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
/** Per event-loop turn of the generator. */
const BATCH = { reprice: 2000, relist: 100, remove: 100 };
/** Events emitted but not yet delivered before the generator waits. */
const WINDOW = 60_000;
/** A removed item is listed again only after this long (so removal and re-listing never share a batch). */
const RELIST_AFTER_MS = 2000;
const machine = machineInfo();
const log = (line: string) => console.log(`[live-events] ${line}`);

const bench = await startBenchSandbox(ITEMS);
const dataDir = scratchDir('live');
const merchant = createMerchant(bench.sb, { balance: 1_000_000 });
const sb = bench.sb;
let syncs = 0;
const running = await startEngine({
  dataDir,
  baseUrl: sb.baseUrl,
  wsUrl: sb.wsUrl,
  merchant,
  log: (line) => {
    if (line.startsWith('catalog sync (')) syncs++;
    if (process.env['BENCH_VERBOSE']) log(`engine: ${line}`);
  },
});
const engine = running.engine;
const perRun: { eventsPerSec: number; events: number; seconds: number; p50Ms: number; p99Ms: number; maxMs: number; batches: number }[] = [];
const baselines: number[] = [];
const allLatencies: number[] = [];
try {
  await waitFor(() => engine.accountSession?.connection.state === 'connected', 30_000, 'the feed');
  // An empty cache: the engine syncs the whole catalog at start. Let it finish.
  await waitFor(() => syncs >= 1, 180_000, 'the start-up sync', 50);
  await engine.accountSession?.store.whenCatalogIndexed(120_000);
  log(`engine connected and synced (${running.logs.find((l) => l.startsWith('catalog sync'))})`);

  const onSale = sb.core.db.prepare('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id').pluck().all() as number[];
  const records = new Map<number, Item>();
  let cursor = 0;
  let nextPrice = 2_000_000_000;
  const removedQueue: { itemId: number; at: number }[] = [];
  const emittedAt = new Map<number, number>(); // price → time (price changes and re-listings)
  const removedAt = new Map<number, number>(); // itemId → time
  let delivered = 0;
  let latencies: number[] = [];
  let batches = 0;

  const unsubscribe = engine.subscribe((batch: EngineEventBatch) => {
    const items = batch.items;
    if (!items) return;
    const now = performance.now();
    batches++;
    const seen = new Set<number>();
    for (const change of items.prices) {
      const at = emittedAt.get(change.price);
      if (at === undefined) continue;
      emittedAt.delete(change.price);
      seen.add(change.itemId);
      latencies.push(now - at);
      delivered++;
    }
    for (const row of items.upserted) {
      if (seen.has(row.itemId)) continue;
      const at = emittedAt.get(row.price);
      if (at === undefined) continue;
      emittedAt.delete(row.price);
      latencies.push(now - at);
      delivered++;
    }
    for (const itemId of items.removed) {
      const at = removedAt.get(itemId);
      if (at === undefined) continue;
      removedAt.delete(itemId);
      latencies.push(now - at);
      delivered++;
    }
  });

  const turn = (): number => {
    const now = performance.now();
    const catalog = sb.core.catalog;
    let events = 0;
    const changes = [];
    for (let i = 0; i < BATCH.reprice; i++) {
      cursor = (cursor + 1) % onSale.length;
      const price = nextPrice++;
      changes.push({ itemId: onSale[cursor] as number, price });
      emittedAt.set(price, now);
    }
    events += catalog.reprice(changes).length;
    const relist: Item[] = [];
    while (relist.length < BATCH.relist && removedQueue.length > 0 && now - (removedQueue[0] as { at: number }).at >= RELIST_AFTER_MS) {
      const { itemId } = removedQueue.shift() as { itemId: number };
      const item = records.get(itemId) as Item;
      const price = nextPrice++;
      relist.push({ ...item, price });
      emittedAt.set(price, now);
      onSale.push(itemId);
    }
    if (relist.length > 0) events += catalog.upsert(relist).length;
    // Removals come from just behind the reprice cursor's far side, so they never share a batch with a price change.
    const victims: number[] = [];
    for (let i = 0; i < BATCH.remove && onSale.length > ITEMS / 2; i++) {
      const index = (cursor + Math.floor(onSale.length / 2)) % onSale.length;
      const [itemId] = onSale.splice(index, 1) as [number];
      victims.push(itemId);
    }
    for (const record of sb.core.catalog.searchByIds(victims)) records.set(record.itemId, itemFor(record, { steamId: false, inspectInGame: false, tradeUrl: false }));
    for (const itemId of victims) removedAt.set(itemId, now);
    const removed = catalog.remove(victims);
    for (const itemId of removed) removedQueue.push({ itemId, at: now });
    events += removed.length;
    return events;
  };

  const runOnce = async (seconds: number) => {
    delivered = 0;
    latencies = [];
    batches = 0;
    let produced = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    while (performance.now() < deadline) {
      if (produced - delivered > WINDOW) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      produced += turn();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitFor(() => delivered >= produced, 60_000, `all ${produced} events delivered (have ${delivered})`, 1);
    const elapsed = (performance.now() - started) / 1000;
    return { produced, elapsed, latencies };
  };

  await runOnce(2); // warm-up
  for (let run = 0; run < RUNS; run++) {
    const { produced, elapsed, latencies: lat } = await runOnce(SECONDS);
    for (const ms of lat) allLatencies.push(ms);
    const entry = {
      eventsPerSec: Math.round(produced / elapsed),
      events: produced,
      seconds: round(elapsed),
      p50Ms: round(percentile(lat, 50)),
      p99Ms: round(percentile(lat, 99)),
      maxMs: round(max(lat)),
      batches,
    };
    perRun.push(entry);
    const baseline = await rawWsFramesPerSec(2);
    baselines.push(baseline);
    log(`run ${run + 1}/${RUNS}: ${entry.eventsPerSec} events/s (${produced} in ${entry.seconds} s, ${batches} batches), frame→store p50 ${entry.p50Ms} ms, p99 ${entry.p99Ms} ms, max ${entry.maxMs} ms | raw ws ${baseline} frames/s`);
  }
  unsubscribe();
} finally {
  await running.close();
  await bench.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const result = buildResult({
  name: 'live-events',
  title: 'live item events → SQLite → renderer-store subscriber (500k catalog)',
  machine,
  runs: RUNS,
  metrics: {
    events_per_sec: summarize(perRun.map((r) => r.eventsPerSec), 'events/s'),
    frame_to_store_p99_ms: summarize(perRun.map((r) => r.p99Ms), 'ms'),
    frame_to_store_ms: summarize(allLatencies, 'ms', { p95: true, p99: true }),
    raw_ws_frames_per_sec: summarize(baselines, 'frames/s'),
  },
  baseline: { what: 'raw ws loopback, small text frames/s, same run', median: median(baselines), unit: 'frames/s' },
  ratio: median(perRun.map((r) => r.eventsPerSec)) / median(baselines),
  ratioMeaning: 'item events/s ÷ raw ws frames/s',
  targetText: '≥ 50,000 events/s sustained; frame-to-store p99 ≤ 250 ms',
  checks: [
    { text: 'events/s', metric: 'events_per_sec', stat: 'median', op: '>=', value: 50_000 },
    { text: 'p99 latency (worst run)', metric: 'frame_to_store_p99_ms', stat: 'max', op: '<=', value: 250 },
  ],
  notes: [
    `Per generator turn: ${BATCH.reprice} price changes, up to ${BATCH.relist} re-listings, ${BATCH.remove} removals; at most ${WINDOW.toLocaleString('en-US')} events in flight. ${SECONDS} s per run; a run ends when every event was delivered.`,
    'An event counts once it is in SQLite (the session awaits the writer before it pushes to the batcher) and in a batch delivered to the subscriber; latency = delivery time − emission time, same process clock.',
    'Sandbox, engine host thread, writer and reader workers all share the 2 cores.',
  ],
  details: { perRun, batch: BATCH, window: WINDOW },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
process.exit(0);
