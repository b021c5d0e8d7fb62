import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import type { StoredNotification } from '../../src/shared/ipc';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, tradeUrlFor, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * History nobody saw live is summed up, never told trade by trade: a new cache's first back-fill gives one
 * "Trade history loaded"; a catch-up (the feed back after an outage) with more than a handful of changes gives one
 * "Trades caught up"; a handful is still told trade by trade.
 */
describe('catch-ups tell one summary, not a flood', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function sandbox(): Promise<{ sb: Sandbox; merchant: MerchantCredentials; dir: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'engine-catchup-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const sb = await startSandbox({ items: 40, seed: 34 });
    cleanups.push(() => sb.close());
    const merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    return { sb, merchant, dir };
  }

  /** Trades made at the server directly, each to its own recipient. */
  async function trades(sb: Sandbox, merchant: MerchantCredentials, count: number, firstId: number): Promise<string[]> {
    const listed = await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
      items: Array.from({ length: count }, (_, i) => ({ itemId: firstId + i, price: 300 + i, steamId: null })),
    });
    return listed.body.items.map(
      (item, i) =>
        sb.core.buying.buy(merchant.merchantId, {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          tradeUrl: tradeUrlFor(50_000 + (firstId % 1000) + i),
        }).tradeId,
    );
  }

  async function launch(sb: Sandbox, merchant: MerchantCredentials, dir: string): Promise<EngineHarness> {
    const app = await startEngine(join(dir, 'app'), { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    cleanups.push(() => app.close());
    return app;
  }

  const notifications = async (app: EngineHarness): Promise<StoredNotification[]> =>
    (await app.call('notifications.list', { limit: 1000 })).rows;

  it("loads a new cache's history with one notification counting it, and tells none of its trades", async () => {
    const { sb, merchant, dir } = await sandbox();
    const admin = adminApi(sb);
    const ids = await trades(sb, merchant, 12, 7_340_000);
    for (const id of ids.slice(0, 8)) {
      await admin.transition(id, { status: 'SENT' });
      await admin.transition(id, { status: 'COMPLETED' });
    }
    for (const id of ids.slice(8, 10)) {
      await admin.transition(id, { status: 'SENT' });
      await admin.transition(id, { status: 'CANCELLED' });
    }

    const app = await launch(sb, merchant, dir);
    const loaded = await waitFor(
      async () => (await notifications(app)).find((n) => n.id.startsWith('trades-loaded:')) ?? null,
      20_000,
      'the history loaded',
    );
    expect(loaded).toMatchObject({
      title: 'Trade history loaded',
      body: '12 trades loaded; 2 failed, cancelled, declined or expired, 2 active',
      category: 'trade',
    });
    // The reconcile of the 14-day window ran too (the status bar's active count comes from it).
    await waitFor(() => app.session().activeTrades === 2, 10_000, 'the active trades');
    await app.session().reconcile('test');
    expect((await notifications(app)).map((n) => n.id)).toEqual([loaded.id]);
  });

  it('tells a catch-up of more than a handful in one summary, and a handful trade by trade', async () => {
    const { sb, merchant, dir } = await sandbox();
    const admin = adminApi(sb);
    const app = await launch(sb, merchant, dir);
    await waitFor(async () => (await app.session().store.getMeta('trades_history_mark')) !== null, 20_000, 'mark');
    const ids = await trades(sb, merchant, 9, 7_341_000);
    await waitFor(() => app.session().activeTrades === 9, 20_000, 'the live trades');

    /** The trades are sent while the marketplace is under maintenance (no feed, REST refused), then it ends. */
    const sentDuringMaintenance = async (sent: string[]) => {
      await admin.post('/admin/maintenance', { on: true });
      await app.session().feed.restart();
      await waitFor(() => app.session().connection.state === 'maintenance', 10_000, 'maintenance');
      for (const id of sent) await admin.transition(id, { status: 'SENT' });
      await admin.post('/admin/maintenance', { on: false });
      await app.session().feed.restart();
    };

    await sentDuringMaintenance(ids.slice(0, 7));
    const summary = await waitFor(
      async () => (await notifications(app)).find((n) => n.id.startsWith('trades-caught-up:')) ?? null,
      20_000,
      'the catch-up summary',
    );
    expect(summary.body).toBe('7 trade updates arrived together: 7 sent');
    await waitFor(async () => (await app.call('trades.get', { tradeId: ids[6] ?? '' }))?.trade.status === 'SENT');

    await sentDuringMaintenance(ids.slice(7));
    const told = await waitFor(
      async () => {
        const rows = (await notifications(app)).filter((n) => n.id.startsWith('trade:'));
        return rows.length >= 2 ? rows : null;
      },
      20_000,
      'the two sent trades told',
    );
    expect(told.map((n) => n.id).sort()).toEqual(
      ids
        .slice(7)
        .map((id) => `trade:${id}:SENT`)
        .sort(),
    );
    expect((await notifications(app)).filter((n) => n.id.startsWith('trades-caught-up:'))).toHaveLength(1);
  });
});
