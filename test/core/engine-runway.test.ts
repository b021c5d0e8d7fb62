import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import type { BalanceRunway } from '../../src/shared/ipc';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { HOUR_MS } from '../../src/main/core/operations/runway';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine, waitForFeedAndBalance } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, at, TEST_TRADE_URL } from '../support/sandboxHttp';

// The sandbox and the engine on a fake clock that flows with real time: the runway follows the ledger, which the
// engine reads again after its debounce and its gap after frames; the test fast-forwards through those waits (reach).
describe('balance runway, engine against the real sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;

  beforeEach(async () => {
    useFlowingFakeClock();
    sb = await startSandbox({ items: 40, seed: 35 });
    merchant = await adminApi(sb).createMerchant({ balance: 100_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-runway-'));
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    await waitForFeedAndBalance(app);
  });

  afterEach(async () => {
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
    useRealClock();
  });

  /** The latest runway the engine pushed, once it satisfies `check`. */
  const pushed = (check: (runway: BalanceRunway) => boolean, what: string) =>
    reach(
      () => {
        const last = [...app.batches].reverse().find((batch) => batch.runway)?.runway;
        return last && check(last) ? last : null;
      },
      20_000,
      what,
    );
  const runwayNotifications = async () =>
    (await app.call('notifications.list', { limit: 1000 })).rows.filter((n) => n.id.startsWith('runway:'));
  /** Runway notifications pushed: each goes out in the same batch as the runway that crossed. */
  const raisedInBatches = () =>
    app.batches.flatMap((batch) => batch.notifications ?? []).filter((n) => n.id.startsWith('runway:')).length;
  const balanceVia = async (type: 'ADMIN TOP UP' | 'ADMIN DEDUCT', amount: number) => {
    const answer = await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, { type, amount });
    expect(answer.status).toBe(201);
    // An admin change sends no frame: "Retry now" reconciles, and the balance is read again.
    expect(await app.call('connection.retryNow')).toEqual({ started: true });
  };

  async function buyThree(): Promise<string[]> {
    const items = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: [10_000, 10_000, 10_000].map((price, i) => ({ itemId: 97_000_000 + i, price, steamId: null })),
      })
    ).body.items;
    await waitFor(
      async () => (await app.call('catalog.item', { itemId: at(items, 2).itemId }))?.onSale === true,
      10_000,
      'the listings in the cache',
    );
    const tradeIds: string[] = [];
    for (const item of items) {
      const outcome = await app.call('buy.byId', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        recipient: { tradeUrl: TEST_TRADE_URL },
      });
      if (!outcome.ok) throw new Error(`buy refused: ${outcome.failure.message}`);
      tradeIds.push(outcome.trade.tradeId);
      // Answered, and no balance read issued since: in flight until one is.
      expect(app.session().inFlight).toBeGreaterThanOrEqual(item.price);
    }
    return tradeIds;
  }

  it('reads the runway from the ledger’s buying net of refunds, notifies once under the threshold and re-arms after a top-up', async () => {
    expect(await app.call('operations.runway')).toMatchObject({
      balance: 100_000,
      available: 100_000,
      lastHour: { spent: 0, runwayMs: null },
      thresholdHours: null,
      below: false,
    });

    // Three $100 buys: the server freezes $300 (the balance shows it, in flight is not taken off again).
    const [first] = (await buyThree()) as [string];
    // A balance read sent before the last buy's answer may already show its freeze: in flight stays counted (the
    // conservative side) until a read sent after the answer, so the settled runway is the one waited for.
    const afterBuys = await pushed(
      (r) => r.lastHour.spent === 30_000 && r.balance === 70_000 && r.inFlight === 0,
      'the runway after three buys',
    );
    expect(afterBuys).toMatchObject({ available: 70_000, inFlight: 0, lastDay: { spent: 30_000 } });
    expect(afterBuys.lastHour.runwayMs).toBe(Math.floor((70_000 * HOUR_MS) / 30_000));

    // One is cancelled: its refund comes off the spend. $800 at $200 an hour: 4 h.
    await adminApi(sb).transition(first, { status: 'SENT' });
    await adminApi(sb).transition(first, { status: 'CANCELLED' });
    const afterRefund = await pushed(
      (r) => r.lastHour.spent === 20_000 && r.balance === 80_000,
      'the runway after the refund',
    );
    expect(afterRefund.lastHour.runwayMs).toBe(4 * HOUR_MS);
    expect(await app.call('operations.runway')).toMatchObject({
      available: 80_000,
      lastHour: { runwayMs: 4 * HOUR_MS },
    });
    expect(await runwayNotifications()).toEqual([]);

    // A threshold above the runway: one notification.
    await app.call('settings.update', { runwayAlertHours: 6 });
    await pushed((r) => r.below && r.thresholdHours === 6, 'the runway under the threshold');
    const [raised] = await waitFor(
      async () => {
        const list = await runwayNotifications();
        return list.length > 0 ? list : null;
      },
      10_000,
      'the runway notification',
    );
    expect(raised).toMatchObject({ category: 'alert', severity: 'warning', title: 'Balance runway under 6 h' });
    expect(raised?.body).toContain('About 4 h of buying left');

    // Recomputed on news (a deduction: still under) without a second notification.
    await balanceVia('ADMIN DEDUCT', 10_000);
    await pushed((r) => r.balance === 70_000 && r.below, 'the runway after the deduction');
    expect(raisedInBatches()).toBe(1);
    expect(await runwayNotifications()).toHaveLength(1);

    // A top-up lifts it above the threshold (re-armed), and a deduction brings it under again: a second one.
    await balanceVia('ADMIN TOP UP', 100_000);
    await pushed((r) => r.balance === 170_000 && !r.below, 'the runway above the threshold after a top-up');
    expect(raisedInBatches()).toBe(1);
    await balanceVia('ADMIN DEDUCT', 100_000);
    await pushed((r) => r.balance === 70_000 && r.below, 'the runway under the threshold again');
    expect(raisedInBatches()).toBe(2);
    await waitFor(async () => (await runwayNotifications()).length === 2, 10_000, 'the second crossing kept');

    // Top-ups and deposits are listed from the ledger beside it.
    const topUps = await app.call('wallet.ledger', { types: ['ADMIN TOP UP', 'CRYPTO DEPOSIT'], limit: 5 });
    expect(topUps.rows.map((row) => row.amount)).toContain(100_000);
  });

  it('tells a crossing once across a restart while still under the threshold; a rise above then a new crossing tells again', async () => {
    await buyThree();
    // $700 left at $300 an hour: about 2.3 h, under a 6 h threshold.
    await app.call('settings.update', { runwayAlertHours: 6 });
    await pushed((r) => r.below && r.balance === 70_000 && r.lastHour.spent === 30_000, 'the runway under 6 h');
    expect(raisedInBatches()).toBe(1);
    await waitFor(async () => (await runwayNotifications()).length === 1, 10_000, 'the crossing kept');

    // Closed and opened again on the same files, still under: the runway is pushed, and no notification with it.
    const restart = async () => {
      await app.close();
      app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
      await waitFor(() => app.session().connection.state === 'connected', 15_000, 'the feed after the restart');
    };
    await restart();
    await pushed((r) => r.below && r.balance === 70_000, 'the runway under 6 h after the restart');
    expect(raisedInBatches()).toBe(0);
    expect(await runwayNotifications()).toHaveLength(1);

    // A top-up lifts it above ($2,700 at $300 an hour: 9 h), a restart, a deduction brings it under again: told.
    await balanceVia('ADMIN TOP UP', 200_000);
    await pushed((r) => r.balance === 270_000 && !r.below, 'the runway above the threshold after a top-up');
    await restart();
    await pushed((r) => r.balance === 270_000 && !r.below, 'the runway above the threshold after the restart');
    await balanceVia('ADMIN DEDUCT', 200_000);
    await pushed((r) => r.balance === 70_000 && r.below, 'the runway under the threshold again');
    expect(raisedInBatches()).toBe(1);
    await waitFor(async () => (await runwayNotifications()).length === 2, 10_000, 'the second crossing kept');
  }, 90_000);

  it('refuses a threshold that is not a positive number of hours, and changes nothing', async () => {
    await app.call('settings.update', { runwayAlertHours: 12 });
    for (const bad of [0, -3, '6', 10_000, true]) {
      const answer = await dispatchIpc(app.engine, 'settings.update', { runwayAlertHours: bad });
      expect(answer.ok).toBe(false);
      if (!answer.ok) {
        expect(answer.error.code).toBe('invalid_input');
        expect(answer.error.message).toMatch(/^settings\.update: runwayAlertHours: the runway threshold must be /);
      }
    }
    expect((await app.engine.snapshot()).settings.runwayAlertHours).toBe(12);
    // Turned off with null.
    await app.call('settings.update', { runwayAlertHours: null });
    expect((await app.engine.snapshot()).settings.runwayAlertHours).toBeNull();
    expect(await app.call('operations.runway')).toMatchObject({ thresholdHours: null, below: false });
  });
});
