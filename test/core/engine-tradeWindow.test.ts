import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';
import type { Sandbox } from '../../src/server/sandbox';
import type { ProgressStatus } from '../../src/shared/ipc';
import { busyMerchantBehindProxy, type BusyMerchantBehindProxy } from '../support/engineOnSandbox';
import { fillRequests, isWindowRequest, windowRequests } from '../support/historyRequests';
import type { EngineHarness } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';

/**
 * A new cache's first fill: the last 14 days in one streamed `isActive=true` answer (stored in chunks of 2,000 by the
 * store's writer thread), then only the history older than the window's oldest trade, paged. 16 days at 300 a day:
 * 4,200 trades in the window, ~600 older (two pages of 500).
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function stack(): Promise<BusyMerchantBehindProxy> {
  return busyMerchantBehindProxy(
    'engine-window-',
    { items: 40, seed: 34, busyMerchant: { days: 16, tradesPerDay: 300, recipients: 400 } },
    cleanups,
  );
}

/** The reconcile's reads (by status, reversals, by id): muted where a test counts what the window alone stored. */
const isReconcile = (path: string) => /^\/Trades\/History\?(.*&)?(status|tradeId|webhookStatus)=/.test(path);

function serverTrades(sb: Sandbox, merchantId: string): string[] {
  return sb.core.db.prepare('SELECT trade_id FROM trades WHERE merchant_id = ?').pluck().all(merchantId) as string[];
}

function cacheOf(s: BusyMerchantBehindProxy): { tradeIds: string[]; meta: (key: string) => unknown } {
  const db = new Database(accountStoreFile(s.dataDir, s.merchant.merchantId), { readonly: true });
  try {
    const tradeIds = db.prepare('SELECT tradeId FROM trades').pluck().all() as string[];
    const rows = db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    const meta = new Map(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
    return { tradeIds, meta: (key) => meta.get(key) ?? null };
  } finally {
    db.close();
  }
}

function cachedLedger(s: BusyMerchantBehindProxy): number {
  const db = new Database(accountStoreFile(s.dataDir, s.merchant.merchantId), { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM ledger').pluck().get() as number;
  } finally {
    db.close();
  }
}

const serverLedger = (s: BusyMerchantBehindProxy) =>
  s.sb.core.db
    .prepare('SELECT count(*) FROM ledger WHERE merchant_id = ?')
    .pluck()
    .get(s.merchant.merchantId) as number;

const ledgerLoaded = (s: BusyMerchantBehindProxy) =>
  waitFor(() => cachedLedger(s) >= serverLedger(s), 60_000, 'the ledger loaded');

const filled = (app: EngineHarness) =>
  waitFor(
    async () => typeof (await app.session().store.getMeta('trades_history_mark')) === 'string',
    60_000,
    'the fill done',
  );

/** Every trade of the server in the cache, once each. */
function expectEveryTradeOnce(s: BusyMerchantBehindProxy): void {
  const cached = cacheOf(s).tradeIds;
  const server = serverTrades(s.sb, s.merchant.merchantId);
  expect(cached.length).toBe(server.length);
  expect(new Set(cached)).toEqual(new Set(server));
}

describe("a new cache's first fill: the 14-day window streamed, then only what is older", () => {
  it('asks isActive=true once, pages only what is older than its oldest trade, and stores every trade once', async () => {
    const s = await stack();
    const app = await s.launch();
    await filled(app);

    expect(windowRequests(s.proxy)).toBe(1);
    // The older pages all start at the window's oldest trade (inclusive: that millisecond is the only overlap).
    const pages = fillRequests(s.proxy);
    const to = pages[0]?.get('to') as string;
    expect(pages.map((p) => [p.get('to'), p.get('page')])).toEqual(pages.map((_, i) => [to, String(i + 1)]));
    const older = s.sb.core.db
      .prepare('SELECT count(*) FROM trades WHERE merchant_id = ? AND created_at <= ?')
      .pluck()
      .get(s.merchant.merchantId, Date.parse(to)) as number;
    expect(older).toBeGreaterThan(500);
    expect(pages).toHaveLength(Math.ceil(older / 500));
    const windowTrades = serverTrades(s.sb, s.merchant.merchantId).length - older + 1;
    expect(windowTrades).toBeGreaterThan(4000);
    // The window's oldest trade: none of the server's is older than it and newer than 14 days before the fill.
    expect(Date.parse(to)).toBeGreaterThan(Date.now() - 14 * 24 * 3600_000 - 60 * 60_000);

    const progress = app.batches
      .flatMap((b) => b.progress ?? [])
      .filter((p: ProgressStatus) => p.kind === 'history-backfill');
    expect(progress.some((p) => p.phase.endsWith('trades of the last 14 days') && p.done >= 2000)).toBe(true);
    const notifications = () => app.batches.flatMap((batch) => batch.notifications ?? []);
    await waitFor(() => notifications().some((n) => n.id.startsWith('trades-loaded:')), 10_000, 'the history loaded');
    expect(notifications().filter((n) => n.id.startsWith('trades-loaded:'))).toHaveLength(1);
    expect(notifications().filter((n) => n.target?.type === 'trade')).toEqual([]);
    await app.close();
    expectEveryTradeOnce(s);
  }, 120_000);

  it("holds the ledger's first pages until the window is stored (both would share the one writer), then loads it whole", async () => {
    const s = await stack();
    // A window of seconds: long enough that a ledger page sent with the start-up would arrive while it streams.
    s.proxy.inject((_method, path) => isWindowRequest(path), { kind: 'throttle', bytesPerSecond: 150_000 });
    let cachedAtFirstLedgerPage: number | null = null;
    s.proxy.inject(
      (_method, path) => {
        if (path.startsWith('/Wallet/BalanceHistory') && cachedAtFirstLedgerPage === null)
          cachedAtFirstLedgerPage = cacheOf(s).tradeIds.length;
        return false;
      },
      { kind: 'mute' },
    );
    const app = await s.launch();
    await filled(app);
    await ledgerLoaded(s);
    await app.close();
    // Every trade of the window (from its oldest, the older pages' `to`) was stored before the ledger's first page.
    const to = Date.parse(fillRequests(s.proxy)[0]?.get('to') as string);
    const windowTrades = s.sb.core.db
      .prepare('SELECT count(*) FROM trades WHERE merchant_id = ? AND created_at >= ?')
      .pluck()
      .get(s.merchant.merchantId, to) as number;
    expect(windowTrades).toBeGreaterThan(4000);
    expect(cachedAtFirstLedgerPage).toBeGreaterThanOrEqual(windowTrades);
    expect(cachedLedger(s)).toBe(serverLedger(s));
  }, 120_000);

  it('a window that fails holds back no ledger page', async () => {
    const s = await stack();
    s.proxy.inject((_method, path) => isWindowRequest(path), { kind: 'drop' });
    const app = await s.launch();
    await ledgerLoaded(s);
    await app.close();
    expect(windowRequests(s.proxy)).toBeGreaterThan(0);
    expect(cacheOf(s).meta('trades_history_mark')).toBeNull();
    expect(cachedLedger(s)).toBe(serverLedger(s));
  }, 120_000);

  it('stopped mid-stream: keeps only whole checked chunks and no position; the next start streams the window again', async () => {
    const s = await stack();
    const slow = s.proxy.inject((_method, path) => isWindowRequest(path), { kind: 'throttle', bytesPerSecond: 40_000 });
    const noReconcile = s.proxy.inject((_method, path) => isReconcile(path), { kind: 'mute' });
    const first = await s.launch();
    await waitFor(
      () =>
        first
          .session()
          .progressList()
          .some((p) => p.kind === 'history-backfill' && p.done >= 2000),
      60_000,
      'a chunk stored',
    );
    await first.close();
    slow();
    noReconcile();
    const left = cacheOf(s);
    expect(left.meta('trades_history_mark')).toBeNull();
    expect(left.meta('trades_history_fill')).toBeNull();
    expect(left.tradeIds.length % 2000).toBe(0);
    expect(left.tradeIds.length).toBeGreaterThanOrEqual(2000);
    expect(left.tradeIds.length).toBeLessThan(serverTrades(s.sb, s.merchant.merchantId).length);
    expect(fillRequests(s.proxy)).toEqual([]);

    const second = await s.launch();
    await filled(second);
    expect(windowRequests(s.proxy)).toBe(2);
    await second.close();
    expectEveryTradeOnce(s);
  }, 120_000);

  it('a trade not in the API shape fails the window with a clear error; the chunks before it stay, the next run completes', async () => {
    const s = await stack();
    // The 3,000th newest trade (the window comes newest first): its status is not one the API has.
    const bad = s.sb.core.db
      .prepare(
        'SELECT trade_id, wire FROM trades WHERE merchant_id = ? ORDER BY created_at DESC, seq DESC LIMIT 1 OFFSET 2999',
      )
      .get(s.merchant.merchantId) as { trade_id: string; wire: string };
    expect(bad.wire).toContain('"status":"');
    const setWire = s.sb.core.db.prepare('UPDATE trades SET wire = ? WHERE trade_id = ?');
    setWire.run(bad.wire.replace('"status":"', '"status":"BOGUS_'), bad.trade_id);

    const noReconcile = s.proxy.inject((_method, path) => isReconcile(path), { kind: 'mute' });
    const first = await s.launch();
    await waitFor(() => first.logs.some((line) => line.startsWith('history back-fill')), 60_000, 'the failure logged');
    const line = first.logs.find((l) => l.startsWith('history back-fill')) as string;
    expect(line).toContain(`trade ${bad.trade_id}: status:`);
    expect(line).toContain('the trade window could not be read');
    await first.close();
    const left = cacheOf(s);
    expect(left.tradeIds).toHaveLength(2000);
    expect(left.tradeIds).not.toContain(bad.trade_id);
    expect(left.meta('trades_history_mark')).toBeNull();
    expect(left.meta('trades_history_fill')).toBeNull();
    expect(fillRequests(s.proxy)).toEqual([]);

    noReconcile();
    setWire.run(bad.wire, bad.trade_id);
    const second = await s.launch();
    await filled(second);
    await second.close();
    expectEveryTradeOnce(s);
  }, 120_000);
});
