/**
 * Two balance reads under way at once (after a buy, after frames, a reconcile): the answer of the earlier read,
 * arriving last, never replaces the later one's. The sandbox over loopback; the earlier read's answer is held in this
 * process until money has moved and the later read has been answered, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import type { MerchantApiClient } from '../../src/main/core/api/client';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { adminApi } from '../support/sandboxHttp';

describe('balance reads out of order', () => {
  const env = useEngineOnSandbox('balance-order-', { items: 20, seed: 38 }, { balance: 100_000 });

  it("keeps the later read's balance when the earlier read's answer arrives after it", async () => {
    const { sb, merchant, app } = env();
    const session = app.session();
    await session.startupSettled();
    const client: MerchantApiClient = session.client;
    const read = client.getBalance.bind(client);
    let later: Promise<unknown> | null = null;
    client.getBalance = async (...args) => {
      const answer = await read(...args);
      if (!later) {
        // The earlier read has its answer (100,000): money moves, and a later read is made and answered first.
        const topUp = { type: 'ADMIN TOP UP', amount: 12_345 };
        expect((await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, topUp)).status).toBe(201);
        later = session.refreshBalance();
        await later;
      }
      return answer;
    };

    await session.refreshBalance();
    expect(later).not.toBeNull();
    expect(session.balance?.total_available).toBe(112_345);
    const stored = (await session.store.getMeta('balance')) as { total_available: number } | null;
    expect(stored?.total_available).toBe(112_345);
  });
});
