import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  BalanceHistoryPage,
  BalanceTransaction,
  BuyResult,
  CatalogEnvelope,
  Item,
  Trade,
  TradeHistoryPage,
} from '../../src/shared/api';
import { DEMO_MERCHANT } from '../../src/server/config';
import { ITEMS_GONE_BEFORE_SEND } from '../../src/server/domain/core';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, at, merchantApi, tradeUrlFor } from '../support/sandboxHttp';

type ErrorBody = { error: string; message: string };
const MINUTE = 60;

describe('sandbox admin helpers', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let partner = 70_000;

  beforeEach(async () => {
    sb = await startSandbox({ items: 150, seed: 17, demoMerchant: true });
    admin = adminApi(sb);
  });
  afterEach(() => sb.close());

  const demo = (): MerchantCredentials => sb.demo as MerchantCredentials;

  async function ledger(merchant: MerchantCredentials): Promise<BalanceTransaction[]> {
    return (await merchantApi(sb, merchant).get<BalanceHistoryPage>('/Wallet/BalanceHistory?limit=500')).body
      .transactions;
  }

  async function balance(merchant: MerchantCredentials): Promise<number> {
    return (await merchantApi(sb, merchant).get<{ balance: number }>('/Wallet/GetBalance')).body.balance;
  }

  /** lastUpdate as the public API shows it (SearchItems: the 300/min bucket, not the catalog's 10/min). */
  async function lastUpdate(): Promise<string> {
    return (await merchantApi(sb, demo()).post<CatalogEnvelope>('/Items/SearchItems', { itemId: [1] })).body.lastUpdate;
  }

  /** A rebuild fires when the clock reaches lastUpdate + 5 min; real time keeps flowing while it runs (a few ms). */
  function expectAfterFiveMinutes(previous: string, next: string): void {
    const gap = Date.parse(next) - Date.parse(previous);
    expect(gap).toBeGreaterThanOrEqual(5 * MINUTE * 1000);
    expect(gap).toBeLessThan(5 * MINUTE * 1000 + 1000);
  }

  async function clockNow(): Promise<number> {
    return Date.parse((await admin.get<{ now: string }>('/admin/clock')).body.now);
  }

  async function listItem(partial: Partial<Item> = {}): Promise<Item> {
    return at(
      (await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 800, ...partial }] })).body.items,
    );
  }

  async function buy(merchant: MerchantCredentials, item: Item): Promise<BuyResult> {
    const answer = await merchantApi(sb, merchant).post<BuyResult>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(partner++),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  }

  async function tradeOf(merchant: MerchantCredentials, tradeId: string): Promise<Trade> {
    return at(
      (await merchantApi(sb, merchant).get<TradeHistoryPage>(`/Trades/History?tradeId=${tradeId}`)).body.trades,
    );
  }

  async function onSale(itemId: number): Promise<boolean> {
    return (
      (await merchantApi(sb, demo()).post<CatalogEnvelope>('/Items/SearchItems', { itemId: [itemId] })).body
        .totalItems === 1
    );
  }

  describe('balances', () => {
    it('records ADMIN DEDUCT as a negative amount; top-ups and deposits as positive', async () => {
      const merchant = await admin.createMerchant({ balance: 100_000 });
      const deduct = await admin.post<BalanceTransaction>(`/admin/merchants/${merchant.merchantId}/balance`, {
        type: 'ADMIN DEDUCT',
        amount: 2_500,
        note: 'chargeback fee',
      });
      expect(deduct.status).toBe(201);
      expect(deduct.body).toMatchObject({
        type: 'ADMIN DEDUCT',
        amount: -2_500,
        balanceBefore: 100_000,
        balanceAfter: 97_500,
        tradeId: null,
        note: 'chargeback fee',
        market_hash_name: null,
        phase: null,
      });
      const topUp = await admin.post<BalanceTransaction>(`/admin/merchants/${merchant.merchantId}/balance`, {
        type: 'ADMIN TOP UP',
        amount: 500,
      });
      const deposit = await admin.post<BalanceTransaction>(`/admin/merchants/${merchant.merchantId}/balance`, {
        type: 'CRYPTO DEPOSIT',
        amount: 1_000,
      });
      expect([topUp.body.amount, deposit.body.amount]).toEqual([500, 1_000]);
      expect(await balance(merchant)).toBe(99_000);

      // The merchant sees the same entries, newest first, the deduction stored negative.
      const entries = await ledger(merchant);
      expect(entries.map((e) => [e.type, e.amount])).toEqual([
        ['CRYPTO DEPOSIT', 1_000],
        ['ADMIN TOP UP', 500],
        ['ADMIN DEDUCT', -2_500],
        ['ADMIN TOP UP', 100_000],
      ]);
      expect(at(entries, 2)).toEqual(deduct.body);
      const deductions = (
        await merchantApi(sb, merchant).get<BalanceHistoryPage>('/Wallet/BalanceHistory?type=ADMIN%20DEDUCT')
      ).body;
      expect(deductions.transactions.map((e) => e.amount)).toEqual([-2_500]);

      // The amount is a positive number of cents; the type gives the sign.
      for (const amount of [0, -5, 1.5]) {
        const refused = await admin.post<ErrorBody>(`/admin/merchants/${merchant.merchantId}/balance`, {
          type: 'ADMIN DEDUCT',
          amount,
        });
        expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
      }
      expect(await balance(merchant)).toBe(99_000);
    });

    it('PATCH {balance} reaches the new balance through one ledger entry of the difference', async () => {
      const merchant = await admin.createMerchant({ balance: 10_000, creditLimit: 500 });
      const up = await admin.patch<{ balance: number; totalAvailable: number }>(
        `/admin/merchants/${merchant.merchantId}`,
        { balance: 25_000 },
      );
      expect(up.status).toBe(200);
      expect(up.body).toMatchObject({ balance: 25_000, totalAvailable: 25_500 });
      await admin.patch(`/admin/merchants/${merchant.merchantId}`, { balance: 4_000 });
      // The same balance again writes nothing.
      await admin.patch(`/admin/merchants/${merchant.merchantId}`, { balance: 4_000, creditLimit: 700 });
      const entries = await ledger(merchant);
      expect(
        entries.map((e) => ({
          type: e.type,
          amount: e.amount,
          before: e.balanceBefore,
          after: e.balanceAfter,
          note: e.note,
        })),
      ).toEqual([
        { type: 'ADMIN DEDUCT', amount: -21_000, before: 25_000, after: 4_000, note: 'Balance set by administrator' },
        { type: 'ADMIN TOP UP', amount: 15_000, before: 10_000, after: 25_000, note: 'Balance set by administrator' },
        { type: 'ADMIN TOP UP', amount: 10_000, before: 0, after: 10_000, note: 'Starting balance' },
      ]);
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(4_000);
      expect((await merchantApi(sb, merchant).get('/Wallet/GetBalance')).body).toEqual({
        balance: 4_000,
        credit_limit: 700,
        total_available: 4_700,
      });
    });
  });

  describe('reset', () => {
    it('returns to the seeded state: catalog, no trades, the demo merchant with its starting ledger only', async () => {
      const seededCatalog = (await merchantApi(sb, demo()).get<CatalogEnvelope>('/Items/GetAllItemsOnSale')).body;
      const seededLedger = await ledger(demo());
      expect(seededLedger.map((e) => [e.id, e.type, e.amount])).toEqual([[1, 'ADMIN TOP UP', DEMO_MERCHANT.balance]]);

      // Change everything a test can change.
      const other = await admin.createMerchant({ balance: 5_000 });
      const first = at(seededCatalog.items);
      const bought = await buy(demo(), first);
      await admin.transition(bought.tradeId, { status: 'SENT' });
      await admin.post(`/admin/merchants/${demo().merchantId}/balance`, { type: 'ADMIN DEDUCT', amount: 100 });
      await admin.patch(`/admin/items/${at(seededCatalog.items, 1).itemId}`, { price: 1 });
      await admin.delete(`/admin/items/${at(seededCatalog.items, 2).itemId}`);
      await listItem({ itemId: 9_999_999 });
      await admin.post('/admin/maintenance', { on: true });
      await admin.advance(3 * MINUTE);

      const reset = await admin.post<{ reset: boolean; totalItems: number; totalValue: number }>('/admin/reset');
      expect(reset.status).toBe(200);
      expect(reset.body).toEqual({
        reset: true,
        totalItems: seededCatalog.totalItems,
        totalValue: seededCatalog.totalValue,
      });

      // The catalog is the generated one again, item for item; only lastUpdate is new.
      const catalog = (await merchantApi(sb, demo()).get<CatalogEnvelope>('/Items/GetAllItemsOnSale')).body;
      expect(catalog.items).toEqual(seededCatalog.items);
      expect([catalog.totalItems, catalog.totalValue]).toEqual([seededCatalog.totalItems, seededCatalog.totalValue]);
      expect(Date.parse(catalog.lastUpdate)).toBeGreaterThan(Date.parse(seededCatalog.lastUpdate));
      // The demo merchant keeps its credentials, with nothing but its starting balance.
      expect((await merchantApi(sb, demo()).get<TradeHistoryPage>('/Trades/History')).body).toEqual({
        trades: [],
        total: 0,
        limit: 50,
        page: 1,
      });
      expect(await ledger(demo())).toEqual([{ ...at(seededLedger), createdAt: expect.any(String) }]);
      expect((await merchantApi(sb, demo()).get('/Wallet/GetBalance')).body).toEqual({
        balance: DEMO_MERCHANT.balance,
        credit_limit: DEMO_MERCHANT.creditLimit,
        total_available: DEMO_MERCHANT.balance + DEMO_MERCHANT.creditLimit,
      });
      // Other merchants are gone; maintenance is off; the webhook log is empty.
      expect((await merchantApi(sb, other).get('/Wallet/GetBalance')).status).toBe(401);
      expect((await admin.get(`/admin/merchants/${other.merchantId}`)).status).toBe(404);
      expect((await admin.get<{ deliveries: unknown[] }>('/admin/webhooks')).body.deliveries).toEqual([]);
      expect((await admin.get(`/admin/trades/${bought.tradeId}`)).status).toBe(404);
    });

    it('forgets rate-limit windows', async () => {
      const api = merchantApi(sb, demo());
      for (let i = 0; i < 10; i++) expect((await api.get('/Items/GetAllItemsOnSale')).status).toBe(200);
      expect((await api.get('/Items/GetAllItemsOnSale')).status).toBe(429);
      expect((await admin.post('/admin/reset')).status).toBe(200);
      const again = await api.get('/Items/GetAllItemsOnSale');
      expect(again.status).toBe(200);
      expect(again.headers.get('x-ratelimit-remaining')).toBe('9');
    });

    it('re-arms the 5-minute rebuild from the new lastUpdate', async () => {
      const before = await lastUpdate();
      await admin.advance(3 * MINUTE);
      expect((await admin.post('/admin/reset')).status).toBe(200);
      const seeded = await lastUpdate();
      expect(Date.parse(seeded)).toBeGreaterThanOrEqual(Date.parse(before) + 3 * MINUTE * 1000);
      // The old schedule (2 minutes from now) no longer rebuilds…
      await admin.advance(4 * MINUTE);
      expect(await lastUpdate()).toBe(seeded);
      // …the new one does, 5 minutes after the reset's lastUpdate.
      await admin.advance(MINUTE + 1);
      expectAfterFiveMinutes(seeded, await lastUpdate());
    });
  });

  describe('catalog rebuild', () => {
    it('gives a new lastUpdate on POST /admin/catalog/rebuild and after every 5 minutes of clock time', async () => {
      const first = await lastUpdate();
      await admin.advance(10);
      const rebuilt = await admin.post<{ lastUpdate: string }>('/admin/catalog/rebuild');
      expect(rebuilt.status).toBe(200);
      expect(Date.parse(rebuilt.body.lastUpdate)).toBeGreaterThan(Date.parse(first));
      expect(Math.abs(Date.parse(rebuilt.body.lastUpdate) - (await clockNow()))).toBeLessThan(1000);
      expect(await lastUpdate()).toBe(rebuilt.body.lastUpdate);
      expect((await merchantApi(sb, demo()).get<CatalogEnvelope>('/Items/GetAllItemsOnSale')).body.lastUpdate).toBe(
        rebuilt.body.lastUpdate,
      );

      // The interval restarts at the manual rebuild: nothing at 4:59, a rebuild at exactly 5:00, and again 5:00 later.
      let previous = rebuilt.body.lastUpdate;
      for (let round = 0; round < 3; round++) {
        const sinceLast = (await clockNow()) - Date.parse(previous);
        await admin.advance(5 * MINUTE - sinceLast / 1000 - 1);
        expect(await lastUpdate(), `round ${round}, just before`).toBe(previous);
        await admin.advance(2);
        const next = await lastUpdate();
        expectAfterFiveMinutes(previous, next);
        previous = next;
      }
      // A long advance rebuilds once per 5 minutes it crosses, the last one within the last 5 minutes.
      await admin.advance(31 * MINUTE);
      const last = Date.parse(await lastUpdate());
      expect(last - Date.parse(previous)).toBeGreaterThanOrEqual(30 * MINUTE * 1000);
      expect(last - Date.parse(previous)).toBeLessThan(30 * MINUTE * 1000 + 1000);
    });
  });

  describe('wearPercent of admin-supplied stickers', () => {
    it('is derived from wear, robust to floating point (0.9 → 10%)', async () => {
      const wears = [0, 1, 0.9, 0.07685845345258713, null];
      const item = await listItem({
        stickers: wears.map((wear, slot) => ({
          name: `Sticker | Test ${slot}`,
          img: 'http://sandbox.invalid/img/sticker/test.svg',
          slot,
          wear,
        })),
      } as Partial<Item>);
      const expected = ['100%', '0%', '10%', '92%', null];
      expect(item.stickers.map((s) => s.wearPercent)).toEqual(expected);
      const seen = at(
        (await merchantApi(sb, demo()).post<CatalogEnvelope>('/Items/SearchItems', { itemId: [item.itemId] })).body
          .items,
      );
      expect(seen.stickers.map((s) => [s.wear, s.wearPercent])).toEqual(wears.map((wear, i) => [wear, expected[i]]));
      // A wearPercent given by the caller is recomputed, so the two always agree.
      const given = await listItem({
        stickers: [
          {
            name: 'Sticker | Given',
            img: 'http://sandbox.invalid/img/sticker/given.svg',
            slot: 0,
            wear: 0.9,
            wearPercent: '9%',
          },
        ],
      } as Partial<Item>);
      expect(at(given.stickers).wearPercent).toBe('10%');
    });

    it('is 100% only for wear 0: any scratch, however tiny, is 99% (spec: floor((1 - wear) * 100))', async () => {
      const wears = [0, 5.49e-8, Math.fround(5.49e-8), 1e-7, 1e-6, 0.005, 0.01, 0.010001, 0.9999999];
      const expected = ['100%', '99%', '99%', '99%', '99%', '99%', '99%', '98%', '0%'];
      const item = await listItem({
        stickers: wears.map((wear, slot) => ({
          name: `Sticker | Tiny ${slot}`,
          img: 'http://sandbox.invalid/img/sticker/test.svg',
          slot,
          wear,
        })),
      } as Partial<Item>);
      const seen = at(
        (await merchantApi(sb, demo()).post<CatalogEnvelope>('/Items/SearchItems', { itemId: [item.itemId] })).body
          .items,
      );
      expect(seen.stickers.map((s) => [s.wear, s.wearPercent])).toEqual(wears.map((wear, i) => [wear, expected[i]]));
    });
  });

  describe('DELETE /admin/items/:itemId (sold elsewhere)', () => {
    it('takes an item on sale off sale', async () => {
      const item = await listItem();
      const answer = await admin.delete<{ itemId: number; removed: boolean; trade: Trade | null }>(
        `/admin/items/${item.itemId}`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ itemId: item.itemId, removed: true, trade: null });
      expect(await onSale(item.itemId)).toBe(false);
      expect((await admin.delete<ErrorBody>(`/admin/items/${item.itemId}`)).status).toBe(404);
    });

    it('ends a SENT trade holding the item CANCELLED 505 with a refund; the item stays off sale', async () => {
      const merchant = await admin.createMerchant({ balance: 50_000 });
      const item = await listItem({ price: 1_200 });
      const bought = await buy(merchant, item);
      const sent = await admin.transition(bought.tradeId, { status: 'SENT' });
      expect(await balance(merchant)).toBe(48_800);

      const answer = await admin.delete<{ itemId: number; removed: boolean; trade: Trade }>(
        `/admin/items/${item.itemId}`,
      );
      expect(answer.status).toBe(200);
      expect(answer.body.trade).toMatchObject({
        tradeId: bought.tradeId,
        status: 'CANCELLED',
        errorCode: 505,
        failReason: 'Items no longer valid',
      });
      const trade = await tradeOf(merchant, bought.tradeId);
      expect(trade).toMatchObject({
        status: 'CANCELLED',
        errorCode: 505,
        failReason: 'Items no longer valid',
        offerId: sent.offerId,
        stage: 2,
      });
      expect(trade.cancelledAt).toBe(trade.updatedAt);
      expect((await ledger(merchant)).slice(0, 2).map((e) => [e.type, e.amount, e.tradeId])).toEqual([
        ['BUY CANCELLED', 1_200, bought.tradeId],
        ['FREEZE', -1_200, bought.tradeId],
      ]);
      expect(await balance(merchant)).toBe(50_000);
      // Sold elsewhere: not back on sale, and nothing left to delete.
      expect(await onSale(item.itemId)).toBe(false);
      expect((await admin.delete(`/admin/items/${item.itemId}`)).status).toBe(404);
      // A 505 is not a partner strike.
      expect(sb.core.db.prepare('SELECT count(*) AS n FROM partner_strikes').get()).toEqual({ n: 0 });
    });

    it('fails a PENDING trade (its offer was never sent) with a refund; the item stays off sale', async () => {
      const merchant = await admin.createMerchant({ balance: 50_000 });
      const item = await listItem({ price: 700 });
      const bought = await buy(merchant, item);
      const answer = await admin.delete<{ trade: Trade }>(`/admin/items/${item.itemId}`);
      expect(answer.status).toBe(200);
      const trade = await tradeOf(merchant, bought.tradeId);
      expect(trade).toMatchObject({
        status: 'FAILED',
        errorCode: 500,
        failReason: ITEMS_GONE_BEFORE_SEND,
        offerId: null,
      });
      expect(answer.body.trade).toEqual(trade);
      expect(await balance(merchant)).toBe(50_000);
      expect(await onSale(item.itemId)).toBe(false);
    });

    it('answers 404 for an item that ended its trade or never existed', async () => {
      const merchant = await admin.createMerchant({ balance: 50_000 });
      const item = await listItem();
      const bought = await buy(merchant, item);
      await admin.transition(bought.tradeId, { status: 'SENT' });
      await admin.transition(bought.tradeId, { status: 'COMPLETED' });
      const completed = await admin.delete<ErrorBody>(`/admin/items/${item.itemId}`);
      expect([completed.status, completed.body.error]).toEqual([404, 'not_found']);
      expect((await tradeOf(merchant, bought.tradeId)).status).toBe('COMPLETED');
      expect((await admin.delete<ErrorBody>('/admin/items/123456789')).status).toBe(404);
    });
  });
});
