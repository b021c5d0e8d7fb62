import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import type { FaultProxy } from '../support/faultProxy';
import { fastForward, reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import type { EngineHarness } from '../support/faults/harness';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi } from '../support/sandboxHttp';
import { startEngineBehindProxy } from '../support/engineOnSandbox';

// Money moved outside the desk (a crypto deposit, an admin top-up or deduction) sends no frame: the desk reads the
// balance by itself while the feed is quiet, and the ledger when the balance moved. The sandbox, a counting proxy and
// the engine run on a fake clock that flows with real time and is fast-forwarded through the quiet minutes.
describe('money moved outside the desk', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let merchant: MerchantCredentials;
  let app: EngineHarness;
  let close: () => Promise<void>;

  beforeEach(async () => {
    useFlowingFakeClock();
    ({ sb, proxy, merchant, app, close } = await startEngineBehindProxy(
      'engine-outside-',
      { items: 40, seed: 36 },
      { balance: 100_000 },
    ));
  });

  afterEach(async () => {
    await close();
    useRealClock();
  });

  const moveBalance = async (type: 'CRYPTO DEPOSIT' | 'ADMIN DEDUCT', amount: number) => {
    const answer = await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, { type, amount });
    expect(answer.status).toBe(201);
  };
  const ledgerTypes = async () => (await app.call('wallet.ledger', { limit: 50 })).rows.map((row) => row.type);

  it('shows a deposit and a deduction made elsewhere within a minute, without anyone asking', async () => {
    await moveBalance('CRYPTO DEPOSIT', 50_000);
    await reach(() => app.session().balance?.balance === 150_000, 60_000, 'the deposit in the balance');
    await reach(async () => (await ledgerTypes()).includes('CRYPTO DEPOSIT'), 30_000, 'the deposit in the ledger');
    // Sent to the screens in the batcher's next batch.
    await reach(() => app.batches.some((batch) => batch.balance?.balance === 150_000), 5_000, 'the balance in a batch');

    await moveBalance('ADMIN DEDUCT', 20_000);
    await reach(() => app.session().balance?.balance === 130_000, 60_000, 'the deduction in the balance');
    await reach(async () => (await ledgerTypes()).includes('ADMIN DEDUCT'), 30_000, 'the deduction in the ledger');
  });

  it('reads the quiet balance a few times a minute, and the ledger only when the balance moved', async () => {
    const ledgerReads = () => proxy.requests.filter((r) => r.path.startsWith('/Wallet/BalanceHistory'));
    await reach(() => ledgerReads().length > 0, 10_000, 'the start-up ledger sync');
    await reach(() => ledgerReads().every((r) => r.status !== null), 10_000, 'its answer');
    const start = Date.now();
    const reads = (path: string) => proxy.requests.filter((r) => r.at >= start && r.path.startsWith(path)).length;
    await fastForward(5 * 60_000);
    const minutes = (Date.now() - start) / 60_000;
    const balanceReads = reads('/Wallet/GetBalance');
    expect(balanceReads).toBeGreaterThanOrEqual(Math.floor(minutes));
    expect(balanceReads).toBeLessThanOrEqual(Math.ceil(minutes) * 3);
    expect(reads('/Wallet/BalanceHistory')).toBe(0);
  });
});
