import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';
import { parseFill } from '../../src/main/core/engine/session/historyFill';
import type { Sandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import type { ProgressStatus } from '../../src/shared/ipc';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { busyMerchantBehindProxy, type BusyMerchantBehindProxy } from '../support/engineOnSandbox';
import { fillQuery, fillRequests } from '../support/historyRequests';
import { adminApi, TEST_TRADE_URL } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

/**
 * The first back-fill of a large history (the sandbox's seeded busy merchant, several pages of 500): stopped
 * after some pages and started again on the same data folder, it asks none of the stored pages again; a poll
 * while it pages closes the gap since it began without waiting for it; a buy goes out while it waits at its share.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD = join(ROOT, 'test/support/faults/backfillEngine.ts');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  useRealClock();
});

/**
 * A sandbox with `days` × `perDay` trades of history, a proxy in front, and an empty data folder. The history ends
 * 15 days ago: a new cache's one `isActive=true` request (the last 14 days) finds none of it, so all of it is paged.
 */
function stack(days: number, perDay: number, items = 40): Promise<BusyMerchantBehindProxy> {
  const endAt = new Date(Date.now() - 15 * 24 * 3600_000).toISOString();
  return busyMerchantBehindProxy(
    'engine-backfill-',
    { items, seed: 34, busyMerchant: { days, tradesPerDay: perDay, recipients: 400, endAt } },
    cleanups,
  );
}

/** The server's trade ids of the merchant. */
function serverTrades(sb: Sandbox, merchantId: string): string[] {
  return sb.core.db.prepare('SELECT trade_id FROM trades WHERE merchant_id = ?').pluck().all(merchantId) as string[];
}
/** How many of the merchant's trades were created at `at` or before it (`'<='`), or at it or after (`'>='`). */
function serverCount(sb: Sandbox, merchantId: string, op: '<=' | '>=', at: string): number {
  return sb.core.db
    .prepare(`SELECT count(*) FROM trades WHERE merchant_id = ? AND created_at ${op} ?`)
    .pluck()
    .get(merchantId, Date.parse(at)) as number;
}

/** The app's cache, read after the engine is gone: its trade ids and its meta. */
function cacheOf(s: BusyMerchantBehindProxy): {
  tradeIds: string[];
  oldest: string | null;
  meta: (key: string) => unknown;
} {
  const db = new Database(accountStoreFile(s.dataDir, s.merchant.merchantId), { readonly: true });
  try {
    const tradeIds = db.prepare('SELECT tradeId FROM trades').pluck().all() as string[];
    const oldest = db.prepare('SELECT min(createdAt) FROM trades').pluck().get() as string | null;
    const meta = new Map(
      (db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((row) => [
        row.key,
        JSON.parse(row.value) as unknown,
      ]),
    );
    return { tradeIds, oldest, meta: (key) => meta.get(key) ?? null };
  } finally {
    db.close();
  }
}

/** Runs the engine in a child process until the third page of the fill was asked for, then SIGKILL. */
async function killedAtThirdPage(s: BusyMerchantBehindProxy): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      BF_DATA_DIR: s.dataDir,
      BF_BASE_URL: s.proxy.baseUrl,
      BF_WS_URL: s.proxy.wsUrl,
      BF_MERCHANT_ID: s.merchant.merchantId,
      BF_API_KEY: s.merchant.apiKey,
    },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise((done) => child.on('exit', done));
  cleanups.push(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the engine exited: ${stderr.slice(-2000)}`);
      return fillRequests(s.proxy).length >= 3;
    },
    60_000,
    'the third page asked for',
  );
  child.kill('SIGKILL');
  await exited;
}

describe('the history back-fill: resumed, never in the way', () => {
  it.each(['a clean stop', 'SIGKILL'])(
    'stopped after two pages (%s), goes on from the oldest trade it stored: no page asked twice, every trade once',
    async (how) => {
      const s = await stack(2, 1_400); // 2,800 trades: 6 pages of 500
      const total = serverTrades(s.sb, s.merchant.merchantId).length;
      expect(total).toBe(2_800);
      // The third page of the fill (and any after it) is never answered: the run stops with two pages stored.
      const stopFill = s.proxy.inject(
        (_method, path) => fillQuery(path) !== null && fillRequests(s.proxy).length >= 3,
        { kind: 'mute' },
      );
      if (how === 'SIGKILL') await killedAtThirdPage(s);
      else {
        const first = await s.launch();
        await waitFor(() => fillRequests(s.proxy).length >= 3, 30_000, 'the third page asked for');
        await first.close();
      }
      stopFill();

      // What the first run left: the pages it stored and where it was, in the same transactions.
      const firstRun = fillRequests(s.proxy);
      const began = firstRun[0]?.get('to') as string;
      const left = cacheOf(s);
      // Newest first: the two pages stored are the newest trades, down to the oldest one stored.
      const position = left.oldest as string;
      expect(left.tradeIds.length).toBe(serverCount(s.sb, s.merchant.merchantId, '>=', position));
      expect(left.tradeIds.length).toBeGreaterThanOrEqual(999);
      expect(left.meta('trades_history_mark')).toBeNull();

      const before = s.proxy.requests.length;
      const second = await s.launch();
      await waitFor(
        async () => typeof (await second.session().store.getMeta('trades_history_mark')) === 'string',
        30_000,
        'the fill done',
      );
      const secondRun = fillRequests(s.proxy, before);
      // No page of the first run's range asked again: the second run pages from the position (inclusive: the
      // trades of that millisecond are the only overlap) down, once each page.
      const remaining = serverCount(s.sb, s.merchant.merchantId, '<=', position);
      expect(secondRun.map((params) => [params.get('to'), params.get('page')])).toEqual(
        Array.from({ length: Math.ceil(remaining / 500) }, (_, i) => [position, String(i + 1)]),
      );
      // Progress goes on counting from the pages stored before, with a time left once a pace is measured.
      const progress = second.batches
        .flatMap((batch) => batch.progress ?? [])
        .filter((p: ProgressStatus) => p.kind === 'history-backfill');
      expect(
        progress.some((p) => p.phase.startsWith('page 3 of ')),
        JSON.stringify(progress),
      ).toBe(true);
      expect(progress.some((p) => p.etaSeconds !== null)).toBe(true);
      // Where it went on from was kept with the second page, in its transaction; none is left once done.
      expect(parseFill(left.meta('trades_history_fill'))).toMatchObject({ from: null, to: position, done: 2 });
      expect((parseFill(left.meta('trades_history_fill')) as { top: string }).top >= began).toBe(true);
      expect(await second.session().store.getMeta('trades_history_fill')).toBeNull();
      // One summary for the history loaded, none per trade.
      const notifications = () => second.batches.flatMap((batch) => batch.notifications ?? []);
      await waitFor(() => notifications().some((n) => n.id.startsWith('trades-loaded:')), 10_000, 'the history loaded');
      expect(notifications().filter((n) => n.id.startsWith('trades-loaded:'))).toHaveLength(1);
      expect(notifications().filter((n) => n.target?.type === 'trade')).toEqual([]);
      await second.close();

      // Every trade of the server is in the cache, once.
      const cached = cacheOf(s).tradeIds;
      expect(cached.length).toBe(total);
      expect(new Set(cached)).toEqual(new Set(serverTrades(s.sb, s.merchant.merchantId)));
    },
    120_000,
  );

  it('a poll while the fill pages finds a trade made and finished meanwhile, before the fill is done', async () => {
    useFlowingFakeClock();
    const s = await stack(4, 2_500);
    // No feed (polling every 15 s), and each of the fill's 20 pages takes 10 s to answer (under the client's 15 s
    // timeout): a fill of over three minutes. Fake time runs ahead of a loaded machine's I/O (reach steps it a second
    // at a time), so the fill must be many polls long in fake time, or a poll slowed by load could come after it all.
    s.proxy.inject('/ws', { kind: 'drop' });
    s.proxy.inject((_method, path) => fillQuery(path) !== null, { kind: 'delay', delayMs: 10_000 });
    const app = await s.launch();
    await reach(() => fillRequests(s.proxy).length >= 2, 30_000, 'the first page stored, the second asked for');

    const [item] = (await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 555 }] })).body
      .items as [Item];
    const { tradeId } = s.sb.core.buying.buy(s.merchant.merchantId, {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: TEST_TRADE_URL,
    });
    // Made and finished in one turn of the sandbox: no poll sees it active.
    s.sb.core.trades.transition(tradeId, { status: 'SENT' });
    s.sb.core.trades.transition(tradeId, { status: 'COMPLETED' });

    const found = await reach(
      async () => {
        const trade = await app.call('trades.get', { tradeId });
        if (!trade) return null;
        return { trade: trade.trade, mark: await app.session().store.getMeta('trades_history_mark') };
      },
      60_000,
      'the trade found by a poll',
    );
    expect(found.trade.status).toBe('COMPLETED');
    // The fill was still under way: the poll did not wait for it.
    expect(found.mark).toBeNull();
    expect(parseFill(await app.session().store.getMeta('trades_history_fill'))?.left).toBeGreaterThan(0);
    await reach(
      async () => typeof (await app.session().store.getMeta('trades_history_mark')) === 'string',
      600_000,
      'the fill done',
    );
  }, 180_000);

  it('a buy is answered while the fill waits at its share of the budget; the start-up goes Live meanwhile', async () => {
    const s = await stack(6, 3_500, 100); // 21,000 trades: 42 pages, and the ledger's as many: minutes at 30 a minute
    const [item] = (await adminApi(s.sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 250 }] })).body
      .items as [Item];
    const app = await s.launch({ settings: { bulkSharePercent: 10 } }); // 30 of the 300 a minute
    const limiter = app.session().limiter;
    await waitFor(
      () =>
        limiter.queued('default') > 0 &&
        app
          .session()
          .progressList()
          .some((p) => p.kind === 'history-backfill'),
      30_000,
      'the fill waiting for the bulk share',
    );
    await waitFor(() => app.session().connection.state === 'connected', 20_000, 'Live');
    // Every request granted so far answered, so none is still on its way to the proxy when the pages are counted.
    await waitFor(() => limiter.unanswered('default') === 0, 20_000, 'the granted requests answered');
    const waiting = limiter.queued('default');
    const pagesAsked = fillRequests(s.proxy).length;

    const bought = await app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });
    if (!bought.ok) throw new Error(bought.failure.message);
    // Answered while the background pages still wait for the window (none of them went out): it never queued
    // behind them. (Its answer asks for the ledger again: one more of them waits.)
    expect(limiter.queued('default')).toBeGreaterThanOrEqual(waiting);
    expect(fillRequests(s.proxy).length).toBe(pagesAsked);
    expect(await app.session().store.getMeta('trades_history_mark')).toBeNull();
    expect((await app.call('trades.get', { tradeId: bought.trade.tradeId }))?.trade.status).toBe('PENDING');
  }, 60_000);
});
