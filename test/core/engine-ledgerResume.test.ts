import { afterEach, describe, expect, it } from 'vitest';
import { busyMerchantBehindProxy, type BusyMerchantBehindProxy } from '../support/engineOnSandbox';
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

/** A busy merchant with a ledger of more than five pages, and its ledger's ids as the server holds them now. */
async function busyMerchant(
  prefix: string,
  seed: number,
): Promise<BusyMerchantBehindProxy & { serverIds(): number[] }> {
  const busy = await busyMerchantBehindProxy(
    prefix,
    {
      items: 40,
      seed,
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
    busy.sb.core.db
      .prepare('SELECT id FROM ledger WHERE merchant_id = ?')
      .pluck()
      .all(busy.merchant.merchantId) as number[];
  expect(serverIds().length).toBeGreaterThan(5 * 500);
  return { ...busy, serverIds };
}

/** Started again on the same folder: once the start-up settles, the cache holds every entry of the server, once. */
async function expectEveryServerEntryAfterRestart({
  launch,
  serverIds,
}: Pick<BusyMerchantBehindProxy, 'launch'> & { serverIds(): number[] }): Promise<void> {
  const second = await launch();
  await second.session().startupSettled();
  const store = second.session().store;
  const ids: number[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await store.queryLedger({ offset, limit: 1000 });
    ids.push(...page.rows.map((row) => row.id));
    if (page.rows.length < 1000) break;
  }
  // The server's ledger as it is now (the history's offers still SENT an hour ago expired at the sandbox's start).
  const server = serverIds();
  expect(ids).toHaveLength(server.length);
  expect(new Set(ids)).toEqual(new Set(server));
}

describe('the first ledger sync', () => {
  it('stopped after two pages, completes after a restart: every ledger entry of the server, once', async () => {
    const busy = await busyMerchant('engine-ledger-resume-', 34);
    // The third page of the first sync is never answered: the run stops with two pages stored.
    const asked = () => busy.proxy.requests.filter((r) => (firstSyncPage(r.path) ?? 0) >= 3).length;
    const stopSync = busy.proxy.inject((_method, path) => (firstSyncPage(path) ?? 0) >= 3, { kind: 'mute' });
    const first = await busy.launch();
    await waitFor(() => asked() >= 1, 60_000, 'the third ledger page asked for');
    expect((await first.session().store.queryLedger({ limit: 1 })).total).toBe(2 * 500);
    await first.close();
    stopSync();

    await expectEveryServerEntryAfterRestart(busy);
  }, 120_000);

  it('stopped right after its first page was written, completes after a restart', async () => {
    const busy = await busyMerchant('engine-ledger-stopped-write-', 35);
    // The first page's answer waits at the proxy until the store's write is wrapped: the run ends right after that
    // write returns (as a crash or a closed app would end it there), before anything else the sync does.
    let release = () => {};
    busy.proxy.inject((_method, path) => firstSyncPage(path) === 1, {
      kind: 'hold',
      release: new Promise<void>((resolve) => (release = resolve)),
      times: 1,
    });
    const first = await busy.launch();
    const store = first.session().store;
    const write = store.insertLedger.bind(store);
    store.insertLedger = async (...args) => {
      await write(...args);
      throw new Error('stopped right after the write');
    };
    release();
    await waitFor(
      () => first.logs.some((line) => line.includes('stopped right after the write')),
      60_000,
      'the first page written, the sync stopped',
    );
    expect((await store.queryLedger({ limit: 1 })).total).toBeLessThan(busy.serverIds().length);
    await first.close();

    await expectEveryServerEntryAfterRestart(busy);
  }, 120_000);
});
