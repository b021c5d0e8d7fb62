import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BalanceHistoryPage, BuyResult, Item, Trade, TradeHistoryPage } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, at, merchantApi, tradeUrlFor } from '../support/sandboxHttp';

const DAY = 24 * 3600;

describe('sandbox trade lifecycle and ledger', () => {
  let sb: Sandbox;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;
  let api: ReturnType<typeof merchantApi>;
  let partner = 500;

  async function buy(price = 700): Promise<{ trade: BuyResult; item: Item }> {
    const item = at((await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price }] })).body.items);
    // A fresh trade URL owner per trade keeps partner limits out of these tests.
    const answer = await api.post<BuyResult>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price,
      tradeUrl: tradeUrlFor(partner++),
    });
    expect(answer.status).toBe(200);
    return { trade: answer.body, item };
  }

  async function trade(tradeId: string): Promise<Trade> {
    return (await api.get<TradeHistoryPage>(`/Trades/History?tradeId=${tradeId}`)).body.trades[0] as Trade;
  }

  async function ledgerOf(tradeId: string) {
    const page = (await api.get<BalanceHistoryPage>(`/Wallet/BalanceHistory?tradeId=${tradeId}`)).body;
    return page.transactions.map((t) => [t.type, t.amount]).reverse();
  }

  async function balance(): Promise<number> {
    return (await api.get<{ balance: number }>('/Wallet/GetBalance')).body.balance;
  }

  beforeAll(async () => {
    sb = await startSandbox({ items: 100, seed: 33 });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 1_000_000 });
    api = merchantApi(sb, merchant);
  });
  afterAll(() => sb.close());

  it('PENDING → SENT assigns an offerId and keeps the freeze', async () => {
    const { trade: bought } = await buy();
    const sent = await admin.transition(bought.tradeId, { status: 'SENT' });
    expect(sent).toMatchObject({ status: 'SENT', errorCode: null, failReason: null, stage: 1 });
    expect(sent.offerId).toMatch(/^\d{10}$/);
    expect(await ledgerOf(bought.tradeId)).toEqual([['FREEZE', -700]]);
  });

  it('SENT → COMPLETED sets completedAt, endProtection at +7 days, BUY COMPLETED 0; stage 2 after protection', async () => {
    const { trade: bought } = await buy();
    await admin.transition(bought.tradeId, { status: 'SENT' });
    const before = await balance();
    const done = await admin.transition(bought.tradeId, { status: 'COMPLETED' });
    const completed = await trade(bought.tradeId);
    expect(done.status).toBe('COMPLETED');
    expect(completed).toMatchObject({
      status: 'COMPLETED',
      errorCode: null,
      failReason: null,
      stage: 1,
      cancelledAt: null,
      rollbackAt: null,
    });
    expect(Date.parse(completed.endProtection as string) - Date.parse(completed.completedAt as string)).toBe(
      7 * DAY * 1000,
    );
    expect(completed.updatedAt).toBe(completed.completedAt);
    expect(await ledgerOf(bought.tradeId)).toEqual([
      ['FREEZE', -700],
      ['BUY COMPLETED', 0],
    ]);
    expect(await balance()).toBe(before);

    await admin.advance(7 * DAY + 1);
    expect((await trade(bought.tradeId)).stage).toBe(2);
    const late = await admin.post<{ error: string }>(`/admin/trades/${bought.tradeId}/transition`, {
      status: 'REVERSED',
    });
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('invalid_request');
  });

  it.each([
    [{ status: 'CANCELLED' }, 504, 'Trade declined by user'],
    [{ status: 'CANCELLED', errorCode: 504 }, 504, 'Trade declined by user'],
    [{ status: 'CANCELLED', errorCode: 505 }, 505, 'Items no longer valid'],
    [{ status: 'CANCELLED', errorCode: 506 }, 506, 'Trade countered'],
    [{ status: 'EXPIRED' }, 503, 'Trade offer expired'],
    [{ status: 'FAILED', failReason: 'Steam error: (26) Revoked' }, 500, 'Steam error: (26) Revoked'],
  ])(
    'SENT → %o gives errorCode %i, its failReason, cancelledAt where cancelled, and a full refund',
    async (request, code, reason) => {
      const { trade: bought } = await buy(900);
      await admin.transition(bought.tradeId, { status: 'SENT' });
      const before = await balance();
      await admin.transition(bought.tradeId, request);
      const ended = await trade(bought.tradeId);
      expect(ended).toMatchObject({
        status: request.status,
        errorCode: code,
        failReason: reason,
        stage: 2,
        completedAt: null,
      });
      expect(ended.cancelledAt !== null).toBe(request.status !== 'FAILED');
      expect(await ledgerOf(bought.tradeId)).toEqual([
        ['FREEZE', -900],
        ['BUY CANCELLED', 900],
      ]);
      expect(await balance()).toBe(before + 900);
    },
  );

  it.each([
    [{ status: 'FAILED' }, 500],
    [{ status: 'REJECTED' }, null],
  ])('PENDING → %o releases the freeze', async (request, code) => {
    const { trade: bought } = await buy(400);
    await admin.transition(bought.tradeId, request);
    const ended = await trade(bought.tradeId);
    expect(ended).toMatchObject({ status: request.status, errorCode: code, offerId: null });
    expect(ended.failReason).toEqual(expect.any(String));
    expect(await ledgerOf(bought.tradeId)).toEqual([
      ['FREEZE', -400],
      ['BUY CANCELLED', 400],
    ]);
  });

  it.each(['Seller', 'Buyer'])('COMPLETED → REVERSED in stage 1 refunds in full (%s wording)', async (who) => {
    const { trade: bought } = await buy(1500);
    await admin.transition(bought.tradeId, { status: 'SENT' });
    await admin.transition(bought.tradeId, { status: 'COMPLETED' });
    await admin.advance(3 * DAY);
    const before = await balance();
    await admin.transition(bought.tradeId, { status: 'REVERSED', failReason: `${who} reversed trade on Steam` });
    const reversed = await trade(bought.tradeId);
    expect(reversed).toMatchObject({
      status: 'REVERSED',
      errorCode: 512,
      failReason: `${who} reversed trade on Steam`,
      stage: 2,
    });
    expect(reversed.rollbackAt).toBe(reversed.updatedAt);
    expect(await ledgerOf(bought.tradeId)).toEqual([
      ['FREEZE', -1500],
      ['BUY COMPLETED', 0],
      ['TRADE ROLLBACK', 1500],
    ]);
    expect(await balance()).toBe(before + 1500);
  });

  it('refuses every move outside the table and outcome rows that do not exist', async () => {
    const { trade: bought } = await buy();
    const refuse = async (body: Record<string, unknown>, status = 409) => {
      const answer = await admin.post<{ error: string }>(`/admin/trades/${bought.tradeId}/transition`, body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error).toBe('invalid_request');
    };
    for (const status of ['PENDING', 'COMPLETED', 'CANCELLED', 'EXPIRED', 'REVERSED']) await refuse({ status });
    await admin.transition(bought.tradeId, { status: 'SENT' });
    await refuse({ status: 'CANCELLED', errorCode: 503 }, 400);
    await refuse({ status: 'CANCELLED', failReason: 'made up' }, 400);
    for (const status of ['PENDING', 'SENT', 'REJECTED', 'REVERSED']) await refuse({ status });
    await admin.transition(bought.tradeId, { status: 'CANCELLED', errorCode: 506 });
    for (const status of ['SENT', 'COMPLETED', 'CANCELLED', 'FAILED']) await refuse({ status });
    expect((await trade(bought.tradeId)).status).toBe('CANCELLED');
  });

  it('returns the item to sale after a decline but not when it was sold elsewhere (505)', async () => {
    const declined = await buy();
    await admin.transition(declined.trade.tradeId, { status: 'SENT' });
    await admin.transition(declined.trade.tradeId, { status: 'CANCELLED', errorCode: 504 });
    const soldElsewhere = await buy();
    await admin.transition(soldElsewhere.trade.tradeId, { status: 'SENT' });
    await admin.transition(soldElsewhere.trade.tradeId, { status: 'CANCELLED', errorCode: 505 });
    const found = await api.post<{ items: Item[] }>('/Items/SearchItems', {
      itemId: [declined.item.itemId, soldElsewhere.item.itemId],
    });
    expect(found.body.items.map((i) => i.itemId)).toEqual([declined.item.itemId]);
  });

  it('expires an unaccepted offer after its own tradeDurationSeconds, firing due timers in order', async () => {
    const listed = (await admin.post<{ items: Item[] }>('/admin/items', { items: [{ price: 100 }, { price: 100 }] }))
      .body.items;
    const [short, long] = [at(listed, 0), at(listed, 1)];
    const buyWith = async (item: Item, seconds: number) =>
      (
        await api.post<BuyResult>('/Items/Buy', {
          itemId: item.itemId,
          assetId: item.assetId,
          price: 100,
          tradeUrl: TEST_TRADE_URL,
          tradeDurationSeconds: seconds,
        })
      ).body.tradeId;
    const shortId = await buyWith(short, 600);
    const longId = await buyWith(long, 3600);
    const sentShort = await admin.transition(shortId, { status: 'SENT' });
    const sentLong = await admin.transition(longId, { status: 'SENT' });
    await admin.advance(2 * 3600);
    const [a, b] = [await trade(shortId), await trade(longId)];
    expect([a.status, b.status]).toEqual(['EXPIRED', 'EXPIRED']);
    // Each fired at its own due time, not at the end of the advance.
    expect(Date.parse(a.cancelledAt as string) - Date.parse(sentShort.updatedAt as string)).toBe(600 * 1000);
    expect(Date.parse(b.cancelledAt as string) - Date.parse(sentLong.updatedAt as string)).toBe(3600 * 1000);
  });
});
