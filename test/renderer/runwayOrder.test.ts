/**
 * The Wallet's runway read whose answer arrives after a batch with a newer runway must not put the older one back.
 * A real engine on the sandbox over loopback behind the renderer's bridge; the runway's answer is held in this
 * process until money has moved and the batch with the new runway has been applied, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { adminApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('a runway answer arriving after a newer batch', () => {
  const { env, connect } = useRendererOnEngine('runway-order-', 47);

  it("keeps the batch's newer runway", async () => {
    const { sb, merchant, app } = env();
    const session = app.session();
    await session.startupSettled();
    const { loadRunway } = await import('../../src/renderer/src/state/actions/wallet');
    const { useStore, hold, held } = await connect(app);
    const shown = () => useStore.getState().wallet.runway?.balance;

    hold('operations.runway', async () => {
      // The runway says 100,000: money moves, and the batch with the new runway is applied first.
      const topUp = { type: 'ADMIN TOP UP', amount: 12_345 };
      expect((await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, topUp)).status).toBe(201);
      await session.refreshBalance();
      await waitFor(() => shown() === 112_345, 10_000, 'the newer runway on screen');
    });
    await loadRunway();
    expect(held()).toBe(true);
    expect(shown()).toBe(112_345);
  });
});
