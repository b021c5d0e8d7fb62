/**
 * Child process of auto-buy: the marketplace side. The sandbox and a
 * timestamping TCP proxy in front of its REST port run here, in their own
 * process and event loop, as the network does in production: the engine under
 * test (in the parent) never shares a thread with them, and both timestamps of
 * a measurement (the frame emitted, the buy request arriving) come from this
 * process's clock.
 *
 * Protocol: → {type:'ready', restUrl, wsUrl}; ← {type:'merchant'} → {type:'merchant', merchantId, apiKey};
 * ← {type:'list', index} lists one new item whose name matches the rule and
 * answers → {type:'bought', latencyMs} when its POST /Items/Buy arrives, then
 * completes the trade (frees the recipient's active-offer slot);
 * ← {type:'baseline', samples} → {type:'baseline', latenciesMs}: the transport
 * floor (ws frame in → a raw request line through the same proxy, no engine);
 * ← {type:'stop'}.
 */
import { rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import type { Item } from '../../src/shared/api';
import { itemFor } from '../../src/server/domain/itemRecord';
import { startSandbox } from '../../src/server/sandbox';
import { AUTO_BUY_MARKER } from './autoBuyPlan';
import { toParent, type ChildMessage } from './child';
import { TimestampProxy } from './proxy';
import { createMerchant, merchantHeaders, scratchDir, sleep, waitFor } from './sandbox';

const dbDir = scratchDir('autobuy');
const sb = await startSandbox({ items: 2000, seed: 5, dbFile: `${dbDir}/sandbox.db` });
const buyArrivals: { line: string; at: number }[] = [];
const proxy = new TimestampProxy(Number(new URL(sb.baseUrl).port), (line, at) => {
  if (line.startsWith('POST /Items/Buy')) buyArrivals.push({ line, at });
});
await proxy.start();

const template = itemFor(
  sb.core.catalog.searchByIds([1_000_001])[0] ??
    (sb.core.catalog.searchByIds([sb.core.catalog.maxItemId()])[0] as never),
  {
    steamId: true,
    inspectInGame: true,
    tradeUrl: true,
  },
);
let nextItemId = sb.core.catalog.maxItemId() + 1;

/**
 * When the frame of an upsert just made leaves: the sandbox stores the item (its own SQLite write, which now
 * and then includes a WAL checkpoint of 10-15 ms), then sends the frame at the end of that turn. The clock
 * starts after the marketplace's write, where the frame exists; the engine under test has nothing to react
 * to before.
 */
function frameLeaves(): number {
  return performance.now();
}

async function listAndWait(index: number): Promise<number> {
  const itemId = nextItemId++;
  const item: Item = {
    ...template,
    itemId,
    assetId: String(90_000_000_000 + itemId),
    market_hash_name: `${AUTO_BUY_MARKER} | Item ${itemId} (Factory New)`,
    price: 1000 + index,
    steamId: null,
  };
  const before = buyArrivals.length;
  sb.core.catalog.upsert([item]);
  const emitted = frameLeaves();
  await waitFor(() => buyArrivals.length > before, 10_000, `the buy of item ${itemId}`, 1);
  const latency = (buyArrivals[before] as { at: number }).at - emitted;
  // Settle: the trade exists, then it completes (frees the recipient's active-offer slot).
  const trade = await waitFor(
    () => sb.core.db.prepare('SELECT trade_id FROM trades WHERE item_id = ?').pluck().get(itemId) as string | undefined,
    10_000,
    'the trade',
  );
  await sleep(30);
  sb.core.trades.transition(trade, { status: 'SENT' });
  sb.core.trades.transition(trade, { status: 'COMPLETED' });
  return latency;
}

/** The transport floor: ws frame in → a raw request line written to the proxy, same sockets, no engine. */
async function baselineRun(samples: number): Promise<number[]> {
  const ws = new WebSocket(sb.wsUrl, { headers: merchantHeaders(createMerchant(sb)) });
  await new Promise((resolve, reject) => {
    ws.once('message', resolve);
    ws.once('error', reject);
  });
  const socket: Socket = connect(proxy.port, '127.0.0.1');
  socket.setNoDelay(true);
  socket.on('data', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const out: number[] = [];
  ws.on('message', () => {
    socket.write(
      'POST /Items/Buy HTTP/1.1\r\nhost: bench\r\ncontent-length: 2\r\ncontent-type: application/json\r\n\r\n{}',
    );
  });
  for (let i = 0; i < samples; i++) {
    const before = buyArrivals.length;
    const itemId = nextItemId++;
    sb.core.catalog.upsert([
      {
        ...template,
        itemId,
        assetId: String(90_000_000_000 + itemId),
        market_hash_name: `Baseline | ${itemId}`,
        price: 500,
        steamId: null,
      },
    ]);
    const emitted = frameLeaves();
    await waitFor(() => buyArrivals.length > before, 5000, 'the raw request', 1);
    out.push((buyArrivals[before] as { at: number }).at - emitted);
    await sleep(20);
  }
  ws.close();
  socket.destroy();
  return out;
}

async function close(): Promise<void> {
  await proxy.close();
  await sb.close();
  rmSync(dbDir, { recursive: true, force: true });
  process.exit(0);
}

process.on('message', (message: ChildMessage) => {
  const reply = (work: Promise<Record<string, unknown>>, type: string) =>
    void work.then(
      (value) => toParent({ type, ...value }),
      (error: unknown) =>
        toParent({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    );
  if (message.type === 'merchant')
    reply(
      Promise.resolve(createMerchant(sb, { balance: 100_000_000 }) as unknown as Record<string, unknown>),
      'merchant',
    );
  else if (message.type === 'list')
    reply(
      listAndWait(message['index'] as number).then((latencyMs) => ({ latencyMs })),
      'bought',
    );
  else if (message.type === 'baseline')
    reply(
      baselineRun(message['samples'] as number).then((latenciesMs) => ({ latenciesMs })),
      'baseline',
    );
  else if (message.type === 'stop') void close();
});
process.on('disconnect', () => void close());
await toParent({ type: 'ready', restUrl: proxy.baseUrl, wsUrl: sb.wsUrl });
