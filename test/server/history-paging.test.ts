import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Item, Trade, TradeHistoryPage, TradeHistoryQuery } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { insertHistoryRows } from '../support/historyRows';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, at, merchantApi, tradeUrlFor } from '../support/sandboxHttp';

/**
 * Paged Trades/History answers read a page after the previous one by key (where it ended) instead of by OFFSET:
 * every page must still be exactly the OFFSET answer, the slice of the whole ordered list, also when a page is
 * asked out of order and when a write comes between two pages.
 */
describe('sandbox REST: Trades/History pages read by key', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;

  beforeEach(async () => {
    sb = await startSandbox({ items: 60, seed: 22 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    insertHistoryRows(sb, merchant.merchantId, 1234, 13);
  });
  afterEach(() => sb.close());

  /** Every trade, newest first, from the isActive answer (all rows are inside its 14 days): the reference order. */
  async function everyTrade(): Promise<Trade[]> {
    const answer = await merchantApi(sb, merchant).get<TradeHistoryPage>('/Trades/History?isActive=true');
    expect(answer.status).toBe(200);
    return answer.body.trades;
  }

  const page = (query: TradeHistoryQuery): TradeHistoryPage =>
    JSON.parse(sb.core.trades.history.listJson(merchant.merchantId, query)) as TradeHistoryPage;

  function expectSlice(query: TradeHistoryQuery, all: Trade[], got: TradeHistoryPage): void {
    const limit = query.limit ?? 50;
    const p = query.page ?? 1;
    expect(got).toEqual({ trades: all.slice((p - 1) * limit, p * limit), total: all.length, limit, page: p });
  }

  it('answers each page as the slice of the whole list, in order, out of order and filtered', async () => {
    const all = await everyTrade();
    expect(all).toHaveLength(1234);
    const completed = all.filter((t) => t.status === 'COMPLETED');
    const to = at(all, 300).createdAt;
    const until = all.filter((t) => t.createdAt <= to);
    for (const [filter, expected] of [
      [{}, all],
      [{ status: 'COMPLETED' }, completed],
      [{ to }, until],
    ] as const) {
      // Forwards: every page after the first starts where the previous one ended.
      for (let p = 1; p <= 14; p++)
        expectSlice({ ...filter, limit: 100, page: p }, [...expected], page({ ...filter, limit: 100, page: p }));
      // Backwards and jumping: by OFFSET, the same answers.
      for (const p of [13, 7, 12, 1, 14, 2]) {
        expectSlice({ ...filter, limit: 100, page: p }, [...expected], page({ ...filter, limit: 100, page: p }));
      }
    }
    // Over HTTP too (the route's answer cache in front), with another limit.
    for (let p = 1; p <= 4; p++) {
      const answer = await merchantApi(sb, merchant).get<TradeHistoryPage>(`/Trades/History?limit=400&page=${p}`);
      expectSlice({ limit: 400, page: p }, all, answer.body);
    }
  });

  it('answers the next page right after a write between two pages', async () => {
    expectSlice({ limit: 100, page: 1 }, await everyTrade(), page({ limit: 100, page: 1 }));
    expectSlice({ limit: 100, page: 2 }, await everyTrade(), page({ limit: 100, page: 2 }));
    // A new trade on top shifts every page by one; a transition changes a status filter's rows.
    const item = at(
      (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 500 }] })).body.items,
    );
    const bought = await merchantApi(sb, merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(5),
    });
    expect(bought.status).toBe(200);
    const after = await everyTrade();
    expect(at(after).tradeId).toBe(bought.body.tradeId);
    expectSlice({ limit: 100, page: 3 }, after, page({ limit: 100, page: 3 }));

    const pending = (trades: Trade[]) => trades.filter((t) => t.status === 'PENDING');
    expectSlice(
      { status: 'PENDING', limit: 1, page: 1 },
      pending(after),
      page({ status: 'PENDING', limit: 1, page: 1 }),
    );
    await adminApi(sb).transition(bought.body.tradeId, { status: 'SENT' });
    const moved = await everyTrade();
    expectSlice(
      { status: 'PENDING', limit: 1, page: 2 },
      pending(moved),
      page({ status: 'PENDING', limit: 1, page: 2 }),
    );
  });
});
