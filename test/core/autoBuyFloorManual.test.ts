/**
 * The balance floor with a person's buy beside auto-buy: a manual buy under way counts against the floor as an
 * auto-buy does, so the two together never leave less than the floor. The real sandbox behind a counting proxy that
 * holds every request, so the manual buy is in flight (on the wire, unanswered) while the matches are decided.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import { FaultProxy } from '../support/faultProxy';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { TEST_TRADE_URL, adminApi, at } from '../support/sandboxHttp';

describe('the balance floor beside a manual buy', () => {
  let sb: Sandbox | null = null;
  let proxy: FaultProxy | null = null;
  let app: EngineHarness | null = null;
  let dataDir: string | null = null;

  afterEach(async () => {
    proxy?.releaseRequests();
    await app?.close();
    await proxy?.close();
    await sb?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    app = proxy = sb = dataDir = null;
  });

  it('counts a manual buy in flight: auto-buy stops where the two together would pass the floor', async () => {
    sb = await startSandbox({ items: 50, seed: 9 });
    const merchant = await adminApi(sb).createMerchant({ balance: 20_000 });
    proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    dataDir = mkdtempSync(join(tmpdir(), 'autobuy-floor-manual-'));
    const harness = await startEngine(dataDir, { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, ...merchant });
    app = harness;
    await waitFor(() => harness.session().connection.state === 'connected', 15_000, 'feed');
    await waitFor(() => harness.session().balance !== null, 10_000, 'balance');
    const listing = (name: string, count: number, firstId: number) =>
      adminApi(sb as Sandbox).post<{ items: Item[] }>('/admin/items', {
        items: Array.from({ length: count }, (_, i) => ({
          itemId: firstId + i,
          market_hash_name: `${name} ${i + 1} (Field-Tested)`,
          price: 1000,
          phase: null,
        })),
      });

    // $200 available, floor $145: a manual $10 buy and four auto-buys of $10 leave $150; a fifth would leave $140.
    const recipient = await harness.call('recipients.save', { label: 'Desk', tradeUrl: TEST_TRADE_URL });
    await harness.call('settings.update', { autoBuyBalanceFloor: 14_500 });
    const manualItem = at((await listing('Hand Picked', 1, 96_000_001)).body.items);
    const rule = await harness.call('alerts.saveRule', {
      name: 'Floor Delta',
      namePattern: 'Floor Delta',
      maxPrice: 1000,
      autoBuy: { enabled: true, recipientId: recipient.id, spendCap: 1_000_000, dailyCap: 1_000_000 },
    });
    const buysOnTheWire = () => (proxy as FaultProxy).count('/Items/Buy');

    proxy.holdRequests();
    const manual = harness.call('buy.byId', {
      itemId: manualItem.itemId,
      assetId: manualItem.assetId,
      price: manualItem.price,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });
    await waitFor(() => buysOnTheWire() === 1, 10_000, 'the manual buy on the wire');
    await listing('Floor Delta', 10, 97_000_001);
    const decided = await waitFor(
      async () => {
        const skipped = (await harness.call('alerts.skips'))
          .filter((line) => line.ruleId === rule.id)
          .reduce((sum, line) => sum + line.count, 0);
        const fired = (await harness.call('alerts.firings')).filter((f) => f.ruleId === rule.id).length;
        return fired + skipped >= 10 ? { skipped } : null;
      },
      30_000,
      'ten matches decided',
    );
    expect(buysOnTheWire()).toBe(5);
    expect(decided.skipped).toBe(6);
    proxy.releaseRequests();
    expect((await manual).ok).toBe(true);
  }, 60_000);
});
