/**
 * The child process of test/reliability/crash-consistency.test.ts:
 *
 *   node --import tsx test/support/faults/crashWriter.ts <kind> <file> <run>
 *
 * Opens a LocalStore on <file> and writes without end, one kind of write (or a
 * mix), until the parent kills it with SIGKILL. Before each write it prints
 * `{"t":"begin",...}` and after the awaited call returned (the transaction is
 * committed) `{"t":"commit",...}`, one JSON object per line on stdout. The
 * parent makes stdout a file: Node writes files synchronously, so a line
 * printed before the kill is a line the parent reads (a pipe would not do:
 * its writes are queued in this process and die with it).
 *
 * Kinds: items (upserts and price changes), trades (upserts and status
 * updates), ledger (synthetic entries), catalog (syncCatalog from the sandbox
 * while the parent reprices marker items), mixed (a real ledger sync, trades
 * and catalog syncs at once, like a busy session).
 *
 * Environment: CRASH_BASE_URL, CRASH_MERCHANT_ID, CRASH_API_KEY (catalog,
 * mixed), CRASH_ITEMS_FILE (items: real sandbox items to write back), CRASH_MARKERS (catalog, mixed: marker ids).
 */
import { readFileSync } from 'node:fs';
import type { BalanceTransaction, Item, Trade, TradeStatus } from '../../../src/shared/api';
import { MerchantApiClient } from '../../../src/main/core/api';
import { LocalStore } from '../../../src/main/core/store';
import { applyItemUpserts, applyPriceChanges } from '../liveChanges';

const [kind, file, runText] = process.argv.slice(2);
if (!kind || !file || !runText) {
  process.stderr.write('usage: crashWriter.ts <items|trades|ledger|catalog|mixed> <file> <run>\n');
  process.exit(2);
}
const run = Number(runText);
const env = process.env;

function out(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

let state = (run * 2_654_435_761) >>> 0;
function random(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
}

function pick<T>(pool: readonly T[], count: number): T[] {
  const chosen = new Set<T>();
  while (chosen.size < Math.min(count, pool.length)) chosen.add(pool[Math.floor(random() * pool.length)] as T);
  return [...chosen];
}

/** Prices only grow across runs and writes: a stored price tells which write put it there. */
function priceOf(runNumber: number, j: number): number {
  return runNumber * 1_000_000 + j;
}

function trade(tradeId: string, status: TradeStatus, at: string): Trade {
  return {
    tradeId,
    externalId: `ext-${tradeId}`,
    status,
    price: 1234,
    itemId: 1,
    assetId: '1',
    offerId: status === 'PENDING' ? null : '1234567890',
    tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234',
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    phase: null,
    float: 0.25,
    webhookStatus: null,
    failReason: null,
    errorCode: null,
    createdAt: at,
    updatedAt: at,
    completedAt: status === 'COMPLETED' ? at : null,
    cancelledAt: null,
    endProtection: null,
    rollbackAt: null,
    stage: 1,
  };
}

// CRASH_WORKER_ENTRY: a bundled store worker (see storeWorkerBundle.ts), else the TypeScript source through tsx.
const store = await LocalStore.open({
  file,
  ...(env.CRASH_WORKER_ENTRY ? { workerEntry: new URL(env.CRASH_WORKER_ENTRY) } : {}),
});
out({ t: 'ready', pid: process.pid });

async function itemsLoop(): Promise<never> {
  const items = JSON.parse(readFileSync(env.CRASH_ITEMS_FILE as string, 'utf8')) as Item[];
  const ids = items.map((item) => item.itemId);
  const byId = new Map(items.map((item) => [item.itemId, item]));
  // Every run starts by (re)writing the whole pool, so price changes always hit known ids.
  for (let j = 1; ; j++) {
    const price = priceOf(run, j);
    const chosen = j === 1 ? ids : pick(ids, 60);
    const op = j === 1 || j % 2 === 1 ? 'upsert' : 'price';
    out({ t: 'begin', op, j, price, ids: chosen });
    if (op === 'upsert')
      await applyItemUpserts(
        store,
        chosen.map((itemId) => ({ ...(byId.get(itemId) as Item), price })),
      );
    else
      await applyPriceChanges(
        store,
        chosen.map((itemId) => ({ itemId, price })),
      );
    out({ t: 'commit', op, j });
  }
}

async function tradesLoop(prefix: string): Promise<never> {
  const open: { tradeId: string; status: TradeStatus }[] = [];
  for (let j = 1; ; j++) {
    const at = new Date().toISOString();
    const fresh = Array.from({ length: 20 }, (_, k) => `${prefix}r${run}-t${j}-${k}`);
    out({ t: 'begin', op: 'trades', j, ids: fresh });
    await store.upsertTrades(
      fresh.map((tradeId) => trade(tradeId, 'PENDING', at)),
      'backfill',
    );
    out({ t: 'commit', op: 'trades', j });
    for (const tradeId of fresh) open.push({ tradeId, status: 'PENDING' });
    // Move three open trades one status forward each, by feed-style updates.
    for (let k = 0; k < 3 && open.length > 0; k++) {
      const index = Math.floor(random() * open.length);
      const target = open[index] as { tradeId: string; status: TradeStatus };
      const status: TradeStatus = target.status === 'PENDING' ? 'SENT' : 'COMPLETED';
      out({ t: 'begin', op: 'update', j, tradeId: target.tradeId, status });
      await store.applyTradeUpdate(
        { tradeId: target.tradeId, status, externalId: null, offerId: '1234567890', failReason: null, errorCode: null },
        'feed',
      );
      out({ t: 'commit', op: 'update', j, tradeId: target.tradeId, status });
      if (status === 'COMPLETED') open.splice(index, 1);
      else target.status = status;
    }
  }
}

async function ledgerLoop(): Promise<never> {
  let balance = 0;
  for (let j = 1; ; j++) {
    const first = run * 10_000_000 + j * 100;
    const entries: BalanceTransaction[] = Array.from({ length: 100 }, (_, k) => {
      const amount = 100 + k;
      const entry: BalanceTransaction = {
        id: first + k,
        type: 'CRYPTO DEPOSIT',
        amount,
        balanceBefore: balance,
        balanceAfter: balance + amount,
        tradeId: null,
        note: `run ${run} batch ${j}`,
        createdAt: new Date().toISOString(),
        market_hash_name: null,
        phase: null,
      };
      balance += amount;
      return entry;
    });
    out({ t: 'begin', op: 'ledger', j, first, count: entries.length });
    await store.insertLedger(entries);
    out({ t: 'commit', op: 'ledger', j, first, count: entries.length });
  }
}

function client(): MerchantApiClient {
  return new MerchantApiClient({
    baseUrl: env.CRASH_BASE_URL as string,
    merchantId: env.CRASH_MERCHANT_ID as string,
    apiKey: env.CRASH_API_KEY as string,
  });
}

async function catalogLoop(api: MerchantApiClient): Promise<void> {
  const markers = (env.CRASH_MARKERS ?? '').split(',').map(Number);
  for (let g = 1; ; g++) {
    out({ t: 'begin', op: 'sync', j: g });
    const request = await api.prepareCatalogRequest();
    let phase = '';
    const result = await store.syncCatalog(request, (progress) => {
      // Which phase a kill lands in: receiving (staging only) or applying (the one big transaction).
      if (progress.phase !== phase) out({ t: 'note', op: 'sync', j: g, phase: (phase = progress.phase) });
    });
    // As the app's session does: the download's rate slot is timed from its answer.
    api.reportCatalogResponse(result.ok ? 200 : result.status, result.ok ? {} : result.headers);
    if (!result.ok) {
      out({ t: 'note', op: 'sync', j: g, status: result.status });
      return;
    }
    // Read back after the commit: the marker price this sync stored.
    const found = await store.findItemsByIds(markers);
    out({
      t: 'commit',
      op: 'sync',
      j: g,
      total: result.total,
      markerPrice: Math.min(...found.map((item) => item.price)),
    });
  }
}

/** The app's ledger sync (session.syncLedger): pages from the newest entry held, each page one insert. */
async function ledgerSyncLoop(api: MerchantApiClient): Promise<void> {
  for (let round = 1; ; round++) {
    const since = await store.latestLedgerCreatedAt();
    for (let page = 1; ; page++) {
      const answer = await api.balanceHistory({ limit: 100, page, ...(since ? { from: since } : {}) });
      const ids = answer.transactions.map((entry) => entry.id);
      out({ t: 'begin', op: 'ledgerSync', j: round * 1000 + page, ids });
      await store.insertLedger(answer.transactions);
      out({ t: 'commit', op: 'ledgerSync', j: round * 1000 + page, ids });
      if (answer.transactions.length < 100) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

switch (kind) {
  case 'items':
    await itemsLoop();
    break;
  case 'trades':
    await tradesLoop('');
    break;
  case 'ledger':
    await ledgerLoop();
    break;
  case 'catalog':
    await catalogLoop(client());
    break;
  case 'mixed': {
    const api = client();
    await Promise.all([catalogLoop(api), ledgerSyncLoop(api), tradesLoop('m')]);
    break;
  }
  default:
    process.stderr.write(`unknown kind ${kind}\n`);
    process.exit(2);
}
