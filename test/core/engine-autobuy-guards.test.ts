import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import type { AlertRuleInput } from '../../src/shared/ipc/contract';
import { FaultProxy } from '../support/faultProxy';
import { reach, settle, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi } from '../support/sandboxHttp';

/**
 * Auto-buy's guard rails against the real sandbox, with a counting proxy in front of it: every buy
 * request is counted on the wire, as the server would receive it. Where a test waits on the engine's own timers
 * (look-up retries, a rate window) it runs on a fake clock (the sandbox's, the proxy's and the engine's), fast-forwarded
 * through the wait.
 */
describe('auto-buy guard rails against the real sandbox', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness | null = null;

  const buysOnTheWire = () => proxy.count('/Items/Buy');
  const serverTrades = () =>
    (
      sb.core.db.prepare('SELECT count(*) AS n FROM trades WHERE merchant_id = ?').get(merchant.merchantId) as {
        n: number;
      }
    ).n;
  /** Cents the server's trades of auto-buy order ids (of one rule: auto-<rule>-<item>-<price>) hold: what was really spent. */
  const serverSpend = (ruleId?: string) =>
    sb.core.db
      .prepare('SELECT coalesce(sum(price), 0) FROM trades WHERE merchant_id = ? AND external_id LIKE ?')
      .pluck()
      .get(merchant.merchantId, ruleId === undefined ? 'auto-%' : `auto-${ruleId.slice(0, 12)}-%`) as number;

  async function launch(balance: number): Promise<EngineHarness> {
    sb = await startSandbox({ items: 50, seed: 7 });
    merchant = await adminApi(sb).createMerchant({ balance });
    proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    dataDir = mkdtempSync(join(tmpdir(), 'autobuy-guards-'));
    app = await startEngine(dataDir, { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, ...merchant });
    const started = app;
    await waitFor(() => started.session().connection.state === 'connected', 15_000, 'feed');
    await waitFor(async () => (await started.call('catalog.query', { limit: 1 })).total > 0, 20_000, 'catalog');
    await waitFor(() => started.session().balance !== null, 10_000, 'balance');
    return started;
  }

  afterEach(async () => {
    await app?.close();
    app = null;
    await proxy?.close();
    await sb?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    useRealClock();
  });

  const list = async (name: string, count: number, price: number, firstId: number): Promise<Item[]> => {
    const answer = await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
      items: Array.from({ length: count }, (_, i) => ({
        itemId: firstId + i,
        market_hash_name: `${name} ${i + 1} (Field-Tested)`,
        price,
        phase: null,
      })),
    });
    expect(answer.status).toBe(200);
    return answer.body.items;
  };

  const autoBuyRule = (recipientId: string, pattern: string, patch: Partial<AlertRuleInput> = {}): AlertRuleInput => ({
    name: pattern,
    namePattern: pattern,
    maxPrice: 1000,
    autoBuy: { enabled: true, recipientId, spendCap: 1_000_000, dailyCap: 1_000_000 },
    ...patch,
  });

  /** Waits until `count` matches of the rule were decided: sent (answered or not), dry run, or skipped (folded). */
  const decided = (harness: EngineHarness, ruleId: string, count: number) =>
    waitFor(
      async () => {
        const firings = (await harness.call('alerts.firings')).filter((f) => f.ruleId === ruleId);
        const skipped = (await harness.call('alerts.skips'))
          .filter((line) => line.ruleId === ruleId)
          .reduce((sum, line) => sum + line.count, 0);
        return firings.length + skipped >= count ? { firings, skipped } : null;
      },
      30_000,
      `${count} matches decided`,
    );

  it('refuses an auto-buy rule without a maximum price, and a stored one without it never buys', async () => {
    const harness = await launch(1_000_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    await expect(
      harness.call('alerts.saveRule', autoBuyRule(recipient.id, 'Karambit', { maxPrice: null })),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('Auto-buy needs a maximum price per item') as unknown as string,
    });
    expect(await harness.call('alerts.rules')).toEqual([]);
    // An alert without auto-buy needs none.
    await harness.call('alerts.saveRule', { name: 'watch', namePattern: 'Karambit' });

    // A rule stored without one (an older app wrote it) is held back by the guard at each match.
    const legacy = await harness
      .session()
      .store.saveAlertRule(autoBuyRule(recipient.id, 'Old Karambit', { maxPrice: null }));
    await harness.call('alerts.rearm', { id: legacy.id });
    await list('Old Karambit', 5, 64_100, 95_000_001);
    const seen = await decided(harness, legacy.id, 5);
    expect(seen.skipped).toBe(5);
    const [line] = (await harness.call('alerts.skips')).filter((l) => l.ruleId === legacy.id);
    expect(line?.reasons).toEqual([{ reason: 'no maximum price per item: auto-buy needs one', count: 5 }]);
    expect(buysOnTheWire()).toBe(0);
    expect(serverTrades()).toBe(0);
  }, 60_000);

  it('holds the global daily budget under a burst of 200 matching listings: no request past it on the wire', async () => {
    const harness = await launch(1_000_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    await harness.call('settings.update', { autoBuyDailyBudget: 5000 });
    // Two rules share the budget: 5 buys of $10 in all.
    const a = await harness.call('alerts.saveRule', autoBuyRule(recipient.id, 'Burst Alpha'));
    const b = await harness.call('alerts.saveRule', autoBuyRule(recipient.id, 'Burst Beta'));
    // Requests wait at the proxy: nothing is answered while the burst is decided, so only counting at the
    // moment a request leaves can hold the budget.
    proxy.holdRequests();
    await Promise.all([list('Burst Alpha', 100, 1000, 96_000_001), list('Burst Beta', 100, 1000, 96_100_001)]);
    const [first, second] = await Promise.all([decided(harness, a.id, 100), decided(harness, b.id, 100)]);
    await waitFor(() => buysOnTheWire() === 5, 5000, 'five buys at the proxy');
    expect(first.skipped + second.skipped).toBe(195);
    proxy.releaseRequests();
    await waitFor(
      async () => (await harness.call('alerts.firings')).filter((f) => f.autoBuy?.tradeId).length === 5,
      20_000,
      'five trades',
    );
    expect(buysOnTheWire()).toBe(5);
    expect(serverTrades()).toBe(5);
    const status = (await harness.call('app.snapshot')).autoBuy;
    expect(status?.spentToday).toBe(5000);
    expect(status?.rules.reduce((sum, rule) => sum + rule.spentToday, 0)).toBe(5000);
    const reasons = (await harness.call('alerts.skips')).flatMap((line) => line.reasons.map((r) => r.reason));
    expect(new Set(reasons)).toEqual(new Set(['the daily auto-buy budget of $50.00 would be exceeded']));
  }, 90_000);

  it('holds the balance floor under a burst of 200 matching listings', async () => {
    // $200 available, floor $145: five buys of $10 leave $150; a sixth would leave $140.
    const harness = await launch(20_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    await harness.call('settings.update', { autoBuyBalanceFloor: 14_500 });
    const rule = await harness.call('alerts.saveRule', autoBuyRule(recipient.id, 'Floor Gamma'));
    proxy.holdRequests();
    await list('Floor Gamma', 200, 1000, 97_000_001);
    const seen = await decided(harness, rule.id, 200);
    await waitFor(() => buysOnTheWire() === 5, 5000, 'five buys at the proxy');
    expect(seen.skipped).toBe(195);
    proxy.releaseRequests();
    await waitFor(
      async () => (await harness.call('alerts.firings')).filter((f) => f.autoBuy?.tradeId).length === 5,
      20_000,
      'five trades',
    );
    // More listings after the answers and the balance read: still nothing below the floor.
    await list('Floor Gamma', 20, 1000, 97_500_001);
    await decided(harness, rule.id, 220);
    expect(buysOnTheWire()).toBe(5);
    expect(serverTrades()).toBe(5);
  }, 90_000);

  it('"only new listings" (the default) buys nothing that was on sale when the rule was saved', async () => {
    const harness = await launch(1_000_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    const old = await list('Fresh Delta', 3, 500, 98_000_001);
    await waitFor(
      async () => (await harness.call('catalog.query', { search: 'Fresh Delta' })).total === 3,
      10_000,
      'listed in the cache',
    );
    const input = autoBuyRule(recipient.id, 'Fresh Delta');
    expect(await harness.call('alerts.preview', input)).toMatchObject({ count: 3, total: 1500 });
    const rule = await harness.call('alerts.saveRule', input);
    await decided(harness, rule.id, 3);
    // Then new listings, and the old ones again at a lower price (a fresh match of each).
    await list('Fresh Delta New', 2, 700, 98_100_001);
    await adminApi(sb).post('/admin/items', { items: old.map((item) => ({ ...item, price: 400 })) });
    const seen = await decided(harness, rule.id, 8);
    await waitFor(
      async () => (await harness.call('alerts.firings')).filter((f) => f.autoBuy?.tradeId).length === 2,
      20_000,
      'two trades',
    );
    expect(buysOnTheWire()).toBe(2);
    // Order ids are auto-<rule>-<itemId>-<price>.
    expect(new Set(proxy.externalIds.map((id) => Number(/-(\d+)-\d+$/.exec(id)?.[1])))).toEqual(
      new Set([98_100_001, 98_100_002]),
    );
    expect(seen.skipped).toBe(6);
    const [line] = await harness.call('alerts.skips');
    expect(line?.reasons).toEqual([{ reason: 'listed before the rule was armed (only new listings)', count: 6 }]);

    // "Also the N listed now" buys them: read from the cache, so once it holds what the server has (the old listings
    // at their new price, the new ones bought), or a lagging cache would send a buy at a price gone or for an item sold.
    await waitFor(
      async () => {
        const { rows } = await harness.call('catalog.query', { search: 'Fresh Delta', limit: 10 });
        return rows.length === 3 && rows.every((row) => row.price === 400);
      },
      20_000,
      'the cache as the server has it',
    );
    const also = await harness.call('alerts.saveRule', {
      ...autoBuyRule(recipient.id, 'Fresh Delta 1'),
      existingListings: 'buy',
    });
    await waitFor(
      async () => (await harness.call('alerts.firings')).some((f) => f.ruleId === also.id && f.autoBuy?.tradeId),
      20_000,
      'the existing one bought',
    );
    expect(buysOnTheWire()).toBe(3);
  }, 90_000);

  it('a dry run records "would buy" and sends nothing', async () => {
    const harness = await launch(1_000_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    const rule = await harness.call(
      'alerts.saveRule',
      autoBuyRule(recipient.id, 'Dry Epsilon', {
        autoBuy: { enabled: true, recipientId: recipient.id, spendCap: 1_000_000, dailyCap: 1_000_000, dryRun: true },
      }),
    );
    expect(rule.autoBuy.dryRun).toBe(true);
    await list('Dry Epsilon', 3, 900, 99_000_001);
    const seen = await decided(harness, rule.id, 3);
    expect(seen.firings.map((f) => f.autoBuy)).toEqual([
      { tradeId: null, error: null, skipped: null, dryRun: true },
      { tradeId: null, error: null, skipped: null, dryRun: true },
      { tradeId: null, error: null, skipped: null, dryRun: true },
    ]);
    await waitFor(
      () =>
        harness.batches.flatMap((b) => b.notifications ?? []).filter((n) => n.title === 'Dry run: Dry Epsilon')
          .length === 3,
      5000,
      'three "would buy" notifications',
    );
    expect(buysOnTheWire()).toBe(0);
    expect(serverTrades()).toBe(0);
  }, 60_000);

  /** Fast-forwards until every firing of the rule has its buy's outcome recorded (look-ups retry, backing off); returns them. */
  const outcomes = (harness: EngineHarness, ruleId: string, count: number) =>
    reach(
      async () => {
        const firings = (await harness.call('alerts.firings')).filter((f) => f.ruleId === ruleId && f.autoBuy !== null);
        return firings.length >= count ? firings : null;
      },
      30_000,
      `${count} outcomes recorded`,
    );

  /** A $10 auto-buy rule for `pattern` to a saved recipient; its order id of a listing and that order id's look-up. */
  async function armed(pattern: string) {
    const harness = await launch(1_000_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    const rule = await harness.call('alerts.saveRule', autoBuyRule(recipient.id, pattern));
    const orderId = (itemId: number) => `auto-${rule.id.slice(0, 12)}-${itemId}-1000`;
    const lookupPath = (itemId: number) => `/Trades/History?${new URLSearchParams({ externalId: orderId(itemId) })}`;
    return { harness, rule, orderId, lookupPath };
  }

  it('counts buys whose answers were lost and whose look-ups failed until their order ids are found: the server never spends past a cap or the budget', async () => {
    useFlowingFakeClock();
    const harness = await launch(1_000_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    await harness.call('settings.update', { autoBuyDailyBudget: 5000 });
    const capped = await harness.call(
      'alerts.saveRule',
      autoBuyRule(recipient.id, 'Lost Alpha', {
        autoBuy: { enabled: true, recipientId: recipient.id, spendCap: 1_000_000, dailyCap: 3000 },
      }),
    );
    const open = await harness.call('alerts.saveRule', autoBuyRule(recipient.id, 'Lost Beta'));
    // Every buy reaches the server and its answer is lost; every look-up of an order id fails the same way, and the
    // feed's trade frames are lost too: nothing tells the desk what became of the buys.
    const heal = [
      proxy.inject('/Items/Buy', { kind: 'swallow' }),
      proxy.inject('/Trades/History?externalId=', { kind: 'swallow' }),
      proxy.dropFeedFrames((text) => text.includes('"trade_updated"')),
    ];

    // $10 each: the capped rule buys 3 ($30, its cap), then the other 2 ($20, the budget).
    await list('Lost Alpha', 6, 1000, 94_000_001);
    await decided(harness, capped.id, 6);
    const lostAlpha = await outcomes(harness, capped.id, 3);
    expect(lostAlpha.map((f) => f.autoBuy?.error)).toEqual(
      Array.from({ length: 3 }, () => expect.stringMatching(/could not be looked up/)),
    );
    await list('Lost Beta', 6, 1000, 94_100_001);
    await decided(harness, open.id, 6);
    await outcomes(harness, open.id, 2);
    // More of both while the outcomes are still unknown: nothing more is sent.
    await list('Lost Alpha More', 4, 1000, 94_200_001);
    await list('Lost Beta More', 4, 1000, 94_300_001);
    await decided(harness, capped.id, 10);
    await decided(harness, open.id, 10);
    expect(serverSpend(capped.id)).toBeLessThanOrEqual(3000);
    expect(serverSpend()).toBeLessThanOrEqual(5000);
    expect(buysOnTheWire()).toBe(5);
    expect((await harness.call('app.snapshot')).autoBuy?.spentToday).toBe(5000);

    // The network heals; a reconcile finds the five trades: bought, stored.
    for (const remove of heal) remove();
    await harness.call('connection.retryNow');
    await waitFor(
      async () => (await harness.call('alerts.firings')).filter((f) => f.autoBuy?.tradeId).length === 5,
      20_000,
      'five trades found by order id',
    );
    expect((await harness.call('trades.query', { limit: 50 })).total).toBe(5);
    // Announced as failed when no answer came, then as placed once found.
    await waitFor(
      async () =>
        (await harness.call('notifications.list', { limit: 100 })).rows.filter((n) =>
          n.title.startsWith('Auto-buy placed'),
        ).length === 5,
      5000,
      'five "placed" notifications after the look-ups',
    );
    const status = (await harness.call('app.snapshot')).autoBuy;
    expect(status?.spentToday).toBe(5000);
    expect(status?.rules.find((r) => r.ruleId === capped.id)?.spentToday).toBe(3000);
    expect((await harness.call('alerts.rules')).find((r) => r.id === capped.id)?.autoBuy.spent).toBe(3000);
    await list('Lost Alpha Later', 2, 1000, 94_400_001);
    await list('Lost Beta Later', 2, 1000, 94_500_001);
    await decided(harness, capped.id, 12);
    await decided(harness, open.id, 12);
    expect(buysOnTheWire()).toBe(5);
    expect(serverSpend(capped.id)).toBe(3000);
    expect(serverSpend()).toBe(5000);
  }, 120_000);

  it('looks up a buy whose outcome became unknown while a look-up run was under way: one more run after it, no reconcile needed', async () => {
    // On the real clock: fast-forwarding B's look-up retries would also run out A's held look-up's time-out.
    const { harness, rule, orderId, lookupPath } = await armed('Held Kappa');
    const [itemA, itemB] = [95_000_001, 95_000_002];
    /** Only the look-ups of this one order id (the other's pass). */
    const lookups = (itemId: number) => (_method: string, path: string) => path === lookupPath(itemId);
    const firing = async (itemId: number) =>
      (await harness.call('alerts.firings')).find((f) => f.ruleId === rule.id && f.itemId === itemId);
    /** Its outcome announced as unknown (its firing's event): the guard counted it so in the same task. */
    const unknown = (itemId: number) =>
      waitFor(
        () =>
          harness.batches
            .flatMap((batch) => batch.firings ?? [])
            .some(
              (f) =>
                f.ruleId === rule.id && f.itemId === itemId && /could not be looked up/.test(f.autoBuy?.error ?? ''),
            ),
        20_000,
        `item ${itemId}'s buy unknown: its answer lost, its look-ups failed`,
      );
    /** Reconciles' reads of the active trades (a look-up run follows each reconcile). */
    const reconciles = () => proxy.count('/Trades/History?status=');

    // A: its request lost on the way (no trade anywhere, so neither the feed nor a reconcile can tell), its own
    // look-ups failing: unknown. B's trade frames are lost on the feed (B's buy reaches the server below).
    const feedHeals = proxy.dropFeedFrames((text) => text.includes('"trade_updated"'));
    let heal = [
      proxy.inject('/Items/Buy', { kind: 'drop', times: 1 }),
      proxy.inject(lookups(itemA), { kind: 'swallow' }),
    ];
    expect((await list('Held Kappa A', 1, 1000, itemA)).map((item) => item.itemId)).toEqual([itemA]);
    await unknown(itemA);
    for (const remove of heal) remove();
    // A reconcile starts a look-up run; A's look-up reaches the server, its answer is held at the proxy.
    let release!: () => void;
    const held = proxy.inject(lookups(itemA), { kind: 'hold', release: new Promise<void>((r) => (release = r)) });
    await harness.call('connection.retryNow');
    await waitFor(
      () => proxy.requests.some((r) => r.path === lookupPath(itemA) && r.fault === 'hold'),
      10_000,
      "A's look-up held: the run under way",
    );
    const reconcilesBefore = reconciles();

    // B, meanwhile: its answer lost, its own look-ups failing (the run's list was taken before).
    heal = [
      proxy.inject('/Items/Buy', { kind: 'swallow', times: 1 }),
      proxy.inject(lookups(itemB), { kind: 'swallow' }),
    ];
    expect((await list('Held Kappa B', 1, 1000, itemB)).map((item) => item.itemId)).toEqual([itemB]);
    await unknown(itemB);
    expect((await firing(itemA))?.autoBuy?.tradeId).toBeNull();

    // The network heals; A's answer goes on (no trade) and the run ends. B is looked up after it, with no other
    // reconcile, and found on the server (the cache never had it).
    for (const remove of heal) remove();
    release();
    await waitFor(
      async () => /nothing was bought/.test((await firing(itemA))?.autoBuy?.error ?? ''),
      10_000,
      'A: no trade has its order id',
    );
    await waitFor(
      async () => (await firing(itemB))?.autoBuy?.tradeId,
      10_000,
      'B found by its order id without another reconcile',
    );
    feedHeals();
    held();
    // No reconcile came before B's look-up (the catch-up its failed look-ups asked for comes seconds later).
    const bLookedUpAt = proxy.requests.find((r) => r.path === lookupPath(itemB) && r.fault === null)?.at ?? 0;
    expect(proxy.count('/Trades/History?status=', 0, bLookedUpAt)).toBe(reconcilesBefore);
    // A's one held look-up answered (no time-out, no second run for it); B's healed one found its trade.
    expect(proxy.requests.filter((r) => r.path === lookupPath(itemA) && r.fault === 'hold')).toHaveLength(1);
    expect(proxy.requests.filter((r) => r.path === lookupPath(itemB) && r.fault === null)).toHaveLength(1);
    expect(buysOnTheWire()).toBe(2);
    expect(serverSpend(rule.id)).toBe(1000);
    expect((await firing(itemB))?.autoBuy?.tradeId).toBe(
      sb.core.db.prepare('SELECT trade_id FROM trades WHERE external_id = ?').pluck().get(orderId(itemB)),
    );
    expect((await harness.call('app.snapshot')).autoBuy?.spentToday).toBe(1000);
  }, 90_000);

  it('settles a buy whose answer was lost from its trade the feed brought, while look-ups by order id and reconciles fail', async () => {
    useFlowingFakeClock();
    const itemId = 95_100_001;
    const { harness, rule, orderId, lookupPath } = await armed('Fed Lambda');
    // The buy reaches the server and its answer is lost; every look-up by order id and every reconcile's read of the
    // active trades fails, to the end (so no reconcile completes and asks for look-ups). The feed (a WebSocket through
    // the same proxy) is untouched, and so is the read of the new trade its frame names.
    const seenBefore = proxy.requests.length;
    proxy.inject('/Items/Buy', { kind: 'swallow', times: 1 });
    proxy.inject('/Trades/History?externalId=', { kind: 'swallow' });
    proxy.inject('/Trades/History?status=', { kind: 'swallow' });

    expect((await list('Fed Lambda', 1, 1000, itemId)).map((item) => item.itemId)).toEqual([itemId]);
    const firing = await reach(
      async () => (await harness.call('alerts.firings')).find((f) => f.ruleId === rule.id && f.autoBuy?.tradeId),
      30_000,
      'the buy settled from the trade the feed brought',
    );
    const serverTradeId = sb.core.db
      .prepare('SELECT trade_id FROM trades WHERE external_id = ?')
      .pluck()
      .get(orderId(itemId));
    expect(firing.autoBuy?.tradeId).toBe(serverTradeId);
    // Its own look-ups went out and failed; no look-up by order id and no reconcile was answered since the buy.
    const since = proxy.requests.slice(seenBefore);
    expect(since.filter((r) => r.path === lookupPath(itemId) && r.fault === 'swallow').length).toBeGreaterThan(0);
    const answered = (prefix: string) => since.filter((r) => r.path.startsWith(prefix) && r.fault === null);
    expect(answered('/Trades/History?externalId=')).toEqual([]);
    expect(answered('/Trades/History?status=')).toEqual([]);
    expect(buysOnTheWire()).toBe(1);
    expect((await harness.call('app.snapshot')).autoBuy?.spentToday).toBe(1000);
    expect((await harness.call('alerts.rules')).find((r) => r.id === rule.id)?.autoBuy.spent).toBe(1000);
  }, 90_000);

  it('settles a buy counted as unknown when a later frame of its trade is stored, while look-ups and reconciles still fail', async () => {
    useFlowingFakeClock();
    const itemId = 95_150_001;
    const { harness, rule, orderId } = await armed('Late Nu');
    const firing = async () => (await harness.call('alerts.firings')).find((f) => f.ruleId === rule.id);
    // The buy reaches the server and its answer is lost; every look-up by order id and every reconcile fails, to the
    // end. The feed loses the trade's frames until its outcome is unknown, so nothing is cached before that.
    const seenBefore = proxy.requests.length;
    proxy.inject('/Items/Buy', { kind: 'swallow', times: 1 });
    proxy.inject('/Trades/History?externalId=', { kind: 'swallow' });
    proxy.inject('/Trades/History?status=', { kind: 'swallow' });
    const framesHeal = proxy.dropFeedFrames((text) => text.includes('"trade_updated"'));
    expect((await list('Late Nu', 1, 1000, itemId)).map((item) => item.itemId)).toEqual([itemId]);
    await reach(
      async () => /could not be looked up/.test((await firing())?.autoBuy?.error ?? ''),
      20_000,
      'the buy unknown',
    );
    expect((await harness.call('trades.query', { limit: 10 })).total).toBe(0);
    expect((await harness.call('app.snapshot')).autoBuy?.spentToday).toBe(1000);

    // The trade moves on at the server and its frame reaches the desk: the trade is read by id and stored.
    framesHeal();
    const serverTradeId = sb.core.db
      .prepare('SELECT trade_id FROM trades WHERE external_id = ?')
      .pluck()
      .get(orderId(itemId)) as string;
    await adminApi(sb).transition(serverTradeId, { status: 'SENT' });
    const settled = await reach(
      async () => ((await firing())?.autoBuy?.tradeId ? await firing() : null),
      30_000,
      'the buy settled from the trade its later frame brought',
    );
    expect(settled?.autoBuy?.tradeId).toBe(serverTradeId);
    const answered = (prefix: string) =>
      proxy.requests.slice(seenBefore).filter((r) => r.path.startsWith(prefix) && r.fault === null);
    expect(answered('/Trades/History?externalId=')).toEqual([]);
    expect(answered('/Trades/History?status=')).toEqual([]);
    expect(buysOnTheWire()).toBe(1);
    expect((await harness.call('app.snapshot')).autoBuy?.spentToday).toBe(1000);
  }, 90_000);

  it('looks up a buy lost on the way once the API answers again, with the feed up all along: no reconnect, no Retry now', async () => {
    useFlowingFakeClock();
    const itemId = 95_200_001;
    const { harness, rule, lookupPath } = await armed('Lost Mu');
    const firing = async () => (await harness.call('alerts.firings')).find((f) => f.ruleId === rule.id);
    const upgrades = () => proxy.requests.filter((r) => r.upgrade).length;
    const upgradesBefore = upgrades();
    // The buy's request is lost on the way (no trade anywhere) and its look-ups fail: unknown, counted.
    proxy.inject('/Items/Buy', { kind: 'drop', times: 1 });
    const healLookups = proxy.inject((_method, path) => path === lookupPath(itemId), { kind: 'swallow' });
    expect((await list('Lost Mu', 1, 1000, itemId)).map((item) => item.itemId)).toEqual([itemId]);
    await reach(
      async () => /could not be looked up/.test((await firing())?.autoBuy?.error ?? ''),
      20_000,
      'the buy unknown',
    );
    expect((await harness.call('app.snapshot')).autoBuy?.spentToday).toBe(1000);

    // The API answers again. Nothing else happens on the feed, and nobody presses Retry now.
    healLookups();
    await reach(
      async () => /nothing was bought/.test((await firing())?.autoBuy?.error ?? ''),
      30_000,
      'the buy looked up: no trade has its order id',
    );
    expect(proxy.requests.filter((r) => r.path === lookupPath(itemId) && r.fault === null)).toHaveLength(1);
    expect(upgrades()).toBe(upgradesBefore);
    expect(buysOnTheWire()).toBe(1);
    expect(serverTrades()).toBe(0);
    expect((await harness.call('app.snapshot')).autoBuy?.spentToday).toBe(0);
  }, 90_000);

  it('stop-all drops the auto-buys waiting in the rate limiter: none leaves after it is acknowledged, a manual buy still does', async () => {
    useFlowingFakeClock();
    const harness = await launch(1_000_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    const rule = await harness.call('alerts.saveRule', autoBuyRule(recipient.id, 'Queue Eta'));
    const [manual] = await list('Manual Theta', 1, 700, 95_500_001);
    if (!manual) throw new Error('no listing for the manual buy');
    // The minute's budget spent by the app's own requests: what comes next waits in its rate limiter.
    const limiter = harness.session().limiter;
    await waitFor(
      () => limiter.queued('default') === 0 && limiter.unanswered('default') === 0,
      10_000,
      'start-up requests answered',
    );
    // Every answer in before the auto-buys queue: the window is full by the server's count too.
    await Promise.all(
      Array.from({ length: limiter.status().defaultRemaining }, () => harness.session().client.getBalance()),
    );
    await waitFor(() => limiter.status().defaultRemaining === 0, 10_000, 'the window full');

    await list('Queue Eta', 25, 300, 95_000_001);
    await decided(harness, rule.id, 25);
    await waitFor(() => limiter.queued('default') >= 25, 10_000, 'the 25 auto-buys waiting for a slot');
    expect(buysOnTheWire()).toBe(0);
    await harness.call('settings.update', { autoBuyStopped: true });
    const afterStop = buysOnTheWire();

    // A manual buy asked after the stop waits for the same window (a minute, fast-forwarded), behind whatever still
    // waits: when it has been sent, every auto-buy queued before it has had its turn.
    const bought = await settle(
      harness.call('buy.byId', {
        itemId: manual.itemId,
        assetId: manual.assetId,
        price: manual.price,
        recipient: { tradeUrl: TEST_TRADE_URL },
      }),
      120_000,
      'the manual buy, after the rate window',
    );
    expect(bought.ok).toBe(true);
    expect(afterStop).toBe(0);
    expect(buysOnTheWire()).toBe(1);
    expect(serverSpend()).toBe(0);
    expect(serverTrades()).toBe(1);
    // Recorded as skips of the stop, their reservations given back.
    const line = await waitFor(
      async () => (await harness.call('alerts.skips')).find((l) => l.ruleId === rule.id && l.count === 25),
      5000,
      '25 skips',
    );
    expect(line.reasons).toEqual([{ reason: 'auto-buy is stopped (stop all)', count: 25 }]);
    expect((await harness.call('alerts.firings')).filter((f) => f.ruleId === rule.id)).toEqual([]);
    const status = (await harness.call('app.snapshot')).autoBuy;
    expect(status?.spentToday).toBe(0);
    expect(status?.rules.find((r) => r.ruleId === rule.id)?.skippedToday).toBe(25);
  }, 150_000);

  it('stop-all: the next match after the stop sends nothing, until resumed', async () => {
    const harness = await launch(1_000_000);
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    const rule = await harness.call('alerts.saveRule', autoBuyRule(recipient.id, 'Stop Zeta'));
    await list('Stop Zeta A', 2, 800, 99_100_001);
    await decided(harness, rule.id, 2);
    await waitFor(() => buysOnTheWire() === 2, 5000, 'two buys at the proxy');

    await harness.call('settings.update', { autoBuyStopped: true });
    expect((await harness.call('app.snapshot')).autoBuy?.stopped).toBe(true);
    await list('Stop Zeta B', 50, 800, 99_200_001);
    const stopped = await decided(harness, rule.id, 52);
    expect(stopped.skipped).toBe(50);
    expect(buysOnTheWire()).toBe(2);

    await harness.call('settings.update', { autoBuyStopped: false });
    await list('Stop Zeta C', 1, 800, 99_300_001);
    await decided(harness, rule.id, 53);
    await waitFor(() => buysOnTheWire() === 3, 5000, 'the buy after resuming');
  }, 60_000);
});
