/**
 * A snapshot read again (the bridge came back, a gap in seq, another account) whose answer arrives after a newer
 * batch must not put the older balance back on screen. A real engine on the sandbox over loopback behind the
 * renderer's bridge; the snapshot's answer is held in this process until money has moved and the batch saying so
 * has been applied, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { adminApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('a snapshot answer arriving after a newer batch', () => {
  const { env, connect } = useRendererOnEngine('snapshot-order-', 41);

  it("keeps the batch's newer balance", async () => {
    const { sb, merchant, app } = env();
    const session = app.session();
    await session.startupSettled();
    const { reloadSnapshot } = await import('../../src/renderer/src/state/actions/account');
    const { useStore, hold } = await connect(app);
    const shown = () => useStore.getState().wallet.balance?.total_available;

    hold('app.snapshot', async () => {
      // The snapshot holds 100,000: money moves, and its batch reaches the page before this answer does.
      const topUp = { type: 'ADMIN TOP UP', amount: 12_345 };
      expect((await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, topUp)).status).toBe(201);
      await session.refreshBalance();
      await waitFor(() => shown() === 112_345, 5_000, 'the top-up batch on screen');
    });
    await reloadSnapshot();
    expect(useStore.getState().conn.boot).toBe('ready'); // the snapshot was applied
    expect(shown()).toBe(112_345);
  });
});
