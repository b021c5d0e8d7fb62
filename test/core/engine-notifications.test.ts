import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item } from '../../src/shared/api';
import type { StoredNotification } from '../../src/shared/ipc';
import { groupNotifications } from '../../src/shared/notifications';
import { DETAIL } from '../../src/main/core/feed/detail';
import { connectionNotification } from '../../src/main/core/notify/notificationCentre';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, tradeUrlFor } from '../support/sandboxHttp';

describe('notification centre, engine against the real sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness | null = null;

  beforeEach(async () => {
    sb = await startSandbox({ items: 40, seed: 2027 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-notifications-'));
  });

  afterEach(async () => {
    await app?.close();
    app = null;
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const launch = async () => {
    await app?.close();
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    return app;
  };
  const stored = async (harness: EngineHarness, predicate: (rows: StoredNotification[]) => boolean, what: string) =>
    waitFor(
      async () => {
        const page = await harness.call('notifications.list', { limit: 1000 });
        return predicate(page.rows) ? page : null;
      },
      20_000,
      what,
    );
  const lastUnread = (harness: EngineHarness) =>
    [...harness.batches].reverse().find((batch) => batch.unreadNotifications !== undefined)?.unreadNotifications;

  it('keeps trade notifications with severity, item, price and recipient (never the token), across a restart; mark-read updates the unread count', async () => {
    const items = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: Array.from({ length: 3 }, (_, i) => ({ itemId: 96_000_000 + i, price: 1_234 + i, steamId: null })),
      })
    ).body.items;
    const harness = await launch();
    await harness.call('recipients.save', { label: 'Alice alt', tradeUrl: tradeUrlFor(40_001) });
    const buy = (item: Item, partner: number) =>
      sb.core.buying.buy(merchant.merchantId, {
        itemId: item.itemId,
        assetId: item.assetId,
        price: item.price,
        tradeUrl: tradeUrlFor(partner),
      }).tradeId;
    const [a, b, c] = items as [Item, Item, Item];
    const delivered = buy(a, 40_001);
    const cancelled = buy(b, 40_002);
    const reversed = buy(c, 40_001);
    await waitFor(
      async () => (await harness.call('trades.query', { limit: 1 })).total === 3,
      20_000,
      'three trades cached',
    );
    const admin = adminApi(sb);
    for (const id of [delivered, cancelled, reversed]) await admin.transition(id, { status: 'SENT' });
    await admin.transition(delivered, { status: 'COMPLETED' });
    await admin.transition(cancelled, { status: 'CANCELLED' });
    await admin.transition(reversed, { status: 'COMPLETED' });
    await admin.transition(reversed, { status: 'REVERSED' });

    const page = await stored(
      harness,
      (rows) =>
        rows.some((n) => n.id === `trade:${reversed}:REVERSED`) &&
        rows.some((n) => n.id === `trade:${cancelled}:CANCELLED`),
      'the settled trades kept',
    );
    const byId = new Map(page.rows.map((n) => [n.id, n]));
    expect(byId.get(`trade:${delivered}:COMPLETED`)).toMatchObject({
      category: 'trade',
      severity: 'success',
      title: a.market_hash_name,
      readAt: null,
    });
    expect(byId.get(`trade:${delivered}:COMPLETED`)?.body).toBe('Trade $12.34 to Alice alt was delivered');
    expect(byId.get(`trade:${cancelled}:CANCELLED`)).toMatchObject({ severity: 'danger' });
    expect(byId.get(`trade:${cancelled}:CANCELLED`)?.body).toContain('to partner 40002');
    expect(byId.get(`trade:${reversed}:REVERSED`)).toMatchObject({ severity: 'warning' });
    expect(byId.get(`trade:${delivered}:SENT`)).toMatchObject({ severity: 'neutral' });
    expect(JSON.stringify(page.rows)).not.toContain('AbCd1234');
    await waitFor(() => lastUnread(harness) === page.unread, 10_000, 'the unread count in a batch');
    expect((await harness.engine.snapshot()).unreadNotifications).toBe(page.unread);

    const danger = await harness.call('notifications.list', { severities: ['danger'] });
    expect(danger.rows.map((n) => n.id)).toEqual([`trade:${cancelled}:CANCELLED`]);
    const marked = await harness.call('notifications.markRead', { ids: [`trade:${cancelled}:CANCELLED`] });
    expect(marked).toEqual({ marked: 1, unread: page.unread - 1 });
    await waitFor(() => lastUnread(harness) === page.unread - 1, 10_000, 'the lower unread count in a batch');

    // Kept in the account's file: a restart lists the same, read marks included, and notifies nothing twice.
    const restarted = await launch();
    const again = await restarted.call('notifications.list', { limit: 1000 });
    expect(again.rows.map((n) => [n.id, n.readAt === null])).toEqual(
      page.rows.map((n) => [n.id, n.id !== `trade:${cancelled}:CANCELLED`]),
    );
    expect((await restarted.engine.snapshot()).unreadNotifications).toBe(page.unread - 1);
    await restarted.call('notifications.markRead', { all: true });
    expect(await restarted.call('notifications.list', { unreadOnly: true })).toMatchObject({ rows: [], unread: 0 });
  });

  it('counts unread as the lines the centre shows: twenty trade changes in two bursts are two unread (snapshot, batch, list)', async () => {
    const items = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: Array.from({ length: 10 }, (_, i) => ({ itemId: 96_100_000 + i, price: 500 + i, steamId: null })),
      })
    ).body.items;
    const harness = await launch();
    const ids = items.map(
      (item) =>
        sb.core.buying.buy(merchant.merchantId, {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          tradeUrl: tradeUrlFor(40_020),
        }).tradeId,
    );
    await waitFor(
      async () => (await harness.call('trades.query', { limit: 1 })).total === ids.length,
      20_000,
      'the trades cached',
    );
    const admin = adminApi(sb);
    for (const id of ids) await admin.transition(id, { status: 'SENT' });
    // Two bursts: every "sent" kept before the first delivery (a loaded machine may otherwise interleave the two).
    await stored(harness, (rows) => rows.filter((n) => n.id.endsWith(':SENT')).length === ids.length, 'the sends kept');
    for (const id of ids) await admin.transition(id, { status: 'COMPLETED' });
    const page = await stored(
      harness,
      (rows) => rows.filter((n) => n.id.endsWith(':COMPLETED')).length === ids.length,
      'the deliveries kept',
    );
    const lines = groupNotifications(page.rows);
    expect(page.rows).toHaveLength(20);
    expect(lines.map((line) => line.title)).toEqual(['10 trades delivered', '10 trades sent']);
    expect(page.unread).toBe(2);
    await waitFor(() => lastUnread(harness) === 2, 10_000, 'two unread in a batch');
    expect((await harness.engine.snapshot()).unreadNotifications).toBe(2);
    // The screen's "Mark read" on one line.
    expect(
      await harness.call('notifications.markRead', {
        ids: (lines[0] as (typeof lines)[number]).members.map((n) => n.id),
      }),
    ).toEqual({ marked: 10, unread: 1 });
  });

  it('keeps an auto-buy and a budget skip as notifications (auto-buy: the item, price, rule; the skip amber)', async () => {
    const harness = await launch();
    await waitFor(async () => (await harness.call('catalog.query', { limit: 1 })).total > 0, 20_000, 'catalog');
    await waitFor(() => harness.session().balance !== null, 10_000, 'balance');
    const recipient = await harness.call('recipients.save', { label: 'Vault', tradeUrl: tradeUrlFor(40_010) });
    await harness.call('settings.update', { autoBuyDailyBudget: 1_500 });
    await harness.call('alerts.saveRule', {
      name: 'Bell sniper',
      namePattern: 'Bell Snipe',
      maxPrice: 1_000,
      autoBuy: { enabled: true, recipientId: recipient.id, spendCap: 1_000_000, dailyCap: 1_000_000 },
    });
    // Two matches of $9.00: the first is bought, the second would pass the $15.00 daily budget.
    await adminApi(sb).post('/admin/items', {
      items: [0, 1].map((i) => ({
        itemId: 97_000_001 + i,
        market_hash_name: `Bell Snipe ${i + 1} (Field-Tested)`,
        price: 900,
        phase: null,
      })),
    });
    const page = await stored(
      harness,
      (rows) =>
        rows.some((n) => n.category === 'auto-buy' && n.title.startsWith('Auto-buy placed')) &&
        rows.some((n) => n.id.startsWith('auto-buy-skip:')),
      'the auto-buy and the skip kept',
    );
    const placed = page.rows.find((n) => n.title.startsWith('Auto-buy placed'));
    expect(placed).toMatchObject({ kind: 'alert', category: 'auto-buy', severity: 'neutral', readAt: null });
    expect(placed?.title).toMatch(/^Auto-buy placed: Bell Snipe [12] \(Field-Tested\)$/);
    expect(placed?.body).toBe('Bell sniper: bought at $9.00; the trade follows in Trades');
    expect(placed?.target?.type).toBe('trade');
    expect(page.rows.find((n) => n.id.startsWith('auto-buy-skip:'))).toMatchObject({
      category: 'auto-buy',
      severity: 'warning',
    });
    expect(page.rows.filter((n) => n.category === 'alert').length).toBeGreaterThan(0);
    // Announced once: the firing is sent again whenever it changes.
    expect(page.rows.filter((n) => n.title.startsWith('Auto-buy placed'))).toHaveLength(1);
  });

  it('keeps maintenance and the way back as connection notifications (amber, then green)', async () => {
    const harness = await launch();
    await waitFor(() => harness.engine.snapshot().then((s) => s.connection.state === 'connected'), 20_000, 'connected');
    await adminApi(sb).post('/admin/maintenance', { on: true });
    const down = await stored(
      harness,
      (rows) => rows.some((n) => n.category === 'connection'),
      'a maintenance notification',
    );
    expect(down.rows.find((n) => n.category === 'connection')).toMatchObject({
      kind: 'system',
      severity: 'warning',
      title: 'Marketplace in maintenance',
    });
    await adminApi(sb).post('/admin/maintenance', { on: false });
    await harness.call('connection.retryNow');
    const back = await stored(
      harness,
      (rows) => rows.some((n) => n.category === 'connection' && n.severity === 'success'),
      'a notification of the way back',
    );
    expect(back.rows.filter((n) => n.category === 'connection').map((n) => n.title)).toEqual([
      'Connected to the marketplace again',
      'Marketplace in maintenance',
    ]);
  });

  it('keeps a connection notification true later: no frozen "retrying in 30 s" in its text', () => {
    const since = '2026-11-28T12:00:00.000Z';
    const maintenance = connectionNotification(
      {
        state: 'maintenance',
        detail: DETAIL.maintenanceIn('Server', 30_000),
        nextAttemptAt: '2026-11-28T12:00:30.000Z',
        since,
      },
      'maintenance',
      since,
    );
    expect(maintenance.body).toBe('Server under maintenance; retrying');
    const offline = connectionNotification(
      { state: 'offline', detail: DETAIL.offlineIn('connection refused', 16_000, 3), nextAttemptAt: null, since },
      'down',
      since,
    );
    expect(offline.body).toBe('Cannot reach the server (connection refused); retrying (attempt 3)');
  });
});
