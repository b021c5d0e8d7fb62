/**
 * The engine's snapshot is never older than a batch sent before it: what it reads from the store is read first, and
 * the in-memory state (the balance, the connection, the counts) after the last await. The sandbox over loopback; the
 * snapshot's firing count is held in this process until money has moved and the balance was read again.
 */
import { describe, expect, it } from 'vitest';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { adminApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('the snapshot against a change made while it is read', () => {
  const env = useEngineOnSandbox('snapshot-read-order-', { items: 20, seed: 50 }, { balance: 100_000 });

  it('carries the balance of a read answered while its store reads were out', async () => {
    const { sb, merchant, app } = env();
    const session = app.session();
    await session.startupSettled();
    const store = session.store;
    const count = store.unacknowledgedFiringCount.bind(store);
    let moved = false;
    const sent = app.batches.length;
    const newBalanceSent = () => app.batches.slice(sent).some((batch) => batch.balance?.total_available === 112_345);
    store.unacknowledgedFiringCount = async () => {
      const answer = await count();
      if (!moved) {
        moved = true;
        // The count is read: money moves, and the balance read and its batch are done before the snapshot answers.
        const topUp = { type: 'ADMIN TOP UP', amount: 12_345 };
        expect((await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, topUp)).status).toBe(201);
        await session.refreshBalance();
        await waitFor(() => newBalanceSent(), 5_000, 'the batch with the new balance');
      }
      return answer;
    };
    const snapshot = await app.call('app.snapshot');
    expect(moved).toBe(true);
    expect(snapshot.balance?.total_available).toBe(112_345);
  });
});
