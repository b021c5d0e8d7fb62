import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import type { AlertRule } from '../../src/shared/ipc';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi } from '../support/sandboxHttp';

describe('auto-buy against the real sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness | null = null;

  const serverTrades = () =>
    (
      sb.core.db.prepare('SELECT count(*) AS n FROM trades WHERE merchant_id = ?').get(merchant.merchantId) as {
        n: number;
      }
    ).n;

  async function launch(): Promise<EngineHarness> {
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    const started = app;
    await waitFor(() => started.session().connection.state === 'connected', 15_000, 'feed');
    await waitFor(async () => (await started.call('catalog.query', { limit: 1 })).total > 0, 20_000, 'catalog');
    return started;
  }

  /** Lists (or lists again, keeping the asset ids of the first time) these items. */
  const assets = new Map<number, string>();
  const items = async (specs: { itemId: number; name: string; price: number }[]) => {
    const answer = await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
      items: specs.map((s) => ({
        itemId: s.itemId,
        market_hash_name: `${s.name} (Field-Tested)`,
        price: s.price,
        phase: null,
        ...(assets.has(s.itemId) ? { assetId: assets.get(s.itemId) } : {}),
      })),
    });
    for (const item of answer.body.items) assets.set(item.itemId, item.assetId);
  };

  const rule = async (harness: EngineHarness, name: string) =>
    (await harness.call('alerts.rules')).find((r) => r.name === name) as AlertRule;

  beforeEach(async () => {
    sb = await startSandbox({ items: 200, seed: 31 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-alerts-'));
  });

  afterEach(async () => {
    await app?.close();
    app = null;
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops at the per-rule and daily caps, never buys again on a replay after a restart, and adds no spend for a trade already held', async () => {
    let first = await launch();
    const recipient = await first.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    const autoBuy = (spendCap: number, dailyCap: number) => ({
      enabled: true,
      recipientId: recipient.id,
      spendCap,
      dailyCap,
    });
    await first.call('alerts.saveRule', {
      name: 'total cap',
      namePattern: 'Cap Alpha',
      maxPrice: 5000,
      autoBuy: autoBuy(2500, 100_000),
    });
    await first.call('alerts.saveRule', {
      name: 'daily cap',
      namePattern: 'Cap Beta',
      maxPrice: 5000,
      autoBuy: autoBuy(100_000, 1500),
    });
    await first.call('alerts.saveRule', {
      name: 'roomy',
      namePattern: 'Cap Gamma',
      maxPrice: 5000,
      autoBuy: autoBuy(100_000, 100_000),
    });

    const listed = [
      { itemId: 93_000_001, name: 'Cap Alpha 1', price: 1000 },
      { itemId: 93_000_002, name: 'Cap Alpha 2', price: 1000 },
      { itemId: 93_000_003, name: 'Cap Alpha 3', price: 1000 },
      { itemId: 93_000_011, name: 'Cap Beta 1', price: 1000 },
      { itemId: 93_000_012, name: 'Cap Beta 2', price: 1000 },
      { itemId: 93_000_021, name: 'Cap Gamma 1', price: 1000 },
    ];
    await items(listed);
    // Four buys listed as firings; the two matches a cap held back folded into their rules' skip lines.
    const decided = await waitFor(
      async () => {
        const firings = await first.call('alerts.firings');
        const skips = await first.call('alerts.skips');
        return firings.length === 4 && firings.every((f) => f.autoBuy !== null) && skips.length === 2
          ? { firings, skips }
          : null;
      },
      15_000,
      'six matches decided',
    );
    const byItem = new Map(decided.firings.map((f) => [f.itemId, f.autoBuy]));
    expect(byItem.get(93_000_001)?.tradeId).toBeTruthy();
    expect(byItem.get(93_000_002)?.tradeId).toBeTruthy();
    expect(byItem.get(93_000_011)?.tradeId).toBeTruthy();
    expect(byItem.get(93_000_021)?.tradeId).toBeTruthy();
    const skipReasons = Object.fromEntries(decided.skips.map((line) => [line.ruleName, line.reasons]));
    expect(skipReasons).toEqual({
      'total cap': [{ reason: 'the rule would exceed its spend cap', count: 1 }],
      'daily cap': [{ reason: "the rule would exceed today's cap", count: 1 }],
    });
    expect(serverTrades()).toBe(4);
    expect((await rule(first, 'total cap')).autoBuy.spent).toBe(2000);
    expect((await rule(first, 'daily cap')).autoBuy.spent).toBe(1000);
    expect((await rule(first, 'roomy')).autoBuy.spent).toBe(1000);

    // Restart, then the same matches again (the listings re-sent by the server: a replayed feed frame, and the start-up sync).
    await first.close();
    first = await launch();
    const restarted = first;
    await items(listed);
    // Markers that every re-sent listing has been through the rules: an alert-only rule's listing sent after the
    // replay on the same feed (frames are handled in order), no catalog sync under way (a fresh cache starts none),
    // and no request of the engine queued or unanswered (a buy it sent has reached the server).
    const marker = await first.call('alerts.saveRule', { name: 'marker', namePattern: 'Cap Marker', maxPrice: 5000 });
    await items([{ itemId: 93_000_031, name: 'Cap Marker 1', price: 1000 }]);
    await waitFor(
      async () => (await restarted.call('alerts.firings')).some((f) => f.ruleId === marker.id),
      10_000,
      'the marker fired',
    );
    const limiter = restarted.session().limiter;
    await waitFor(
      async () =>
        !(await restarted.engine.snapshot()).progress.some((p) => p.kind === 'catalog-sync') &&
        limiter.queued('default') === 0 &&
        limiter.unanswered('default') === 0,
      20_000,
      'no catalog sync or request under way',
    );
    expect(serverTrades()).toBe(4);
    expect((await first.call('alerts.firings')).filter((f) => f.ruleId !== marker.id)).toHaveLength(4);
    expect((await first.call('alerts.skips')).reduce((sum, line) => sum + line.count, 0)).toBe(2);
    expect((await rule(first, 'roomy')).autoBuy.spent).toBe(1000);
    expect((await rule(first, 'total cap')).autoBuy.spent).toBe(2000);

    // Re-armed with "also the listings on sale now", the rule fires again for the same listing: its order id
    // already has a trade, which is not spent twice.
    const roomy = await rule(first, 'roomy');
    await first.call('alerts.rearm', { id: roomy.id, existingListings: 'buy' });
    const again = await waitFor(
      async () => {
        const firing = (await first.call('alerts.firings')).find((f) => f.ruleId === roomy.id);
        return firing?.autoBuy ? firing : null;
      },
      15_000,
      'the re-armed firing decided',
    );
    expect(again.autoBuy?.tradeId).toBeNull();
    expect(again.autoBuy?.error).toMatch(/^Already bought earlier \(trade .+\); not counted again$/);
    expect((await rule(first, 'roomy')).autoBuy.spent).toBe(1000);
    expect(serverTrades()).toBe(4);
  }, 90_000);
});
