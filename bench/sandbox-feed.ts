/**
 * WebSocket feed throughput: item events per second delivered, in order, to all
 * 3 connections of one merchant, with the real sandbox (2000 items, SQLite on disk).
 *
 *   npx tsx bench/sandbox-feed.ts            (BENCH_RUNS=5 BENCH_SECONDS=10 by default)
 *
 * Events are generated in-process through the catalog (reprice, upsert, remove),
 * one batch per event-loop turn, as fast as the 3 clients keep up (a bounded
 * window of undelivered events). The clients run in the same process and event
 * loop as the server, so their JSON parsing is paid for too: a conservative figure.
 * Each client checks order: every item's price only grows (prices come from one
 * increasing counter), a removed item was on sale, an upserted one was not.
 *
 * Baseline, same run: a bare `ws` server sending small text frames to one client
 * on loopback, frames per second (lib/wsBaseline.ts). Writes bench/results/sandbox-feed.json
 * in the common result format (lib/result.ts).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { WebSocket } from 'ws';
import type { Item } from '../src/shared/api';
import { itemFor } from '../src/server/domain/itemRecord';
import type { Sandbox } from '../src/server/sandbox';
import { startSandbox } from '../src/server/sandbox';
import { machineInfo } from './lib/machine';
import { buildResult, isQuick, runCount, writeResult, type BenchResult } from './lib/result';
import { median, summarize } from './lib/stats';
import { BASELINE_FRAME, rawWsFramesPerSec } from './lib/wsBaseline';

const REVEAL_ALL = { steamId: true, inspectInGame: true, tradeUrl: true };
const CLIENTS = 3;
const TARGET_EVENTS_PER_SEC = 20_000;
/** Per batch (one event-loop turn): price changes, then re-listings of the previous batch's removals, then removals. */
const BATCH = { reprice: 400, upsert: 50, remove: 50 };
/** Undelivered events allowed before the generator waits for the slowest client. */
const WINDOW_EVENTS = 20 * (BATCH.reprice + BATCH.upsert + BATCH.remove);
const BASELINE_SECONDS = 2;

export interface SandboxFeedBenchOptions {
  runs?: number;
  secondsPerRun?: number;
  /** Write bench/results/sandbox-feed.json (default true). */
  write?: boolean;
  log?: (line: string) => void;
}

export type SandboxFeedBenchResult = BenchResult;

const sleepTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One feed client that counts item events and checks their order. */
class CheckingClient {
  events = 0;
  frames = 0;
  readonly errors: string[] = [];
  private readonly lastPrice = new Map<number, number>();
  private readonly onSale: Set<number>;

  constructor(
    readonly ws: WebSocket,
    initiallyOnSale: Iterable<number>,
    onFrame: () => void,
  ) {
    this.onSale = new Set(initiallyOnSale);
    ws.on('message', (data: Buffer) => {
      this.check(JSON.parse(data.toString()) as { type: string; [key: string]: unknown });
      onFrame();
    });
  }

  private fail(message: string): void {
    if (this.errors.length < 10) this.errors.push(message);
  }

  private seePrice(itemId: number, price: number): void {
    const last = this.lastPrice.get(itemId);
    if (last !== undefined && price <= last) this.fail(`item ${itemId}: price ${price} after ${last}`);
    this.lastPrice.set(itemId, price);
  }

  private check(frame: { type: string; [key: string]: unknown }): void {
    this.frames++;
    switch (frame.type) {
      case 'price_changed':
        for (const { itemId, price } of frame.items as { itemId: number; price: number }[]) {
          if (!this.onSale.has(itemId)) this.fail(`price of item ${itemId}, not on sale`);
          this.seePrice(itemId, price);
          this.events++;
        }
        return;
      case 'item_upserted':
        for (const { itemId, price } of frame.items as Item[]) {
          if (this.onSale.has(itemId)) this.fail(`item ${itemId} upserted while on sale`);
          this.onSale.add(itemId);
          this.seePrice(itemId, price);
          this.events++;
        }
        return;
      case 'item_removed':
        for (const itemId of frame.itemIds as number[]) {
          if (!this.onSale.delete(itemId)) this.fail(`item ${itemId} removed while not on sale`);
          this.events++;
        }
        return;
      case 'connected':
        return;
      default:
        this.fail(`unexpected frame ${frame.type}`);
    }
  }
}

function connect(url: string, headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('message', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_request, response) => reject(new Error(`feed refused: ${response.statusCode}`)));
  });
}

/** Drives the catalog: every event carries a price from one increasing counter, so order is checkable. */
/** Shared by all runs (and calls of run()): prices keep growing, so a repeated price never hides an event. */
let nextPrice = 1_000_000_000;

class EventGenerator {
  private cursor = 0;
  private pendingRelist: Item[] = [];
  readonly onSale: number[];
  private readonly items = new Map<number, Item>();

  constructor(private readonly sb: Sandbox) {
    const rows = sb.core.db.prepare('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id').all() as {
      item_id: number;
    }[];
    this.onSale = rows.map((row) => row.item_id);
    for (const record of sb.core.catalog.searchByIds(this.onSale))
      this.items.set(record.itemId, itemFor(record, REVEAL_ALL));
  }

  /** The items currently on sale (order of `onSale` is the generator's rotation). */
  snapshot(): number[] {
    return [...this.onSale];
  }

  /** One batch of events, synchronously (one event-loop turn); returns how many item events it caused. */
  batch(): number {
    const catalog = this.sb.core.catalog;
    let events = 0;
    const changes = [];
    for (let i = 0; i < BATCH.reprice && this.onSale.length > 0; i++) {
      this.cursor = (this.cursor + 1) % this.onSale.length;
      changes.push({ itemId: this.onSale[this.cursor] as number, price: nextPrice++ });
    }
    events += catalog.reprice(changes).length;
    for (const change of changes) (this.items.get(change.itemId) as Item).price = change.price;

    if (this.pendingRelist.length > 0) {
      const relisted = this.pendingRelist.map((item) => ({ ...item, price: nextPrice++ }));
      events += catalog.upsert(relisted).length;
      for (const item of relisted) {
        this.items.set(item.itemId, item);
        this.onSale.push(item.itemId);
      }
      this.pendingRelist = [];
    }

    const removedIds = this.onSale.splice(0, Math.min(BATCH.remove, this.onSale.length));
    events += catalog.remove(removedIds).length;
    this.pendingRelist = removedIds.map((itemId) => this.items.get(itemId) as Item);
    this.cursor = this.onSale.length === 0 ? 0 : this.cursor % this.onSale.length;
    return events;
  }
}

async function feedRun(sb: Sandbox, headers: Record<string, string>, seconds: number) {
  const generator = new EventGenerator(sb);
  const initiallyOnSale = generator.snapshot();
  let wake: (() => void) | null = null;
  let produced = 0;
  const clients: CheckingClient[] = [];
  const minDelivered = () => Math.min(...clients.map((c) => c.events));
  const onFrame = () => {
    if (wake && produced - minDelivered() <= WINDOW_EVENTS / 2) {
      const resume = wake;
      wake = null;
      resume();
    }
  };
  for (let i = 0; i < CLIENTS; i++) {
    const ws = await connect(sb.wsUrl, headers);
    clients.push(new CheckingClient(ws, initiallyOnSale, onFrame));
  }

  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    if (produced - minDelivered() > WINDOW_EVENTS) {
      await new Promise<void>((resolve) => (wake = resolve));
      continue;
    }
    produced += generator.batch();
    await sleepTurn();
  }
  // Everything produced must arrive; the clock stops when the slowest client has it all.
  const drainDeadline = performance.now() + 30_000;
  while (minDelivered() < produced && performance.now() < drainDeadline)
    await new Promise((resolve) => setTimeout(resolve, 1));
  const elapsed = (performance.now() - started) / 1000;

  for (const client of clients) client.ws.close();
  await Promise.all(
    clients.map(
      (c) =>
        new Promise((resolve) => (c.ws.readyState === WebSocket.CLOSED ? resolve(null) : c.ws.once('close', resolve))),
    ),
  );
  const errors = clients.flatMap((c) => c.errors);
  if (errors.length > 0) throw new Error(`feed order broken: ${errors.slice(0, 5).join('; ')}`);
  const short = clients.find((c) => c.events !== produced);
  if (short) throw new Error(`a client got ${short.events} of ${produced} item events`);
  return {
    eventsPerSec: Math.round(produced / elapsed),
    events: produced,
    frames: clients[0]?.frames ?? 0,
    seconds: Number(elapsed.toFixed(3)),
  };
}

const baselineRun = (seconds: number) => rawWsFramesPerSec(seconds, BASELINE_FRAME);

export async function runSandboxFeedBench(options: SandboxFeedBenchOptions = {}): Promise<SandboxFeedBenchResult> {
  const runs = options.runs ?? runCount(5, 2);
  const seconds = options.secondsPerRun ?? Number(process.env['BENCH_SECONDS'] ?? (isQuick() ? 3 : 10));
  const log = options.log ?? ((line: string) => console.log(line));

  // The machine may be shared: the load around the run says how far to trust the figures.
  const loadBefore = os.loadavg()[0] ?? 0;
  const machine = machineInfo();
  const sb = await startSandbox({ items: 2000, seed: 11 });
  const perRun: { eventsPerSec: number; events: number; frames: number; seconds: number }[] = [];
  const baselines: number[] = [];
  try {
    const merchant = sb.core.merchants.create({ reveal: { steamId: true } });
    const headers = { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId };
    await feedRun(sb, headers, Math.min(1, seconds)); // warm-up, not counted
    for (let run = 1; run <= runs; run++) {
      const result = await feedRun(sb, headers, seconds);
      perRun.push(result);
      const baseline = await baselineRun(Math.min(BASELINE_SECONDS, seconds));
      baselines.push(baseline);
      log(
        `run ${run}/${runs}: ${result.eventsPerSec} item events/s to ${CLIENTS} clients (${result.events} events, ${result.frames} frames each); baseline ${baseline} frames/s`,
      );
    }
  } finally {
    await sb.close();
  }

  const rates = perRun.map((r) => r.eventsPerSec);
  const medianEventsPerSec = Math.round(median(rates));
  const medianFramesPerSec = Math.round(median(baselines));
  const result = buildResult({
    name: 'sandbox-feed',
    title: 'sandbox WebSocket feed: item events/s to all 3 connections of a merchant, order-checked',
    machine,
    runs,
    metrics: {
      events_per_sec: summarize(rates, 'events/s'),
      raw_ws_frames_per_sec: summarize(baselines, 'frames/s'),
    },
    baseline: { what: 'raw ws loopback frames/s, same run', median: medianFramesPerSec, unit: 'frames/s' },
    ratio: medianEventsPerSec / medianFramesPerSec,
    ratioMeaning: 'item events/s ÷ raw ws frames/s',
    targetText: `≥ ${TARGET_EVENTS_PER_SEC.toLocaleString('en-US')} events/s (the sandbox's own target)`,
    checks: [{ text: 'events/s', metric: 'events_per_sec', stat: 'median', op: '>=', value: TARGET_EVENTS_PER_SEC }],
    notes: [
      'Events generated in-process through the catalog (reprice, upsert, remove); 3 clients in the same process parse and order-check every frame (a conservative figure).',
    ],
    details: {
      setup: {
        items: 2000,
        clients: CLIENTS,
        clientsInProcess: true,
        secondsPerRun: seconds,
        eventsPerBatch: BATCH,
        windowEvents: WINDOW_EVENTS,
        eventsCounted:
          'item entries in price_changed, item_upserted and item_removed frames, received by every client, order-checked',
        baselineFrame: BASELINE_FRAME,
        loadAverage1m: { before: Number(loadBefore.toFixed(2)), after: Number((os.loadavg()[0] ?? 0).toFixed(2)) },
      },
      perRun,
    },
  });
  if (options.write ?? true) log(`wrote ${writeResult(result)}`);
  log(
    `median ${medianEventsPerSec} item events/s (min ${Math.min(...rates)}, max ${Math.max(...rates)}); ` +
      `baseline ${medianFramesPerSec} frames/s; ratio ${result.ratio}; target ${TARGET_EVENTS_PER_SEC} ${result.target.met ? 'met' : 'NOT met'}`,
  );
  return result;
}

export const run = runSandboxFeedBench;
export default runSandboxFeedBench;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSandboxFeedBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
