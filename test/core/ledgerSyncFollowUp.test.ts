/**
 * A ledger sync asked for while one runs (after a buy, a frame or a reconcile) gets a result that holds what moved
 * before it was asked: the running one may have read its page already. The sandbox's own ledger over loopback; the
 * running sync's read is held until money has moved and the second sync is asked for, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import type { MerchantApiClient } from '../../src/main/core/api/client';
import type { WalletSync } from '../../src/main/core/engine/session/walletSync';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { adminApi } from '../support/sandboxHttp';

describe('ledger sync single flight', () => {
  const env = useEngineOnSandbox('ledger-follow-up-', { items: 20, seed: 36 }, { balance: 100_000 });

  it('a sync asked while one runs reads what moved after that one read the ledger', async () => {
    const { sb, merchant, app } = env();
    const session = app.session();
    await session.startupSettled();
    const wallet = (session as unknown as { wallet: WalletSync }).wallet;
    const client: MerchantApiClient = session.client;
    const read = client.balanceHistory.bind(client);
    let asked: Promise<void> | null = null;
    client.balanceHistory = async (...args) => {
      const answer = await read(...args);
      if (!asked) {
        // This sync has read the ledger: money moves now, and a sync is asked for while this one still runs.
        const topUp = { type: 'ADMIN TOP UP', amount: 12_345 };
        expect((await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, topUp)).status).toBe(201);
        asked = wallet.syncLedger();
      }
      return answer;
    };

    await wallet.syncLedger();
    expect(asked).not.toBeNull();
    await asked;
    const topUps = await app.call('wallet.ledger', { types: ['ADMIN TOP UP'], limit: 5 });
    expect(topUps.rows.map((row) => row.amount)).toContain(12_345);
  });
});
