import { afterEach, describe, expect, it } from 'vitest';
import { busyMerchantBehindProxy } from '../support/engineOnSandbox';
import { waitFor } from '../support/waitFor';

/**
 * A new cache's first ledger sync pages the merchant's whole ledger, newest first. Stopped after some pages (the app
 * closed, a crash) and started again, the next sync must still bring the older entries it never stored: every entry
 * of the server, once, not only those since the newest one held.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The page number of a `Wallet/BalanceHistory` request of a first sync (no `from`, no filter); null for any other. */
function firstSyncPage(path: string): number | null {
  if (!path.startsWith('/Wallet/BalanceHistory?')) return null;
  const params = new URLSearchParams(path.slice(path.indexOf('?') + 1));
  if (['from', 'to', 'type', 'tradeId'].some((k) => params.has(k))) return null;
  return Number(params.get('page') ?? '1');
}

describe('the first ledger sync', () => {
  it('stopped after two pages, completes after a restart: every ledger entry of the server, once', async () => {
    const { sb, proxy, merchant, launch } = await busyMerchantBehindProxy(
      'engine-ledger-resume-',
      {
        items: 40,
        seed: 34,
        busyMerchant: {
          days: 2,
          tradesPerDay: 1_400,
          recipients: 400,
          endAt: new Date(Date.now() - 3_600_000).toISOString(),
        },
      },
      cleanups,
    );
    const serverIds = () =>
      sb.core.db.prepare('SELECT id FROM ledger WHERE merchant_id = ?').pluck().all(merchant.merchantId) as number[];
    expect(serverIds().length).toBeGreaterThan(5 * 500);

    // The third page of the first sync is never answered: the run stops with two pages stored.
    const asked = () => proxy.requests.filter((r) => (firstSyncPage(r.path) ?? 0) >= 3).length;
    const stopSync = proxy.inject((_method, path) => (firstSyncPage(path) ?? 0) >= 3, { kind: 'mute' });
    const first = await launch();
    await waitFor(() => asked() >= 1, 60_000, 'the third ledger page asked for');
    const stored = (await first.session().store.queryLedger({ limit: 1 })).total;
    expect(stored).toBe(2 * 500);
    await first.close();
    stopSync();

    const second = await launch();
    await second.session().startupSettled();
    const held = async () => {
      const ids: number[] = [];
      const store = second.session().store;
      for (let offset = 0; ; offset += 1000) {
        const page = await store.queryLedger({ offset, limit: 1000 });
        ids.push(...page.rows.map((row) => row.id));
        if (page.rows.length < 1000) return ids;
      }
    };
    // The server's ledger as it is now (the history's offers still SENT an hour ago expired at the sandbox's start).
    const server = serverIds();
    expect((await second.session().store.queryLedger({ limit: 1 })).total).toBe(server.length);
    const ids = await held();
    expect(ids).toHaveLength(server.length);
    expect(new Set(ids)).toEqual(new Set(server));
  }, 120_000);
});
