/**
 * A back-fill asked for while a new cache's first one ends (its "history loaded" summary being counted) closes the
 * gap since that one began: a trade made and finished meanwhile, which no frame brought, is stored when the run it
 * asked for resolves. The sandbox over loopback behind the fault proxy; the feed is refused, so only the back-fill
 * can bring the trade; the summary's first count is where the trade is made and the run asked for.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryBackfill } from '../../src/main/core/engine/session/historyBackfill';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import { FaultProxy } from '../support/faultProxy';
import { startEngine } from '../support/faults/harness';
import { adminApi, tradeUrlFor } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('history back-fill single flight', () => {
  it('a run asked while the first fill sums up closes the gap since that fill began', async () => {
    const sb = await startSandbox({ items: 20, seed: 37 });
    cleanups.push(() => sb.close());
    const merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    const [item] = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: [{ itemId: 96_000_001, price: 1_500, steamId: null }],
      })
    ).body.items as [Item];
    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    cleanups.push(() => proxy.close());
    proxy.inject('/ws', { kind: 'drop' }); // no frame brings the trade: only the back-fill can
    const dataDir = mkdtempSync(join(tmpdir(), 'history-gap-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));

    proxy.holdRequests(); // the first fill waits until its summary's count is watched
    const app = await startEngine(dataDir, { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, ...merchant });
    cleanups.push(() => app.close());
    const session = app.session();
    const history = (session as unknown as { history: HistoryBackfill }).history;
    const store = session.store;
    const count = store.queryTrades.bind(store);
    let made: { tradeId: string; asked: Promise<void> } | null = null;
    store.queryTrades = (query) => {
      if (!made && query?.limit === 1 && query.to !== undefined) {
        // The first fill is summing up: a trade is made and finished now, and a back-fill asked for.
        const { tradeId } = sb.core.buying.buy(merchant.merchantId, {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          tradeUrl: tradeUrlFor(30_001),
        });
        sb.core.trades.transition(tradeId, { status: 'SENT' });
        sb.core.trades.transition(tradeId, { status: 'COMPLETED' });
        made = { tradeId, asked: history.run() };
      }
      return count(query);
    };
    proxy.releaseRequests();

    const { tradeId, asked } = await waitFor(() => made, 20_000, 'the first fill summing up');
    await asked;
    expect((await store.getTrade(tradeId))?.trade.status).toBe('COMPLETED');
  });
});
