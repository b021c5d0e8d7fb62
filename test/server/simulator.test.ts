import { afterEach, describe, expect, it } from 'vitest';
import type { BuyResult, Trade, TradeHistoryPage, TradeStatus } from '../../src/shared/api';
import { TRADE_TRANSITIONS } from '../../src/server/domain/lifecycle';
import type { Sandbox, SandboxOptions } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { SimulatorOptions } from '../../src/server/simulator/simulator';
import { MarketSimulator } from '../../src/server/simulator/simulator';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi, tradeUrlFor } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

const DAY = 24 * 3600;
const TRADE_DURATION = 600;
const ACTIVE: readonly TradeStatus[] = ['PENDING', 'SENT'];

const opened: Sandbox[] = [];
const extraSimulators: MarketSimulator[] = [];

async function open(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({ items: 500, seed: 11, simulate: true, eventsPerSecond: 0, ...options });
  opened.push(sb);
  return sb;
}

afterEach(async () => {
  for (const simulator of extraSimulators.splice(0)) simulator.stop();
  for (const sb of opened.splice(0)) await sb.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Buyer {
  merchant: MerchantCredentials;
  api: ReturnType<typeof merchantApi>;
  nextPartner: number;
}

async function buyerFor(sb: Sandbox): Promise<Buyer> {
  const merchant = await adminApi(sb).createMerchant({ balance: 10_000_000 });
  return { merchant, api: merchantApi(sb, merchant), nextPartner: 20_000_000 };
}

/**
 * Buys up to `count` cheap on-sale items over HTTP, at most 4 active offers per
 * holding account (the limit is 5) and a fresh trade URL owner per trade (partner limits).
 */
async function buyMany(sb: Sandbox, buyer: Buyer, count: number): Promise<string[]> {
  const active = new Map<string, number>();
  const busy = sb.core.db
    .prepare(
      "SELECT holder, count(*) AS n FROM trades WHERE status IN ('PENDING', 'SENT') AND holder IS NOT NULL GROUP BY holder",
    )
    .all() as { holder: string; n: number }[];
  for (const row of busy) active.set(row.holder, row.n);
  const candidates = sb.core.db
    .prepare(
      'SELECT item_id AS itemId, asset_id AS assetId, price, steam_id AS holder FROM items WHERE on_sale = 1 AND price <= 20000 ORDER BY item_id',
    )
    .all() as { itemId: number; assetId: string; price: number; holder: string | null }[];
  const tradeIds: string[] = [];
  for (const item of candidates) {
    if (tradeIds.length >= count) break;
    if (item.holder !== null && (active.get(item.holder) ?? 0) >= 4) continue;
    const answer = await buyer.api.post<BuyResult>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(buyer.nextPartner++),
      tradeDurationSeconds: TRADE_DURATION,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    tradeIds.push(answer.body.tradeId);
    if (item.holder !== null) active.set(item.holder, (active.get(item.holder) ?? 0) + 1);
  }
  return tradeIds;
}

function statusOf(sb: Sandbox, tradeId: string): TradeStatus {
  return (sb.core.trades.find(tradeId) as { status: TradeStatus }).status;
}

/** The row of the outcome table (via the transition table) that a final trade matches, or a reason why not. */
function outcomeProblem(trade: {
  status: TradeStatus;
  errorCode: number | null;
  failReason: string | null;
}): string | null {
  const rules = TRADE_TRANSITIONS.filter((rule) => rule.to === trade.status);
  if (rules.length === 0) return `no rule leads to ${trade.status}`;
  const ok = rules.some((rule) =>
    rule.outcomes.some(
      (o) =>
        o.errorCode === trade.errorCode &&
        (o.failReason === trade.failReason ||
          (rule.freeReason === true && typeof trade.failReason === 'string' && trade.failReason.length > 0)),
    ),
  );
  return ok ? null : `${trade.status} ${trade.errorCode} ${JSON.stringify(trade.failReason)} matches no outcome row`;
}

type Outcome = [status: TradeStatus, errorCode: number | null, failReason: string | null];

/** Three rounds of ~70 buys, each driven to the end by the admin clock, then 6 days for reversals. */
async function runScenario(): Promise<Outcome[]> {
  const sb = await open();
  const admin = adminApi(sb);
  const buyer = await buyerFor(sb);
  const tradeIds: string[] = [];
  for (let round = 0; round < 3; round++) {
    const ids = await buyMany(sb, buyer, 70);
    expect(ids.length).toBeGreaterThanOrEqual(60);
    tradeIds.push(...ids);
    await admin.advance(6);
    expect(ids.filter((id) => statusOf(sb, id) === 'PENDING')).toEqual([]);
    await admin.advance(90);
    await admin.advance(TRADE_DURATION);
    expect(ids.filter((id) => ACTIVE.includes(statusOf(sb, id)))).toEqual([]);
  }
  await admin.advance(6 * DAY + 1);
  const outcomes = tradeIds.map((id) => {
    const row = sb.core.trades.find(id) as {
      status: TradeStatus;
      error_code: number | null;
      fail_reason: string | null;
    };
    return [row.status, row.error_code, row.fail_reason] as Outcome;
  });
  await sb.close();
  return outcomes;
}

describe('market simulator: trades', () => {
  it('moves a bought trade PENDING → SENT within 6 s and to a final status within 90 s + tradeDuration', async () => {
    const sb = await open();
    const admin = adminApi(sb);
    const buyer = await buyerFor(sb);
    const [tradeId] = await buyMany(sb, buyer, 1);
    const read = async () =>
      (await buyer.api.get<TradeHistoryPage>(`/Trades/History?tradeId=${tradeId as string}`)).body.trades[0] as Trade;

    expect((await read()).status).toBe('PENDING');
    await admin.advance(1.9);
    expect((await read()).status).toBe('PENDING');
    await admin.advance(4.1);
    const sent = await read();
    expect(sent.status).toBe('SENT');
    expect(sent.offerId).toMatch(/^\d+$/);
    await admin.advance(90);
    await admin.advance(TRADE_DURATION - 90);
    const final = await read();
    expect(ACTIVE).not.toContain(final.status);
    expect(outcomeProblem(final)).toBeNull();
  });

  it('gives the configured outcome mix, only outcome-table rows, and the same sequence for the same seed', async () => {
    const first = await runScenario();
    const second = await runScenario();
    expect(second).toEqual(first);

    const n = first.length;
    expect(n).toBeGreaterThanOrEqual(180);
    for (const [status, errorCode, failReason] of first) {
      expect(ACTIVE).not.toContain(status);
      expect(outcomeProblem({ status, errorCode, failReason })).toBeNull();
    }
    const share = (match: (o: Outcome) => boolean) => first.filter(match).length / n;
    // COMPLETED includes those reversed later (2 % of completions).
    const completed = share(([s]) => s === 'COMPLETED' || s === 'REVERSED');
    expect(completed).toBeGreaterThan(0.7);
    expect(completed).toBeLessThan(0.9);
    const declined = share(([s, code]) => s === 'CANCELLED' && code === 504);
    expect(declined).toBeGreaterThan(0.01);
    expect(declined).toBeLessThan(0.12);
    const otherCancels = share(([s, code]) => s === 'CANCELLED' && code !== 504);
    expect(otherCancels).toBeGreaterThan(0.01);
    expect(otherCancels).toBeLessThan(0.12);
    const expired = share(([s]) => s === 'EXPIRED');
    expect(expired).toBeGreaterThan(0.01);
    expect(expired).toBeLessThan(0.12);
    expect(share(([s]) => s === 'FAILED' || s === 'REJECTED')).toBeLessThan(0.08);
    expect(share(([s]) => s === 'REVERSED')).toBeLessThan(0.06);
    // Raw platform messages on FAILED trades.
    for (const [status, , failReason] of first.filter(([s]) => s === 'FAILED')) {
      expect(status).toBe('FAILED');
      expect(failReason).toMatch(/\S/);
    }
  }, 40_000);

  it('reverses completed trades inside the protection period and leaves trades an admin moved alone', async () => {
    const sb = await open({ simulate: false });
    const simulator = new MarketSimulator(sb.core, {
      seed: 3,
      eventsPerSecond: 0,
      imageBaseUrl: `${sb.baseUrl}/img`,
      sendFailProbability: 0,
      sendRejectProbability: 0,
      outcomes: { completed: 1, declined: 0, countered: 0, itemsInvalid: 0, failed: 0, expired: 0 },
      reversalProbability: 1,
    } satisfies SimulatorOptions);
    extraSimulators.push(simulator);
    simulator.start();
    const admin = adminApi(sb);
    const buyer = await buyerFor(sb);
    const [kept, raced] = (await buyMany(sb, buyer, 2)) as [string, string];

    await admin.advance(6);
    expect([statusOf(sb, kept), statusOf(sb, raced)]).toEqual(['SENT', 'SENT']);
    // The administrator moves one trade first; the simulator's planned COMPLETED must not apply.
    await admin.transition(raced, { status: 'CANCELLED', errorCode: 504 });
    await admin.advance(90);
    expect(statusOf(sb, kept)).toBe('COMPLETED');
    expect(statusOf(sb, raced)).toBe('CANCELLED');

    const completedAt = sb.core.clock.now();
    await admin.advance(DAY - 60);
    expect(statusOf(sb, kept)).toBe('COMPLETED');
    await admin.advance(5 * DAY + 60);
    const row = sb.core.trades.find(kept) as {
      status: string;
      error_code: number;
      fail_reason: string;
      rollback_at: number;
    };
    expect(row.status).toBe('REVERSED');
    expect(row.error_code).toBe(512);
    expect(['Seller reversed trade on Steam', 'Buyer reversed trade on Steam']).toContain(row.fail_reason);
    expect(row.rollback_at - completedAt).toBeGreaterThanOrEqual(DAY * 1000 - 100_000);
    expect(row.rollback_at - completedAt).toBeLessThanOrEqual(6 * DAY * 1000);
    expect(statusOf(sb, raced)).toBe('CANCELLED');
    expect(simulator.trades.scheduledCount).toBe(0);
  });

  it('sells the item of a sent offer elsewhere: CANCELLED 505, refunded, never back on sale', async () => {
    const sb = await open({ simulate: false });
    const simulator = new MarketSimulator(sb.core, {
      seed: 5,
      eventsPerSecond: 0,
      imageBaseUrl: `${sb.baseUrl}/img`,
      sendFailProbability: 0,
      sendRejectProbability: 0,
      outcomes: { completed: 0, declined: 0, countered: 0, itemsInvalid: 1, failed: 0, expired: 0 },
    } satisfies SimulatorOptions);
    extraSimulators.push(simulator);
    simulator.start();
    const admin = adminApi(sb);
    const buyer = await buyerFor(sb);
    const tradeIds = await buyMany(sb, buyer, 3);
    const before = (await buyer.api.get<{ balance: number }>('/Wallet/GetBalance')).body.balance;
    await admin.advance(6);
    await admin.advance(90);
    for (const tradeId of tradeIds) {
      const trade = (await buyer.api.get<TradeHistoryPage>(`/Trades/History?tradeId=${tradeId}`)).body
        .trades[0] as Trade;
      expect(trade).toMatchObject({ status: 'CANCELLED', errorCode: 505, failReason: 'Items no longer valid' });
      expect(trade.offerId).toMatch(/^\d+$/);
      const search = await buyer.api.post<{ totalItems: number }>('/Items/SearchItems', { itemId: [trade.itemId] });
      expect(search.body.totalItems).toBe(0);
      // The item is gone: an administrator has nothing left to delete.
      expect((await admin.delete(`/admin/items/${trade.itemId}`)).status).toBe(404);
    }
    const refunds = (
      await buyer.api.get<{ transactions: { type: string; amount: number }[] }>(
        '/Wallet/BalanceHistory?type=BUY%20CANCELLED',
      )
    ).body;
    expect(refunds.transactions).toHaveLength(3);
    const after = (await buyer.api.get<{ balance: number }>('/Wallet/GetBalance')).body.balance;
    expect(after - before).toBe(refunds.transactions.reduce((sum, t) => sum + t.amount, 0));
  });

  it('picks up trades that were PENDING or SENT before start() (persistent sandbox)', async () => {
    const sb = await open({ simulate: false });
    const admin = adminApi(sb);
    const buyer = await buyerFor(sb);
    const [waiting, sentEarlier] = (await buyMany(sb, buyer, 2)) as [string, string];
    await admin.transition(sentEarlier, { status: 'SENT' });
    await admin.advance(120);
    expect(statusOf(sb, waiting)).toBe('PENDING');

    const simulator = new MarketSimulator(sb.core, {
      seed: 11,
      eventsPerSecond: 0,
      imageBaseUrl: `${sb.baseUrl}/img`,
      sendFailProbability: 0,
      sendRejectProbability: 0,
    });
    extraSimulators.push(simulator);
    simulator.start();
    // Both moves were due in the past: they fire at once.
    await admin.advance(0.001);
    expect(statusOf(sb, waiting)).not.toBe('PENDING');
    expect(statusOf(sb, sentEarlier)).not.toBe('SENT');
  });
});

describe('market simulator: market events', () => {
  function countEvents(sb: Sandbox) {
    const counts = { repriced: 0, upserted: 0, removed: 0, calls: 0 };
    sb.core.events.on('pricesChanged', (changes) => {
      counts.repriced += changes.length;
      counts.calls++;
    });
    sb.core.events.on('itemsUpserted', (items) => {
      counts.upserted += items.length;
      counts.calls++;
    });
    sb.core.events.on('itemsRemoved', (itemIds) => {
      counts.removed += itemIds.length;
      counts.calls++;
    });
    return counts;
  }

  it('reprices, lists and removes items at eventsPerSecond of real time, keeps the catalog size, and stop() ends it', async () => {
    const sb = await open({ eventsPerSecond: 200 });
    const startSize = sb.core.catalog.totals().totalItems;
    const counts = countEvents(sb);
    const before = new Map(
      (
        sb.core.db.prepare('SELECT item_id, price FROM items WHERE on_sale = 1').all() as {
          item_id: number;
          price: number;
        }[]
      ).map((r) => [r.item_id, r.price]),
    );
    await sleep(2300);
    const total = counts.repriced + counts.upserted + counts.removed;
    // Two ticks of 200 (timers on a busy machine may slip by a tick either way).
    expect(total).toBeGreaterThanOrEqual(150);
    expect(total).toBeLessThanOrEqual(600);
    expect(counts.repriced).toBeGreaterThan(total * 0.55);
    expect(counts.upserted).toBeGreaterThan(0);
    expect(counts.removed).toBeGreaterThan(0);
    // One reprice, one upsert and one remove call per tick at most.
    expect(counts.calls).toBeLessThanOrEqual(3 * 3);
    const size = sb.core.catalog.totals().totalItems;
    expect(Math.abs(size - startSize)).toBeLessThanOrEqual(startSize * 0.05);

    // Reprices stay within ±8 % (one step; an item repriced twice may move twice) and whole cents ≥ 1.
    const after = sb.core.db.prepare('SELECT item_id, price FROM items WHERE on_sale = 1').all() as {
      item_id: number;
      price: number;
    }[];
    for (const { item_id, price } of after) {
      expect(Number.isInteger(price) && price >= 1).toBe(true);
      const old = before.get(item_id);
      if (old !== undefined && old >= 100) expect(Math.abs(price / old - 1)).toBeLessThanOrEqual(1.09 ** 2 - 1);
    }
    // New listings have fresh ids above the seeded ones, generated complete.
    const maxBefore = Math.max(...before.keys());
    const fresh = sb.core.db.prepare('SELECT json FROM items WHERE item_id > ?').all(maxBefore) as { json: string }[];
    expect(fresh.length).toBe(counts.upserted);
    for (const { json } of fresh)
      expect(JSON.parse(json)).toMatchObject({ market_hash_name: expect.any(String), price: expect.any(Number) });

    const simulator = sb.simulator as MarketSimulator;
    simulator.stop();
    simulator.stop();
    const frozen = { ...counts };
    // Five seconds of clock time fire every tick that could still be due (the budget has tokens for them).
    await sb.core.clock.advance(5);
    expect(counts).toEqual(frozen);
    expect(sb.core.clock.pending().filter((t) => t.label.startsWith('simulator'))).toEqual([]);
  });

  it('does not replay a day of market when the clock is advanced, and keeps running after', async () => {
    const sb = await open({ eventsPerSecond: 200 });
    const counts = countEvents(sb);
    const startedAt = Date.now();
    await sb.core.clock.advance(DAY);
    const realSeconds = (Date.now() - startedAt) / 1000;
    const total = counts.repriced + counts.upserted + counts.removed;
    // At most the two-second burst plus real time, nowhere near 200 × 86 400.
    expect(total).toBeLessThanOrEqual(200 * (2 + realSeconds) + 10);
    expect(realSeconds).toBeLessThan(5);
    // Thinned-out ticks during the advance; once it is over, 1 s ticks and events resume.
    expect(sb.core.clock.pending().filter((t) => t.label === 'simulator: market tick')).toHaveLength(1);
    const afterAdvance = total;
    await waitFor(() => counts.repriced + counts.upserted + counts.removed > afterAdvance, 5000);
  });

  it('has no timers or listeners with eventsPerSecond 0 after stop()', async () => {
    const sb = await open();
    const listeners = sb.core.events.listenerCount('tradeUpdated');
    (sb.simulator as MarketSimulator).stop();
    expect(sb.core.events.listenerCount('tradeUpdated')).toBe(listeners - 1);
    expect(sb.core.clock.pending().filter((t) => t.label.startsWith('simulator'))).toEqual([]);
  });
});
