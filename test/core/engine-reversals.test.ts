import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item, Trade } from '../../src/shared/api';
import type { ReversalExposure } from '../../src/shared/ipc';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { type EngineHarness, startEngine, waitForFeedAndBalance } from '../support/faults/harness';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi, merchantApi, tradeUrlFor } from '../support/sandboxHttp';

// The sandbox and the engine on a fake clock that flows with real time: a finished trade's record is read 10 s after
// its frame, and the test fast-forwards through that wait (reach).
describe('Operations → Reversals against the real sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;

  beforeEach(async () => {
    useFlowingFakeClock();
    sb = await startSandbox({ items: 50, seed: 36 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-reversals-'));
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    await waitForFeedAndBalance(app);
  });

  afterEach(async () => {
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
    useRealClock();
  });

  /** A completed trade for `partner` at the sandbox's own clock; its record as the server holds it. */
  async function completed(itemId: number, price: number, partner: number): Promise<Trade> {
    const item = (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ itemId, price }] })).body
      .items[0] as Item;
    const bought = await merchantApi(sb, merchant).post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: tradeUrlFor(partner),
    });
    expect(bought.status).toBe(200);
    await adminApi(sb).transition(bought.body.tradeId, { status: 'SENT' });
    await adminApi(sb).transition(bought.body.tradeId, { status: 'COMPLETED' });
    const history = await merchantApi(sb, merchant).get<{ trades: Trade[] }>(
      `/Trades/History?tradeId=${bought.body.tradeId}`,
    );
    return history.body.trades[0] as Trade;
  }

  async function exposureWhen(until: (e: ReversalExposure) => boolean, what: string): Promise<ReversalExposure> {
    return reach(
      async () => {
        const last = await app.call('operations.reversals');
        return until(last) ? last : null;
      },
      30_000,
      what,
    );
  }

  it('exposure and its release by day from the sandbox endProtection; a reversal with who and its ledger entry', async () => {
    expect(await app.call('operations.reversals')).toMatchObject({
      exposure: { count: 0, value: 0 },
      schedule: [],
      reversed: [],
      reversers: [],
    });
    await app.call('recipients.save', { label: 'Bob', tradeUrl: tradeUrlFor(4242) });
    const first = await completed(94_000_001, 1200, 4242);
    // Two days later on the sandbox's clock: another release day.
    await adminApi(sb).advance(2 * 24 * 3600);
    const second = await completed(94_000_002, 3400, 5151);
    expect(first.stage).toBe(1);
    expect(first.endProtection?.slice(0, 10)).not.toBe(second.endProtection?.slice(0, 10));

    // A final status from a frame is shown at once; its record (endProtection) is read a few seconds later.
    const open = await exposureWhen(
      (e) => e.exposure.count === 2 && e.undated.count === 0,
      'two completed trades, each with its endProtection',
    );
    expect(open.exposure).toEqual({ count: 2, value: 4600 });
    expect(open.schedule).toEqual([
      { day: `${first.endProtection?.slice(0, 10)}T00:00:00.000Z`, count: 1, value: 1200 },
      { day: `${second.endProtection?.slice(0, 10)}T00:00:00.000Z`, count: 1, value: 3400 },
    ]);

    // The platform reverses the first (the sandbox's default: the seller's rollback): 100 % refunded, TRADE ROLLBACK.
    await adminApi(sb).transition(first.tradeId, { status: 'REVERSED' });
    const after = await exposureWhen(
      (e) => e.reversed.length === 1 && e.reversed[0]?.rollback !== null,
      'the reversal and its ledger entry',
    );
    expect(after.exposure).toEqual({ count: 1, value: 3400 });
    expect(after.reversedTotal).toBe(1);
    expect(after.reversed[0]).toMatchObject({
      trade: {
        tradeId: first.tradeId,
        status: 'REVERSED',
        errorCode: 512,
        failReason: 'Seller reversed trade on Steam',
      },
      partner: '4242',
      label: 'Bob',
      reversedBy: 'seller',
      rollback: { amount: 1200 },
    });
    // The seller's rollback is not the recipient's doing: no one to ban.
    expect(after.reversers).toEqual([]);
    expect(after.reversersTotal).toBe(0);
    // The next page of reversed trades: past the one there is, with the same totals.
    expect(await app.call('operations.reversals', { offset: 50 })).toMatchObject({
      reversedTotal: 1,
      reversedOffset: 50,
      reversed: [],
      exposure: { count: 1, value: 3400 },
    });
    const csv = await app.call('operations.reversersCsv');
    expect(csv.filename).toMatch(/^reversed-recipients-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(csv.csv).toBe('partner,label,reversed_by_recipient,reversed,delivered,trades\r\n');
  }, 60_000);

  it("who reversed: only the buyer's reversals make a recipient a reverser, in the list and the CSV", async () => {
    await app.call('recipients.save', { label: 'Ann', tradeUrl: tradeUrlFor(4242) });
    // 4242: one reversal by the buyer, one by the seller; 5151: by the seller only; 6363: by the buyer only.
    const trades = [
      await completed(95_000_001, 1000, 4242),
      await completed(95_000_002, 2000, 4242),
      await completed(95_000_003, 3000, 5151),
      await completed(95_000_004, 4000, 6363),
      await completed(95_000_005, 5000, 6363),
    ];
    const [buyerAnn, sellerAnn, sellerOther, buyerThird] = trades.map((t) => t.tradeId) as [
      string,
      string,
      string,
      string,
    ];
    // A failReason of neither side is refused by the sandbox, and the trade stays delivered.
    const refused = await adminApi(sb).post<{ error: string; message: string }>(
      `/admin/trades/${buyerAnn}/transition`,
      { status: 'REVERSED', failReason: 'Reversed by someone' },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/do not match any REVERSED row of the outcome table/);
    expect((await adminApi(sb).get<Trade>(`/admin/trades/${buyerAnn}`)).body.status).toBe('COMPLETED');

    const buyer = { status: 'REVERSED', failReason: 'Buyer reversed trade on Steam' };
    const seller = { status: 'REVERSED', failReason: 'Seller reversed trade on Steam' };
    await adminApi(sb).transition(buyerAnn, buyer);
    await adminApi(sb).transition(sellerAnn, seller);
    await adminApi(sb).transition(sellerOther, seller);
    await adminApi(sb).transition(buyerThird, buyer);
    const after = await exposureWhen((e) => e.reversedTotal === 4, 'the four reversals');
    const who = Object.fromEntries(after.reversed.map((r) => [r.trade.tradeId, [r.partner, r.label, r.reversedBy]]));
    expect(who).toEqual({
      [buyerAnn]: ['4242', 'Ann', 'buyer'],
      [sellerAnn]: ['4242', 'Ann', 'seller'],
      [sellerOther]: ['5151', null, 'seller'],
      [buyerThird]: ['6363', null, 'buyer'],
    });
    // Most reversals by the recipient first, then by partner; 5151 reversed nothing themselves.
    expect(after.reversers).toEqual([
      { partner: '4242', label: 'Ann', buyerReversed: 1, reversed: 2, delivered: 0, trades: 2 },
      { partner: '6363', label: null, buyerReversed: 1, reversed: 1, delivered: 1, trades: 2 },
    ]);
    expect(after.reversersTotal).toBe(2);
    const csv = await app.call('operations.reversersCsv');
    expect(csv.csv).toBe(
      'partner,label,reversed_by_recipient,reversed,delivered,trades\r\n4242,Ann,1,2,0,2\r\n6363,,1,1,1,2\r\n',
    );
    // Recipients: the reversed count says how many were the recipient's own.
    expect(await app.call('operations.recipient', { partner: '4242' })).toMatchObject({
      reversed: 2,
      buyerReversed: 1,
    });
    expect(await app.call('operations.recipient', { partner: '5151' })).toMatchObject({
      reversed: 1,
      buyerReversed: 0,
    });
  }, 60_000);
});
