// Operations → Failures against the real sandbox: each outcome code forced through the sandbox's admin transition,
// counted per day and hour with its value and opening its trades; the refusals the buy service saw (item
// unavailable, price too high, insufficient balance, partner blocked, price changed, too many active trades) recorded and listed; the live "failures
// changed" event; the CSV; bad ranges refused with a clear error. (Rate-limit and maintenance refusals need a proxy
// or the sandbox's maintenance: engine-buy.test.ts checks them on the board.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item, TradeStatus } from '../../src/shared/api';
import type { BuyOutcome, FailuresBoard } from '../../src/shared/ipc';
import { type EngineHarness, startEngine, waitForFeedAndBalance } from '../support/faults/harness';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, tradeUrlFor } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

const holder = (n: number) => `7656119${String(n).padStart(10, '0')}`;

function tradeOf(outcome: BuyOutcome) {
  if (!outcome.ok) throw new Error(`expected a trade, got ${outcome.failure.code}: ${outcome.failure.message}`);
  return outcome.trade;
}

const cell = (board: FailuresBoard, at: string, key: string) => board.days.find((d) => d.at === at)?.cells[key];

describe('the failures board against the sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;
  let nextItemId = 93_000_000;
  let holders = 0;

  async function listings(specs: Partial<Item>[]): Promise<Item[]> {
    const items = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: specs.map((spec) => ({ itemId: nextItemId++, steamId: holder(++holders), ...spec })),
      })
    ).body.items;
    const last = items[items.length - 1] as Item;
    await waitFor(
      async () => (await app.call('catalog.item', { itemId: last.itemId }))?.onSale === true,
      10_000,
      'the listings in the cache',
    );
    return items;
  }

  const byId = (item: Item, partner: number) =>
    app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      recipient: { tradeUrl: tradeUrlFor(partner) },
    });

  async function ending(item: Item, partner: number, status: TradeStatus, errorCode: number | null): Promise<string> {
    const trade = tradeOf(await byId(item, partner));
    await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
    await adminApi(sb).transition(trade.tradeId, { status, errorCode });
    return trade.tradeId;
  }

  beforeAll(async () => {
    sb = await startSandbox({ items: 20, seed: 35 });
    merchant = await adminApi(sb).createMerchant({ balance: 200_000, reveal: { steamId: true } });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-failures-'));
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    await waitForFeedAndBalance(app);
  }, 30_000);

  afterAll(async () => {
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts each outcome code per day and hour with its value, opens its trades, and follows live updates', async () => {
    const items = await listings([1001, 1002, 1003, 1004, 1005, 1006, 1007].map((price) => ({ price })));
    const [a, b, c, d, e, f, g] = items as [Item, Item, Item, Item, Item, Item, Item];
    const expired = await ending(a, 60_001, 'EXPIRED', 503);
    const declined = await ending(b, 60_002, 'CANCELLED', 504);
    await ending(c, 60_003, 'CANCELLED', 505);
    await ending(d, 60_004, 'CANCELLED', 506);
    await ending(e, 60_005, 'FAILED', 500);
    const declinedToo = await ending(f, 60_006, 'CANCELLED', 504);
    const delivered = tradeOf(await byId(g, 60_007));
    await adminApi(sb).transition(delivered.tradeId, { status: 'SENT' });
    await adminApi(sb).transition(delivered.tradeId, { status: 'COMPLETED' });

    const today = new Date().toISOString().slice(0, 10);
    const hour = new Date().toISOString().slice(0, 13);
    let board = await app.call('operations.failures');
    await waitFor(
      async () => {
        board = await app.call('operations.failures');
        return (
          cell(board, today, 'trade:FAILED:500')?.count === 1 && cell(board, today, 'trade:CANCELLED:504')?.count === 2
        );
      },
      15_000,
      'the outcomes on the board',
    );
    expect(board.today).toBe(today);
    expect(board.days).toHaveLength(30);
    expect(board.days[0]?.at).toBe(today);
    expect(cell(board, today, 'trade:EXPIRED:503')).toEqual({ count: 1, value: 1001 });
    expect(cell(board, today, 'trade:CANCELLED:504')).toEqual({ count: 2, value: 1002 + 1006 });
    expect(cell(board, today, 'trade:CANCELLED:505')).toEqual({ count: 1, value: 1003 });
    expect(cell(board, today, 'trade:CANCELLED:506')).toEqual({ count: 1, value: 1004 });
    expect(cell(board, today, 'trade:FAILED:500')).toEqual({ count: 1, value: 1005 });
    expect(board.days[0]?.total).toEqual({ count: 6, value: 1001 + 1002 + 1003 + 1004 + 1005 + 1006 });
    expect(board.hours.find((h) => h.at === hour)?.cells['trade:CANCELLED:504']).toEqual({ count: 2, value: 2008 });
    expect(board.reasons.slice(0, 5).map((r) => r.label)).toEqual([
      'Expired (503)',
      'Declined (504)',
      'Sold elsewhere (505)',
      'Countered (506)',
      'Platform error (500)',
    ]);

    // A cell opens its trades: the day's range, its status and its code.
    const range = { from: `${today}T00:00:00.000Z`, to: `${today}T23:59:59.999Z` };
    const declines = await app.call('trades.query', { ...range, statuses: ['CANCELLED'], errorCode: 504 });
    expect(declines.rows.map((t) => t.tradeId).sort()).toEqual([declined, declinedToo].sort());
    expect(declines.total).toBe(2);
    const expiries = await app.call('trades.query', { ...range, statuses: ['EXPIRED'], errorCode: 503 });
    expect(expiries.rows.map((t) => t.tradeId)).toEqual([expired]);

    // A live change: the event tells, and the board read again shows it.
    const [h] = await listings([{ price: 1500 }]);
    const seen = app.batches.length;
    await ending(h as Item, 60_008, 'CANCELLED', 505);
    await waitFor(
      () => app.batches.slice(seen).some((batch) => batch.failuresChanged === true),
      5_000,
      'failuresChanged',
    );
    board = await app.call('operations.failures');
    expect(cell(board, today, 'trade:CANCELLED:505')).toEqual({ count: 2, value: 1003 + 1500 });

    const { filename, csv } = await app.call('operations.failuresCsv');
    expect(filename).toMatch(/^failures-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toBe('period,kind,status_or_code,error_code,reason,count,value_usd');
    expect(lines).toContain(`${today},trade,CANCELLED,504,Declined (504),2,20.08`);
  }, 90_000);

  it('records the refusals the desk saw and lists each cell’s', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const [sold, dear, rich] = (await listings([
      { price: 700 },
      { price: 2500, market_hash_name: 'MP9 | Failure Board (Minimal Wear)', phase: null },
      { price: 900_000, market_hash_name: 'AWP | Failure Board (Factory New)', phase: null },
    ])) as [Item, Item, Item];
    tradeOf(await byId(sold, 61_001));
    const unavailable = await byId(sold, 61_002);
    expect(unavailable.ok ? null : unavailable.failure.code).toBe('item_unavailable');
    const tooHigh = await app.call('buy.byName', {
      market_hash_name: dear.market_hash_name,
      maxPrice: 2000,
      recipient: { tradeUrl: tradeUrlFor(61_003) },
    });
    expect(tooHigh.ok ? null : tooHigh.failure.code).toBe('price_too_high');
    const poor = await app.call('buy.byName', {
      market_hash_name: rich.market_hash_name,
      maxPrice: 900_000,
      recipient: { tradeUrl: tradeUrlFor(61_004) },
    });
    expect(poor.ok ? null : poor.failure.code).toBe('insufficient_balance');
    // Ten declines to one recipient block it: the eleventh buy is refused partner_blocked.
    const owner = 61_005;
    const many = await listings(Array.from({ length: 11 }, (_, i) => ({ price: 300 + i })));
    for (const item of many.slice(0, 10)) await ending(item, owner, 'CANCELLED', 504);
    const blocked = await byId(many[10] as Item, owner);
    expect(blocked.ok ? null : blocked.failure.code).toBe('partner_blocked');

    let board = await app.call('operations.failures', { from: today, to: today });
    await waitFor(
      async () => {
        board = await app.call('operations.failures', { from: today, to: today });
        return cell(board, today, 'refusal:partner_blocked')?.count === 1;
      },
      10_000,
      'the refusals on the board',
    );
    expect(board.days).toHaveLength(1);
    expect(cell(board, today, 'refusal:item_unavailable')).toEqual({ count: 1, value: 700 });
    expect(cell(board, today, 'refusal:price_too_high')).toEqual({ count: 1, value: 2000 });
    expect(cell(board, today, 'refusal:insufficient_balance')).toEqual({ count: 1, value: 900_000 });
    expect(cell(board, today, 'refusal:partner_blocked')).toEqual({ count: 1, value: 310 });
    expect(app.batches.some((batch) => batch.failuresChanged === true)).toBe(true);

    const list = await app.call('operations.refusals', { from: today, to: today, code: 'price_too_high' });
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      code: 'price_too_high',
      market_hash_name: dear.market_hash_name,
      price: 2000,
      partner: 61_003,
      itemId: null,
    });
    expect(list[0]?.detail).toContain('exceeds maxPrice');
    const unavailableList = await app.call('operations.refusals', {
      from: today,
      to: today,
      hour: new Date().getUTCHours(),
      code: 'item_unavailable',
    });
    expect(unavailableList[0]).toMatchObject({
      itemId: sold.itemId,
      market_hash_name: sold.market_hash_name,
      partner: 61_002,
    });
  }, 90_000);

  it('records a changed price and a holder at its five active offers as refusals on the board', async () => {
    const today = new Date().toISOString().slice(0, 10);
    // One holding account's six listings: the sixth buy meets its five active offers.
    const sameHolder = holder(9_999);
    const held = await listings(Array.from({ length: 6 }, (_, i) => ({ price: 400 + i, steamId: sameHolder })));
    for (const [i, item] of held.slice(0, 5).entries()) tradeOf(await byId(item, 62_001 + i));
    const busy = await byId(held[5] as Item, 62_010);
    expect(busy.ok ? null : busy.failure.code).toBe('too_many_active_trades');
    // A buy at a price the listing no longer has.
    const [moved] = (await listings([{ price: 1_200 }])) as [Item];
    const changed = await app.call('buy.byId', {
      itemId: moved.itemId,
      assetId: moved.assetId,
      price: 1_100,
      recipient: { tradeUrl: tradeUrlFor(62_011) },
    });
    expect(changed.ok ? null : changed.failure.code).toBe('price_changed');

    const board = await waitFor(
      async () => {
        const read = await app.call('operations.failures', { from: today, to: today });
        return cell(read, today, 'refusal:price_changed') && cell(read, today, 'refusal:too_many_active_trades')
          ? read
          : null;
      },
      10_000,
      'both refusals on the board',
    );
    expect(cell(board, today, 'refusal:too_many_active_trades')).toEqual({ count: 1, value: 405 });
    expect(cell(board, today, 'refusal:price_changed')).toEqual({ count: 1, value: 1_100 });
    const listed = await app.call('operations.refusals', { from: today, to: today, code: 'price_changed' });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ code: 'price_changed', itemId: moved.itemId, partner: 62_011 });
  }, 60_000);

  it('refuses a reversed, absurd or malformed range with a clear error', async () => {
    const reversed = await dispatchIpc(app.engine, 'operations.failures', { from: '2026-03-10', to: '2026-03-01' });
    expect(reversed).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(reversed.ok ? '' : reversed.error.message).toMatch(
      /reversed: it starts 2026-03-10, after its end 2026-03-01/,
    );
    const absurd = await dispatchIpc(app.engine, 'operations.failures', { from: '2000-01-01', to: '2026-03-01' });
    expect(absurd.ok ? '' : absurd.error.message).toMatch(/at most 400 days/);
    const malformed = await dispatchIpc(app.engine, 'operations.failures', { from: '2026-02-30', to: '2026-03-01' });
    expect(malformed.ok ? '' : malformed.error.message).toMatch(/Not a calendar day/);
    const outOfRange = await dispatchIpc(app.engine, 'operations.failures', { from: '2026-99-99', to: '2026-03-01' });
    expect(outOfRange.ok ? '' : outOfRange.error.message).toMatch(/Not a calendar day/);
    const code = await dispatchIpc(app.engine, 'operations.refusals', {
      from: '2026-03-01',
      to: '2026-03-01',
      code: 'nope',
    });
    expect(code).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const errorCode = await dispatchIpc(app.engine, 'trades.query', { errorCode: -1 });
    expect(errorCode).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});
