/**
 * Child process of live-events: the sandbox (500k catalog) and the market event
 * generator, in their own process, as the marketplace is in production: its
 * work never shares a thread with the engine under test.
 *
 * Events go into the sandbox's event bus (core.events: pricesChanged,
 * itemsUpserted, itemsRemoved), which its feed server frames and sends exactly
 * as it does for catalog changes; the sandbox's own catalog writes are skipped
 * (on a 500k catalog they run ~10k events/s on one core: the marketplace's
 * cost, not the app's, and it would cap what is measured here).
 *
 * Protocol: → {type:'ready', baseUrl, wsUrl, merchant}; ← {type:'run', seconds,
 * rate} runs the generator: paced at `rate` events/s, or with rate 0 as fast as
 * the engine keeps up, honouring ← {type:'delivered', count} as backpressure (at
 * most WINDOW events in flight); then → {type:'ran', produced, prices, priceAt,
 * removals, removalAt}: every event's key (a unique price, or a removed itemId)
 * and its emission time on the shared wall clock (performance.timeOrigin + now).
 * ← {type:'burst', count} emits that many price changes at once, then → the same 'ran'.
 * ← {type:'stop'} closes the sandbox.
 */
import type { Item } from '../../src/shared/api';
import { HIDE_ALL, itemFor, toItemRecord, type ItemRecord } from '../../src/server/domain/itemRecord';
import { toParent, type ChildMessage } from './child';
import { BATCH, FIRST_PRICE, shuffleItemIds, WINDOW } from './liveEventsPlan';
import { createMerchant, startBenchSandbox } from './sandbox';

const ITEMS = Number(process.env['BENCH_ITEMS'] ?? 500_000);
/** A removed item is listed again only after this long (so removal and re-listing never share a batch). */
const RELIST_AFTER_MS = 2000;

const clock = () => performance.timeOrigin + performance.now();

const bench = await startBenchSandbox(ITEMS);
const sb = bench.sb;
const merchant = createMerchant(sb, { balance: 1_000_000 });

const onSale = sb.core.db
  .prepare('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id')
  .pluck()
  .all() as number[];
// Walked in a random order (a seeded shuffle): a market's changes hit items all over the catalog,
// never neighbours in id order (which would share the cache's pages). One pass covers every item once,
// so an item never changes twice within a batch window (the engine would merge the two).
shuffleItemIds(onSale, 20_261_123);
const records = new Map<number, Item>();
let cursor = 0;
/** Positions in onSale whose item was removed (skipped by the walk; a re-listed item gets a new position). */
const gone = new Set<number>();
/** The next position after `from` (cyclic) whose item is on sale. */
function nextOnSale(from: number): number {
  let index = (from + 1) % onSale.length;
  while (gone.has(index)) index = (index + 1) % onSale.length;
  return index;
}
let nextPrice = FIRST_PRICE;
const removedQueue: { itemId: number; at: number }[] = [];
/** Re-listed items get price changes again only after this queue releases them (see turn). */
const relistedQueue: { itemId: number; at: number }[] = [];
let delivered = 0;

type EventLog = { prices: number[]; priceAt: number[]; removals: number[]; removalAt: number[] };
const TURN_EVENTS = BATCH.reprice + BATCH.relist + BATCH.remove;

/** One generator turn: about `size` events, in the plan's mix of price changes, re-listings and removals. */
function turn(log: EventLog, size: number = TURN_EVENTS): number {
  const now = clock();
  const events = sb.core.events;
  const share = size / TURN_EVENTS;
  const reprices = Math.max(1, Math.round(BATCH.reprice * share));
  const relists = Math.round(BATCH.relist * share);
  const removals = Math.round(BATCH.remove * share);
  const changes = [];
  for (let i = 0; i < reprices; i++) {
    cursor = nextOnSale(cursor);
    const price = nextPrice++;
    changes.push({ itemId: onSale[cursor] as number, price });
    log.prices.push(price);
    log.priceAt.push(now);
  }
  events.emit('pricesChanged', changes);
  const relist: ItemRecord[] = [];
  while (
    relist.length < relists &&
    removedQueue.length > 0 &&
    now - (removedQueue[0] as { at: number }).at >= RELIST_AFTER_MS
  ) {
    const { itemId } = removedQueue.shift() as { itemId: number };
    const price = nextPrice++;
    relist.push(toItemRecord({ ...(records.get(itemId) as Item), price }));
    log.prices.push(price);
    log.priceAt.push(now);
    relistedQueue.push({ itemId, at: now });
  }
  // A re-listed item is repriced only later: an upsert and a price change of one item within one batch
  // window are merged by the engine (correctly: the UI needs the latest state), which would hide the upsert.
  while (relistedQueue.length > 0 && now - (relistedQueue[0] as { at: number }).at >= RELIST_AFTER_MS)
    onSale.push((relistedQueue.shift() as { itemId: number }).itemId);
  if (relist.length > 0) events.emit('itemsUpserted', relist);
  // Removals come from the far side of the reprice cursor, so they never share a batch with a price change.
  const victims: number[] = [];
  for (let i = 0; i < removals && onSale.length - gone.size > ITEMS / 2; i++) {
    const index = nextOnSale((cursor + Math.floor(onSale.length / 2)) % onSale.length);
    // Marked, not spliced out: splicing the middle of a 500k array moved ~2 MB per removal (~5 µs of
    // this process's CPU per event, taken from the two cores the engine under test runs on).
    gone.add(index);
    victims.push(onSale[index] as number);
  }
  for (const record of sb.core.catalog.searchByIds(victims.filter((itemId) => !records.has(itemId))))
    records.set(record.itemId, itemFor(record, HIDE_ALL));
  events.emit('itemsRemoved', victims);
  for (const itemId of victims) {
    removedQueue.push({ itemId, at: now });
    log.removals.push(itemId);
    log.removalAt.push(now);
  }
  return changes.length + relist.length + victims.length;
}

async function run(seconds: number, rate: number): Promise<void> {
  const log: EventLog = { prices: [], priceAt: [], removals: [], removalAt: [] };
  delivered = 0;
  let produced = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline) {
    if (rate > 0) {
      // Paced: emit what is due by now (in turns of at most TURN_EVENTS), about every millisecond.
      let due = Math.floor((rate * (performance.now() - started)) / 1000) - produced;
      while (due > 0) {
        const size = Math.min(due, TURN_EVENTS);
        produced += turn(log, size);
        due -= size;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
      continue;
    }
    if (produced - delivered > WINDOW) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      continue;
    }
    produced += turn(log);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await toParent({ type: 'ran', produced, ...log });
}

/** A burst: `count` price changes emitted at once (as the marketplace's five-minute rebuild brings them), in feed-sized frames. */
async function burst(count: number): Promise<void> {
  const log: EventLog = { prices: [], priceAt: [], removals: [], removalAt: [] };
  const now = clock();
  for (let sent = 0; sent < count;) {
    const changes = [];
    for (; changes.length < 2000 && sent < count; sent++) {
      cursor = nextOnSale(cursor);
      const price = nextPrice++;
      changes.push({ itemId: onSale[cursor] as number, price });
      log.prices.push(price);
      log.priceAt.push(now);
    }
    sb.core.events.emit('pricesChanged', changes);
  }
  await toParent({ type: 'ran', produced: count, ...log });
}

process.on('message', (message: ChildMessage) => {
  if (message.type === 'delivered') delivered = message['count'] as number;
  else if (message.type === 'burst') void burst(message['count'] as number);
  else if (message.type === 'run') void run(message['seconds'] as number, (message['rate'] as number | undefined) ?? 0);
  else if (message.type === 'stop') void bench.close().then(() => process.exit(0));
});
process.on('disconnect', () => void bench.close().then(() => process.exit(0)));
await toParent({ type: 'ready', baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchant });
