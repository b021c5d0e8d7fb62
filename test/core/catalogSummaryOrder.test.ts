/**
 * The catalog's summary after a sync: a live write's count and value that arrive while the sync's summary is read
 * are newer than that read, and stay. The sandbox over loopback; the summary's answer is held in this process until
 * an item listed on the server has been written live and counted, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { adminApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('catalog summary after a sync', () => {
  const env = useEngineOnSandbox('catalog-summary-', { items: 20, seed: 39 }, { balance: 100_000 });

  it("keeps a live listing's totals that arrive while the sync's summary is read", async () => {
    const { sb, app } = env();
    const session = app.session();
    await session.startupSettled();
    const store = session.store;
    const read = store.catalogInfo.bind(store);
    let listed = false;
    store.catalogInfo = async () => {
      const answer = await read();
      if (!listed) {
        listed = true;
        // The sync's summary is read: an item is listed now, and its live write is counted before the answer lands.
        await adminApi(sb).post('/admin/items', { items: [{ itemId: 97_000_001, price: 2_500, steamId: null }] });
        await waitFor(() => session.catalog.totalItems === answer.totalItems + 1, 10_000, 'the live listing counted');
      }
      return answer;
    };

    await session.syncCatalog('test');
    expect(listed).toBe(true);
    const held = await read();
    expect(session.catalog.totalItems).toBe(held.totalItems);
    expect(session.catalog.totalValue).toBe(held.totalValue);
  }, 30_000);
});
