import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, TEST_TRADE_URL } from '../support/sandboxHttp';

/**
 * The catch-up after a connect can fail on our side too (the cache refuses a write: a full disk, a damaged file).
 * That is no reason to stay "catching up" until the next reconnect: it is tried again after a backoff, as after a
 * failed request, and the account goes live once the cache takes the writes again.
 */
describe('a catch-up the cache refused', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('is tried again after a backoff, and the account goes live once the cache takes writes again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-cache-failure-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const sb = await startSandbox({ items: 30, seed: 41 });
    cleanups.push(() => sb.close());
    const admin = adminApi(sb);
    const merchant = await admin.createMerchant({ balance: 1_000_000 });
    const account = { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant };
    const dataDir = join(dir, 'app');

    // A cache that exists, then a trade made while the desk was closed: the next start's catch-up must store it.
    const first = await startEngine(dataDir, account);
    await waitFor(() => first.session().connection.state === 'connected', 15_000, 'live the first time');
    await first.close();
    const item = (await admin.post<{ items: Item[] }>('/admin/items', { items: [{ itemId: 4_100_001, price: 450 }] }))
      .body.items[0] as Item;
    const tradeId = sb.core.buying.buy(merchant.merchantId, {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: TEST_TRADE_URL,
    }).tradeId;

    // The cache refuses every trade write, as a disk that fails would.
    const file = new Database(accountStoreFile(dataDir, merchant.merchantId));
    cleanups.push(() => void file.close());
    file.exec(`
      CREATE TRIGGER refuse_trade_insert BEFORE INSERT ON trades BEGIN SELECT RAISE(ABORT, 'disk I/O refused'); END;
      CREATE TRIGGER refuse_trade_update BEFORE UPDATE ON trades BEGIN SELECT RAISE(ABORT, 'disk I/O refused'); END;
    `);

    const app: EngineHarness = await startEngine(dataDir, account);
    cleanups.push(() => app.close());
    await waitFor(
      () => app.logs.some((line) => line.startsWith('reconcile (feed connected)') && line.includes('disk I/O refused')),
      15_000,
      'the catch-up refused by the cache',
    );
    expect(app.session().connection.state).toBe('connecting');

    file.exec('DROP TRIGGER refuse_trade_insert; DROP TRIGGER refuse_trade_update;');
    await waitFor(() => app.session().connection.state === 'connected', 20_000, 'live once the cache takes writes');
    expect((await app.call('trades.get', { tradeId }))?.trade.status).toBe('PENDING');
  }, 60_000);
});
