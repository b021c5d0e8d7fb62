/**
 * The Wallet's runway read whose answer arrives after a batch with a newer runway must not put the older one back.
 * A real engine on the sandbox over loopback behind the renderer's bridge; the runway's answer is held in this
 * process until money has moved and the batch with the new runway has been applied, so the order is exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IpcEnvelope } from '../../src/shared/ipc';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { buildBridge, type IpcCall } from '../../src/shared/ipc/bridge';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { adminApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('a runway answer arriving after a newer batch', () => {
  const env = useEngineOnSandbox('runway-order-', { items: 20, seed: 47 }, { balance: 100_000 });
  const globals = globalThis as { window?: unknown };

  afterEach(() => {
    delete globals.window;
  });

  it("keeps the batch's newer runway", async () => {
    const { sb, merchant, app } = env();
    const session = app.session();
    await session.startupSettled();
    const { useStore } = await import('../../src/renderer/src/state/store');
    const { handleBatch } = await import('../../src/renderer/src/state/actions/boot');
    const { loadRunway } = await import('../../src/renderer/src/state/actions/wallet');
    const shown = () => useStore.getState().wallet.runway?.balance;

    let held = false;
    const call = (async (method: string, input: unknown) => {
      const answer = (await dispatchIpc(app.engine, method, input)) as IpcEnvelope<unknown>;
      if (method === 'operations.runway' && !held) {
        held = true;
        // The runway says 100,000: money moves, and the batch with the new runway is applied first.
        const topUp = { type: 'ADMIN TOP UP', amount: 12_345 };
        expect((await adminApi(sb).post(`/admin/merchants/${merchant.merchantId}/balance`, topUp)).status).toBe(201);
        await session.refreshBalance();
        await waitFor(() => shown() === 112_345, 10_000, 'the newer runway on screen');
      }
      return answer;
    }) as IpcCall;
    const bridge = buildBridge(call, (listener) => app.engine.subscribe(listener), 'electron');
    globals.window = { merchantDesk: bridge };
    const unsubscribe = bridge.events.subscribe(handleBatch);
    try {
      await loadRunway();
      expect(held).toBe(true);
      expect(shown()).toBe(112_345);
    } finally {
      unsubscribe();
    }
  });
});
