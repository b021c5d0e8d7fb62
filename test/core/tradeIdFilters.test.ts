import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalStore } from '../../src/main/core/store';
import type { BalanceTransaction, Trade } from '../../src/shared/api';
import { trade } from '../renderer/fixtures';

const TRADE_IDS = [
  '3f2a9c1e-0000-4000-8000-000000000001',
  '3f2a9c1e-0000-4000-8000-000000000002',
  '7b10d4aa-0000-4000-8000-000000000003',
];
const ORDER_IDS = ['ORD-1001', 'ORD-1002', 'ORDX1003'];

function tradeAt(index: number): Trade {
  const at = new Date(Date.UTC(2026, 2, 1, 10, index)).toISOString();
  return trade(TRADE_IDS[index] as string, 'PENDING', {
    externalId: ORDER_IDS[index] as string,
    price: 1000 + index,
    itemId: 1 + index,
    assetId: `A${index}`,
    createdAt: at,
    updatedAt: at,
  });
}

function payment(id: number, tradeId: string): BalanceTransaction {
  return {
    id,
    type: 'FREEZE',
    amount: -1000,
    balanceBefore: 100_000 - (id - 1) * 1000,
    balanceAfter: 100_000 - id * 1000,
    tradeId,
    note: null,
    createdAt: new Date(Date.UTC(2026, 2, 1, 10, id)).toISOString(),
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    phase: null,
  };
}

describe('trade id and order id filters match what the table shows: a prefix of the id', () => {
  let dir: string;
  let store: LocalStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trade-id-filters-'));
    store = await LocalStore.open({ file: join(dir, 'm.sqlite') });
    await store.upsertTrades([tradeAt(0), tradeAt(1), tradeAt(2)], 'poll');
    await store.insertLedger(TRADE_IDS.map((id, i) => payment(i + 1, id)));
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tradeIdsOf = async (query: { tradeId?: string; externalId?: string }) =>
    (await store.queryTrades(query)).rows.map((t) => t.tradeId).sort();

  it('a shortened trade id (as the table shows it), in any case, finds its trades; the full id finds one', async () => {
    expect(await tradeIdsOf({ tradeId: '3f2a9c1e' })).toEqual([TRADE_IDS[0], TRADE_IDS[1]]);
    expect(await tradeIdsOf({ tradeId: '3F2A9C1E' })).toEqual([TRADE_IDS[0], TRADE_IDS[1]]);
    expect(await tradeIdsOf({ tradeId: TRADE_IDS[2] as string })).toEqual([TRADE_IDS[2]]);
    expect(await tradeIdsOf({ tradeId: '0000' })).toEqual([]);
  });

  it('an order id prefix finds its trades; % and _ are plain characters', async () => {
    expect(await tradeIdsOf({ externalId: 'ORD-10' })).toEqual([TRADE_IDS[0], TRADE_IDS[1]]);
    expect(await tradeIdsOf({ externalId: 'ORD_' })).toEqual([]);
    expect(await tradeIdsOf({ externalId: '%' })).toEqual([]);
    expect(await tradeIdsOf({ externalId: 'ORDX1003' })).toEqual([TRADE_IDS[2]]);
  });

  it("the ledger's trade id filter matches a prefix too", async () => {
    const ledger = await store.queryLedger({ tradeId: '3f2a9c1e' });
    expect(ledger.rows.map((row) => row.tradeId).sort()).toEqual([TRADE_IDS[0], TRADE_IDS[1]]);
  });
});
