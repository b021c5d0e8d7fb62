import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item, Trade } from '../../src/shared/api';
import type { Notification } from '../../src/shared/ipc';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { FaultProxy } from '../support/faultProxy';
import { fastForward, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, merchantApi, tradeUrlFor, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * A half-open feed through the real engine: the WebSocket's TCP connection stays up but carries
 * nothing either way (no FIN), while trades move on the server. The engine notices the silence
 * (its heartbeat), drops the dead socket, reconnects and reconciles: every trade ends equal to
 * the server's, and each status reaches notifications at most once (each final status exactly once).
 * Everything runs on a fake clock fast-forwarded through the silence: the heartbeat's seconds are the engine's own.
 */

const FIELDS = ['status', 'offerId', 'errorCode', 'failReason', 'externalId', 'price', 'itemId'] as const;

describe('half-open feed (no FIN) through the engine', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let app: EngineHarness;
  let merchant: MerchantCredentials;
  let dataDir: string;

  beforeAll(async () => {
    useFlowingFakeClock();
    sb = await startSandbox({ items: 300, seed: 61 });
    proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'feed-half-open-'));
    app = await startEngine(dataDir, {
      baseUrl: proxy.baseUrl,
      wsUrl: proxy.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
    });
    await waitFor(() => app.session().connection.state === 'connected', 15_000, 'feed connected');
    await waitFor(async () => (await app.call('catalog.query', { limit: 1 })).total > 0, 20_000, 'first sync');
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await sb?.close();
    useRealClock();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('notices the silence, reconnects, ends with the server states and notifies each status once', async () => {
    const items = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: [500, 510, 520, 530].map((price) => ({ price })),
      })
    ).body.items;
    const tradeIds: string[] = [];
    for (const [i, item] of items.entries()) {
      const outcome = await app.call('buy.byId', {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        recipient: { tradeUrl: tradeUrlFor(72_000_000 + i) },
      });
      if (!outcome.ok) throw new Error(outcome.failure.message);
      tradeIds.push(outcome.trade.tradeId);
    }
    const [completed, declined, failed, sent] = tradeIds as [string, string, string, string];
    // Everyone SENT over a healthy feed first (seen and notified once).
    for (const id of tradeIds) await adminApi(sb).transition(id, { status: 'SENT' });
    await waitFor(
      async () => {
        const rows = (await app.call('trades.query', { limit: 50 })).rows;
        return tradeIds.every((id) => rows.find((t) => t.tradeId === id)?.status === 'SENT');
      },
      15_000,
      'SENT over the feed',
    );

    const upgradesBefore = proxy.requests.filter((r) => r.upgrade).length;
    const quieted = proxy.halfOpenWebSockets();
    expect(quieted).toBe(1);
    const silentSince = Date.now();
    // While the feed is a black hole, the trades end on the server (their frames go nowhere).
    await adminApi(sb).transition(completed, { status: 'COMPLETED' });
    await adminApi(sb).transition(declined, { status: 'CANCELLED', errorCode: 504 });
    await adminApi(sb).transition(failed, { status: 'FAILED' });
    // `sent` stays SENT: no news is no change.

    // Noticed by the heartbeat (nothing received for deadAfterMs), dropped, reconnected on a new connection.
    const noticed = () =>
      app.batches.some((b) => b.connection && b.connection.state !== 'connected' && Date.parse(b.at) >= silentSince);
    await fastForward(40_000, noticed);
    expect(noticed(), 'the dead feed noticed').toBe(true);
    const noticedAfter = Date.now() - silentSince;
    const reconnected = () =>
      proxy.requests.filter((r) => r.upgrade).length > upgradesBefore && app.session().connection.state === 'connected';
    await fastForward(40_000, reconnected);
    expect(reconnected(), 'reconnected').toBe(true);

    // The engine's trades equal the server's, field by field.
    const server = (await merchantApi(sb, merchant).get<{ trades: Trade[] }>('/Trades/History?limit=50')).body.trades;
    await waitFor(
      async () => {
        const local = (await app.call('trades.query', { limit: 50 })).rows;
        return server.every((s) => FIELDS.every((f) => local.find((t) => t.tradeId === s.tradeId)?.[f] === s[f]));
      },
      30_000,
      'trades equal to the server',
    );
    const local = (await app.call('trades.query', { limit: 50 })).rows;
    for (const s of server) {
      const mine = local.find((t) => t.tradeId === s.tradeId);
      for (const field of FIELDS) expect(mine?.[field], `${s.tradeId} ${field}`).toEqual(s[field]);
    }
    expect(local.find((t) => t.tradeId === sent)?.status).toBe('SENT');

    // Notifications: each (trade, status) at most once; each final status exactly once. Counted once a marker, `sent`
    // completing over the live feed, is announced and fully fetched with no request of the engine unanswered.
    await adminApi(sb).transition(sent, { status: 'COMPLETED' });
    const limiter = app.session().limiter;
    await waitFor(
      async () =>
        app.batches.some((b) => (b.notifications ?? []).some((n) => n.id === `trade:${sent}:COMPLETED`)) &&
        (await app.call('trades.get', { tradeId: sent }))?.trade.completedAt != null &&
        limiter.queued('default') === 0 &&
        limiter.unanswered('default') === 0,
      15_000,
      'the marker handled',
    );
    const notified = app.batches
      .flatMap((b) => b.notifications ?? [])
      .filter(
        (n): n is Notification & { target: { type: 'trade'; tradeId: string } } =>
          n.kind === 'trade' && n.target?.type === 'trade',
      );
    const ids = notified.map((n) => n.id);
    expect(ids.length).toBe(new Set(ids).size);
    for (const [tradeId, status] of [
      [completed, 'COMPLETED'],
      [declined, 'CANCELLED'],
      [failed, 'FAILED'],
    ] as const) {
      expect(
        ids.filter((id) => id === `trade:${tradeId}:${status}`),
        `${tradeId} ${status}`,
      ).toHaveLength(1);
    }
    for (const tradeId of tradeIds) expect(ids.filter((id) => id === `trade:${tradeId}:SENT`)).toHaveLength(1);
    process.stdout.write(
      `feed-half-open: silence noticed after ${(noticedAfter / 1000).toFixed(1)} s, reconnected and reconciled; ${notified.length} trade notifications, none twice\n`,
    );
  }, 120_000);
});
