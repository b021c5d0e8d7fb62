import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { BalanceHistoryPage, BalanceTransaction, Trade, TradeHistoryPage } from '../../src/shared/api';
import type { Sandbox, SandboxOptions } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, merchantApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

const DAY_MS = 24 * 3600 * 1000;
const opened: Sandbox[] = [];
const dir = mkdtempSync(join(tmpdir(), 'history-seed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function open(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({ items: 2000, seed: 5, ...options });
  opened.push(sb);
  return sb;
}

afterEach(async () => {
  for (const sb of opened.splice(0)) await sb.close();
});

async function allTrades(api: ReturnType<typeof merchantApi>): Promise<Trade[]> {
  const trades: Trade[] = [];
  for (let page = 1; ; page++) {
    const answer = await api.get<TradeHistoryPage>(`/Trades/History?limit=500&page=${page}`);
    expect(answer.status).toBe(200);
    trades.push(...answer.body.trades);
    if (answer.body.trades.length < 500) return trades;
  }
}

async function allTransactions(api: ReturnType<typeof merchantApi>): Promise<BalanceTransaction[]> {
  const rows: BalanceTransaction[] = [];
  for (let page = 1; ; page++) {
    const answer = await api.get<BalanceHistoryPage>(`/Wallet/BalanceHistory?limit=500&page=${page}`);
    expect(answer.status).toBe(200);
    rows.push(...answer.body.transactions);
    if (answer.body.transactions.length < 500) return rows;
  }
}

/** What a merchant holds in the database: nothing of a seed may remain after a refusal or a stop. */
function footprint(sb: Sandbox, merchantId: string) {
  const count = (sql: string) => (sb.core.db.prepare(sql).get(merchantId) as { n: number }).n;
  return {
    trades: count('SELECT count(*) AS n FROM trades WHERE merchant_id = ?'),
    ledger: count('SELECT count(*) AS n FROM ledger WHERE merchant_id = ?'),
    deliveries: count('SELECT count(*) AS n FROM webhook_deliveries WHERE merchant_id = ?'),
    balance: count('SELECT balance AS n FROM merchants WHERE merchant_id = ?'),
    markers: (
      sb.core.db.prepare("SELECT count(*) AS n FROM meta WHERE key LIKE 'history_seed:%'").get() as { n: number }
    ).n,
    items: (sb.core.db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n,
    strikes: (sb.core.db.prepare('SELECT count(*) AS n FROM partner_strikes').get() as { n: number }).n,
  };
}

describe('seeding a merchant history (POST /admin/merchants/:id/history)', () => {
  it('writes days × trades a day with the outcome mix, a chained ledger and webhook failures, served by the public API', async () => {
    const sb = await open();
    const admin = adminApi(sb);
    const merchant = await admin.createMerchant({ balance: 100_000 });
    const api = merchantApi(sb, merchant);

    const seeded = await admin.post<Record<string, unknown>>(`/admin/merchants/${merchant.merchantId}/history`, {
      days: 16,
      tradesPerDay: 70,
      recipients: 12,
      seed: 7,
    });
    expect(seeded.status).toBe(201);
    expect(seeded.body).toMatchObject({ merchantId: merchant.merchantId, trades: 16 * 70 });

    // Every trade, paged through the public API, exactly once.
    const trades = await allTrades(api);
    expect(trades).toHaveLength(16 * 70);
    expect(new Set(trades.map((t) => t.tradeId)).size).toBe(16 * 70);
    const total = await api.get<TradeHistoryPage>('/Trades/History?limit=1');
    expect(total.body.total).toBe(16 * 70);

    // isActive: the last 14 days only, unpaged.
    const now = Date.parse((await admin.get<{ now: string }>('/admin/clock')).body.now);
    const active = await api.get<TradeHistoryPage>('/Trades/History?isActive=true');
    const recent = trades.filter((t) => Date.parse(t.createdAt) >= now - 14 * DAY_MS);
    expect(recent.length).toBeGreaterThan(13 * 70);
    expect(recent.length).toBeLessThan(16 * 70);
    expect(active.body.trades.map((t) => t.tradeId).sort()).toEqual(recent.map((t) => t.tradeId).sort());

    // The outcome mix: mostly completed, and each other outcome of the table present.
    const byStatus = new Map<string, Trade[]>();
    for (const trade of trades) byStatus.set(trade.status, [...(byStatus.get(trade.status) ?? []), trade]);
    expect((byStatus.get('COMPLETED')?.length ?? 0) / trades.length).toBeGreaterThan(0.6);
    for (const status of ['CANCELLED', 'EXPIRED', 'FAILED', 'REVERSED'])
      expect(byStatus.get(status)?.length).toBeGreaterThan(0);
    const cancelCodes = new Set((byStatus.get('CANCELLED') ?? []).map((t) => t.errorCode));
    expect([...cancelCodes].sort()).toEqual([504, 505, 506]);

    // Reversals: days after completion, inside protection, refunded by a TRADE ROLLBACK.
    const ledger = await allTransactions(api);
    for (const trade of byStatus.get('REVERSED') ?? []) {
      expect(trade.errorCode).toBe(512);
      expect(trade.stage).toBe(2);
      const completedAt = Date.parse(trade.completedAt as string);
      const rollbackAt = Date.parse(trade.rollbackAt as string);
      expect(rollbackAt - completedAt).toBeGreaterThanOrEqual(DAY_MS);
      expect(rollbackAt).toBeLessThan(Date.parse(trade.endProtection as string));
      const rollback = ledger.filter((row) => row.tradeId === trade.tradeId && row.type === 'TRADE ROLLBACK');
      expect(rollback).toEqual([expect.objectContaining({ amount: trade.price, createdAt: trade.rollbackAt })]);
    }

    // The ledger chains in time order, from the starting balance to today's balance.
    const ordered = [...ledger].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
    expect(ordered.map((row) => row.id)).toEqual([...ordered.map((row) => row.id)].sort((a, b) => a - b));
    for (let i = 1; i < ordered.length; i++) {
      expect(ordered[i]?.balanceBefore).toBe(ordered[i - 1]?.balanceAfter);
    }
    for (const row of ordered) expect(row.balanceAfter).toBe(row.balanceBefore + row.amount);
    const balance = await api.get<{ balance: number }>('/Wallet/GetBalance');
    const sum = ordered.reduce((s, row) => s + row.amount, 0);
    expect(ordered[0]).toMatchObject({ type: 'ADMIN TOP UP', amount: 100_000, balanceBefore: 0 });
    expect(sum).toBe(balance.body.balance);
    expect(ordered.at(-1)?.balanceAfter).toBe(balance.body.balance);
    expect(Math.min(...ordered.map((row) => row.balanceAfter))).toBeGreaterThanOrEqual(0);
    // One FREEZE per trade; every ended trade but a completed one refunded once.
    expect(ordered.filter((row) => row.type === 'FREEZE')).toHaveLength(trades.length);
    const refunded = trades.filter((t) => ['CANCELLED', 'EXPIRED', 'FAILED', 'REJECTED'].includes(t.status));
    expect(ordered.filter((row) => row.type === 'BUY CANCELLED')).toHaveLength(refunded.length);

    // Webhooks: one delivery per status of each trade; some failed during an outage, and History finds them.
    const duplicates = sb.core.db
      .prepare(
        `SELECT trade_id FROM webhook_deliveries WHERE merchant_id = ?
         GROUP BY trade_id, json_extract(body, '$.status') HAVING count(*) > 1`,
      )
      .all(merchant.merchantId);
    expect(duplicates).toEqual([]);
    const failed = await api.get<TradeHistoryPage>('/Trades/History?webhookStatus=failed&limit=500');
    expect(failed.body.total).toBeGreaterThan(0);
    expect(failed.body.total).toBe(trades.filter((t) => t.webhookStatus === 'failed').length);
    expect(trades.every((t) => t.webhookStatus === 'sent' || t.webhookStatus === 'failed')).toBe(true);

    // Partner strikes: one per decline or expiry.
    const strikes = sb.core.db
      .prepare(
        'SELECT count(*) AS n FROM partner_strikes WHERE trade_id IN (SELECT trade_id FROM trades WHERE merchant_id = ?)',
      )
      .get(merchant.merchantId) as { n: number };
    const struck = trades.filter((t) => t.errorCode === 504 || t.errorCode === 503);
    expect(strikes.n).toBe(struck.length);
  });

  it('trades still in flight at the end go on living: the simulator and expiry timers finish them, the ledger still chains', async () => {
    const sb = await open({ simulate: true, eventsPerSecond: 0 });
    const admin = adminApi(sb);
    const merchant = await admin.createMerchant({ balance: 100_000 });
    const seeded = await admin.post<{ statuses: Partial<Record<Trade['status'], number>> }>(
      `/admin/merchants/${merchant.merchantId}/history`,
      { days: 1, tradesPerDay: 4000, recipients: 200, seed: 3 },
    );
    expect(seeded.status).toBe(201);
    // In flight at the history's end, as written. Not counted in the table now: the sandbox's clock runs in real
    // time, and on a slow machine the timers may have finished them all before this line.
    expect((seeded.body.statuses.PENDING ?? 0) + (seeded.body.statuses.SENT ?? 0)).toBeGreaterThan(0);
    const active = () =>
      (
        sb.core.db
          .prepare("SELECT count(*) AS n FROM trades WHERE merchant_id = ? AND status IN ('PENDING', 'SENT')")
          .get(merchant.merchantId) as { n: number }
      ).n;
    await admin.advance(31 * 60);
    expect(active()).toBe(0);

    const ledger = await allTransactions(merchantApi(sb, merchant));
    const ordered = [...ledger].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id - b.id);
    for (let i = 1; i < ordered.length; i++) expect(ordered[i]?.balanceBefore).toBe(ordered[i - 1]?.balanceAfter);
    const balance = await merchantApi(sb, merchant).get<{ balance: number }>('/Wallet/GetBalance');
    expect(ordered.at(-1)?.balanceAfter).toBe(balance.body.balance);
  });

  it('refuses bad parameters, an unknown merchant and a merchant with trades, writing nothing', async () => {
    const sb = await open();
    const admin = adminApi(sb);
    const merchant = await admin.createMerchant({ balance: 5_000_000 });
    const path = `/admin/merchants/${merchant.merchantId}/history`;
    const before = footprint(sb, merchant.merchantId);
    const future = new Date(Date.now() + DAY_MS).toISOString();
    const refusals: [Record<string, unknown>, number, RegExp][] = [
      [{ days: -1, tradesPerDay: 10, recipients: 5 }, 400, /days/],
      [{ days: 0, tradesPerDay: 10, recipients: 5 }, 400, /days/],
      [{ days: 2, tradesPerDay: 0, recipients: 5 }, 400, /tradesPerDay/],
      [{ days: 2, tradesPerDay: 10, recipients: 0 }, 400, /recipients/],
      [{ days: 2.5, tradesPerDay: 10, recipients: 5 }, 400, /days/],
      [{ days: 401, tradesPerDay: 10, recipients: 5 }, 400, /days/],
      [{ days: 2, tradesPerDay: 432_001, recipients: 100_000 }, 400, /tradesPerDay/],
      [{ days: 400, tradesPerDay: 20_000, recipients: 5000 }, 400, /at most 4000000 trades/],
      [{ days: 2, tradesPerDay: 1000, recipients: 10 }, 400, /at least 42 recipients/],
      [{ days: 2, tradesPerDay: 30_000, recipients: 5000 }, 400, /holding accounts/],
      [{ days: 2, tradesPerDay: 10, recipients: 5, endAt: future }, 400, /future/],
      [{ days: 2, tradesPerDay: 10, recipients: 5, rate: 3 }, 400, /rate/],
      [{ days: 2, tradesPerDay: 10 }, 400, /recipients/],
    ];
    for (const [body, status, message] of refusals) {
      const answer = await admin.post<{ error: string; message: string }>(path, body);
      expect({ body, status: answer.status }).toEqual({ body, status });
      expect(answer.body.error).toBe('invalid_request');
      expect(answer.body.message).toMatch(message);
    }
    const unknown = await admin.post<{ error: string }>('/admin/merchants/nobody/history', {
      days: 1,
      tradesPerDay: 10,
      recipients: 5,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('not_found');
    expect(footprint(sb, merchant.merchantId)).toEqual(before);

    // A merchant that already traded: no appending.
    const item = sb.core.db
      .prepare('SELECT item_id AS itemId, asset_id AS assetId, price FROM items WHERE on_sale = 1 LIMIT 1')
      .get() as {
      itemId: number;
      assetId: string;
      price: number;
    };
    const bought = await merchantApi(sb, merchant).post('/Items/Buy', { ...item, tradeUrl: TEST_TRADE_URL });
    expect(bought.status).toBe(200);
    const traded = footprint(sb, merchant.merchantId);
    const again = await admin.post<{ message: string }>(path, { days: 1, tradesPerDay: 10, recipients: 5 });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already has trades/);
    expect(footprint(sb, merchant.merchantId)).toEqual(traded);
  });

  it('a request stopped mid-way leaves no half-written merchant, and the merchant can be seeded afterwards', async () => {
    const sb = await open();
    const admin = adminApi(sb);
    const merchant: MerchantCredentials = await admin.createMerchant({ balance: 100_000 });
    const before = footprint(sb, merchant.merchantId);
    const stop = new AbortController();
    const request = fetch(`${sb.baseUrl}/admin/merchants/${merchant.merchantId}/history`, {
      method: 'POST',
      headers: { 'x-admin-token': sb.adminToken, 'content-type': 'application/json' },
      body: JSON.stringify({ days: 100, tradesPerDay: 2000, recipients: 1000 }),
      signal: stop.signal,
    }).catch((error: unknown) => error);
    // Some chunks are written; meanwhile the merchant's API is closed.
    await waitFor(() => footprint(sb, merchant.merchantId).trades >= 5000, 60_000);
    const meanwhile = await merchantApi(sb, merchant).get<{ error: string }>('/Wallet/GetBalance');
    expect(meanwhile.status).toBe(503);
    stop.abort();
    expect(await request).toBeInstanceOf(Error);
    await waitFor(() => !sb.core.seedingHistory.has(merchant.merchantId), 60_000);
    expect(footprint(sb, merchant.merchantId)).toEqual(before);

    const seeded = await admin.post<{ trades: number }>(`/admin/merchants/${merchant.merchantId}/history`, {
      days: 1,
      tradesPerDay: 50,
      recipients: 5,
    });
    expect(seeded.status).toBe(201);
    expect(footprint(sb, merchant.merchantId).trades).toBe(50);
  });
});

describe('a busy merchant at start (startSandbox busyMerchant, sandbox --busy)', () => {
  it('seeds the demo merchant once; a restart keeps its history', async () => {
    const dbFile = join(dir, 'busy.db');
    const first = await open({
      dbFile,
      demoMerchant: true,
      busyMerchant: { days: 2, tradesPerDay: 150, recipients: 20 },
    });
    expect(first.busy).toMatchObject({ merchantId: 'demo', seeded: { trades: 300 } });
    const api = merchantApi(first, first.demo as MerchantCredentials);
    const page = await api.get<TradeHistoryPage>('/Trades/History?isActive=true');
    expect(page.body.trades).toHaveLength(300);
    await first.close();

    const second = await open({
      dbFile,
      demoMerchant: true,
      busyMerchant: { days: 2, tradesPerDay: 150, recipients: 20 },
    });
    expect(second.busy).toMatchObject({ merchantId: 'demo', seeded: null });
    expect(footprint(second, 'demo').trades).toBe(300);
  });

  it('gives the busy merchant a webhook URL after its history: the history keeps the endpoint it had then', async () => {
    const webhookUrl = 'https://merchant.example/webhooks';
    const sb = await open({ busyMerchant: { days: 1, tradesPerDay: 100, recipients: 10, webhookUrl } });
    const merchantId = (sb.busy as NonNullable<typeof sb.busy>).merchantId;
    expect(sb.core.merchants.get(merchantId).webhookUrl).toBe(webhookUrl);
    const urls = sb.core.db
      .prepare('SELECT DISTINCT url FROM webhook_deliveries WHERE merchant_id = ?')
      .pluck()
      .all(merchantId);
    expect(urls).toEqual(['https://merchant.invalid/webhooks']);
  });

  it('a sandbox killed while seeding leaves no half-written merchant at its next start', async () => {
    const dbFile = join(dir, 'killed.db');
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/server/cli.ts',
        '--port',
        '0',
        '--db',
        dbFile,
        '--items',
        '2000',
        '--busy-days',
        '100',
        '--busy-per-day',
        '2000',
        '--busy-recipients',
        '1000',
      ],
      { cwd: process.cwd() },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await waitFor(() => /seeding history: 5000\/200000/.test(stderr), 60_000);
    child.kill('SIGKILL');
    await exited;

    const sb = await open({ dbFile, demoMerchant: true });
    const after = footprint(sb, 'demo');
    expect(after).toMatchObject({ trades: 0, deliveries: 0, markers: 0, strikes: 0, ledger: 1 });
    expect(sb.core.db.prepare('SELECT count(*) AS n FROM items WHERE on_sale = 0').get()).toEqual({ n: 0 });
  });
});
