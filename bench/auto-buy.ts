/**
 * Auto-buy reaction time: an item_upserted frame that matches an auto-buy rule →
 * the engine's POST /Items/Buy on the wire.
 *
 * The sandbox, a timestamping TCP proxy in front of its REST port, and the real
 * Engine share this process (one clock). The engine's REST traffic goes through
 * the proxy; its feed connects to the sandbox directly. For each buy the bench
 * lists one new item whose name matches the rule (sb.core.catalog.upsert: the
 * sandbox sends item_upserted after the turn) and records the time; the proxy
 * records when `POST /Items/Buy` arrives. One buy at a time; each trade is then
 * moved to COMPLETED so the 30-active-offers-per-recipient limit never applies.
 *
 * The engine's client keeps the sandbox's 300 requests/minute budget, and each
 * buy costs ~4 requests (buy, trade lookup, balance, ledger), so the buys are
 * spread over ENGINES merchants/engines of BUYS_PER_ENGINE each: no buy ever
 * waits for the rate limiter.
 *
 * Baseline, same run: a bare loopback round trip through the same proxy — a raw
 * TCP client sends a request line the moment a ws frame arrives (frame → raw
 * request on the wire), i.e. the transport floor of "frame in, request out".
 */
import { rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import type { Item } from '../src/shared/api';
import { itemFor } from '../src/server/domain/itemRecord';
import { startSandbox } from '../src/server/sandbox';
import { machineInfo } from './lib/machine';
import { TimestampProxy } from './lib/proxy';
import { buildResult, isQuick, summaryLine, writeResult } from './lib/result';
import { createMerchant, merchantHeaders, scratchDir, sleep, startEngine, waitFor } from './lib/sandbox';
import { max, median, percentile, round, summarize } from './lib/stats';

const ENGINES = isQuick() ? 1 : 5;
const BUYS_PER_ENGINE = 50;
const TRADE_URL = 'https://steamcommunity.com/tradeoffer/new/?partner=87654321&token=BenchAb1';
const MARKER = 'Bench AutoBuy';
const machine = machineInfo();
const log = (line: string) => console.log(`[auto-buy] ${line}`);

const dbDir = scratchDir('autobuy');
const sb = await startSandbox({ items: 2000, seed: 5, dbFile: `${dbDir}/sandbox.db` });
const buyArrivals: { line: string; at: number }[] = [];
const proxy = new TimestampProxy(Number(new URL(sb.baseUrl).port), (line, at) => {
  if (line.startsWith('POST /Items/Buy')) buyArrivals.push({ line, at });
});
await proxy.start();

const template = itemFor(sb.core.catalog.searchByIds([1_000_001])[0] ?? (sb.core.catalog.searchByIds([sb.core.catalog.maxItemId()])[0] as never), {
  steamId: true,
  inspectInGame: true,
  tradeUrl: true,
});
let nextItemId = sb.core.catalog.maxItemId() + 1;
const latencies: number[] = [];
const perEngine: { buys: number; p50Ms: number; p99Ms: number }[] = [];

async function engineRound(round: number): Promise<void> {
  const dataDir = scratchDir('autobuy-engine');
  const merchant = createMerchant(sb, { balance: 100_000_000 });
  const running = await startEngine({ dataDir, baseUrl: proxy.baseUrl, wsUrl: sb.wsUrl, merchant });
  const engine = running.engine;
  const mine: number[] = [];
  try {
    await waitFor(() => engine.accountSession?.connection.state === 'connected', 20_000, 'the feed');
    await waitFor(() => running.logs.some((l) => l.startsWith('catalog sync (')), 60_000, 'the first sync');
    const recipient = await engine.handle('recipients.save', { label: 'bench', tradeUrl: TRADE_URL } as never);
    await engine.handle('alerts.saveRule', {
      name: 'bench auto-buy',
      enabled: true,
      namePattern: MARKER,
      phase: null,
      floatMin: null,
      floatMax: null,
      maxPrice: null,
      stickerNames: [],
      autoBuy: { enabled: true, recipientId: (recipient as { id: string }).id, spendCap: 1_000_000_000, dailyCap: 1_000_000_000 },
    } as never);
    await sleep(1500); // let start-up traffic (reconcile, back-fill, ledger) settle
    for (let i = 0; i < BUYS_PER_ENGINE; i++) {
      const itemId = nextItemId++;
      const price = 1000 + i;
      const item: Item = { ...template, itemId, assetId: String(90_000_000_000 + itemId), market_hash_name: `${MARKER} | Item ${itemId} (Factory New)`, price, steamId: null };
      const before = buyArrivals.length;
      const emitted = performance.now();
      sb.core.catalog.upsert([item]);
      await waitFor(() => buyArrivals.length > before, 10_000, `the buy of item ${itemId}`, 1);
      const latency = (buyArrivals[before] as { at: number }).at - emitted;
      mine.push(latency);
      latencies.push(latency);
      // Settle: the trade exists, then it completes (frees the recipient's active-offer slot).
      const trade = await waitFor(() => sb.core.db.prepare('SELECT trade_id FROM trades WHERE item_id = ?').pluck().get(itemId) as string | undefined, 10_000, 'the trade');
      await sleep(30);
      sb.core.trades.transition(trade, { status: 'SENT' });
      sb.core.trades.transition(trade, { status: 'COMPLETED' });
      await sleep(120);
    }
    const waited = running.logs.filter((l) => /rate/i.test(l));
    if (waited.length > 0) log(`engine ${round}: ${waited.slice(0, 3).join(' | ')}`);
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  perEngine.push({ buys: mine.length, p50Ms: round2(percentile(mine, 50)), p99Ms: round2(percentile(mine, 99)) });
  log(`engine ${round + 1}/${ENGINES}: ${mine.length} buys, frame → POST p50 ${round2(percentile(mine, 50))} ms, p99 ${round2(percentile(mine, 99))} ms, max ${round2(max(mine))} ms`);
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The transport floor: ws frame in → a raw request line written to the proxy, same sockets, no engine. */
async function baselineRun(samples: number): Promise<number[]> {
  const merchant = createMerchant(sb);
  const ws = new WebSocket(sb.wsUrl, { headers: merchantHeaders(merchant) });
  await new Promise((resolve, reject) => {
    ws.once('message', resolve);
    ws.once('error', reject);
  });
  const socket: Socket = connect(proxy.port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.on('data', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const out: number[] = [];
  let emitted = 0;
  ws.on('message', () => {
    socket.write('POST /Items/Buy HTTP/1.1\r\nhost: bench\r\ncontent-length: 2\r\ncontent-type: application/json\r\n\r\n{}');
  });
  for (let i = 0; i < samples; i++) {
    const before = buyArrivals.length;
    const itemId = nextItemId++;
    emitted = performance.now();
    sb.core.catalog.upsert([{ ...template, itemId, assetId: String(90_000_000_000 + itemId), market_hash_name: `Baseline | ${itemId}`, price: 500, steamId: null }]);
    await waitFor(() => buyArrivals.length > before, 5000, 'the raw request', 1);
    out.push((buyArrivals[before] as { at: number }).at - emitted);
    await sleep(20);
  }
  ws.close();
  socket.destroy();
  return out;
}

let baseline: number[] = [];
try {
  for (let r = 0; r < ENGINES; r++) await engineRound(r);
  baseline = await baselineRun(100);
  log(`baseline (frame → raw request line, no engine): p50 ${round2(percentile(baseline, 50))} ms, p99 ${round2(percentile(baseline, 99))} ms`);
} finally {
  await proxy.close();
  await sb.close();
  rmSync(dbDir, { recursive: true, force: true });
}

const result = buildResult({
  name: 'auto-buy',
  title: 'auto-buy: item_upserted frame emitted → POST /Items/Buy on the wire',
  machine,
  runs: ENGINES,
  metrics: {
    frame_to_post_ms: summarize(latencies, 'ms', { p95: true, p99: true }),
    baseline_frame_to_request_ms: summarize(baseline, 'ms', { p95: true, p99: true }),
  },
  baseline: { what: 'transport floor: ws frame in → raw request line written through the same proxy, no engine', median: median(baseline), unit: 'ms' },
  ratio: median(latencies) / median(baseline),
  ratioMeaning: 'p50 ours ÷ p50 transport floor',
  targetText: 'p50 ≤ 2 ms, p99 ≤ 10 ms',
  checks: [
    { text: 'p50', metric: 'frame_to_post_ms', stat: 'median', op: '<=', value: 2 },
    { text: 'p99', metric: 'frame_to_post_ms', stat: 'p99', op: '<=', value: 10 },
  ],
  notes: [
    `${latencies.length} buys: ${ENGINES} engines (merchants) × ${BUYS_PER_ENGINE}, one at a time, so no request ever waits for the 300/min budget. Emission = just before sb.core.catalog.upsert (the sandbox sends the frame after that turn); arrival = the proxy's first bytes of the request.`,
    'Sandbox, proxy and engine share one process and event loop, so their work can only add to the measured time.',
  ],
  details: { perEngine, latenciesMs: latencies.map((v) => round(v)) },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
process.exit(0);
