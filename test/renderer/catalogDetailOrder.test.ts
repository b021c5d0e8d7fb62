/**
 * An item's detail read whose answer arrives after a batch that moved the item's price must not leave the older
 * price on screen. A real engine on the sandbox over loopback behind the renderer's bridge; the detail's answer is
 * held in this process until the price has moved and the batch saying so has been applied, so the order is exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEventBatch, IpcEnvelope } from '../../src/shared/ipc';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { buildBridge, type IpcCall } from '../../src/shared/ipc/bridge';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { adminApi, at } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('an item detail answer arriving after a newer batch', () => {
  const env = useEngineOnSandbox('catalog-detail-order-', { items: 20, seed: 46 }, { balance: 100_000 });
  const globals = globalThis as { window?: unknown };

  afterEach(() => {
    delete globals.window;
  });

  it("ends on the batch's newer price", async () => {
    const { sb, app } = env();
    await app.session().startupSettled();
    const { useStore } = await import('../../src/renderer/src/state/store');
    const { handleBatch } = await import('../../src/renderer/src/state/actions/boot');
    const { openDetail } = await import('../../src/renderer/src/state/actions/catalog');
    const item = at((await app.call('catalog.query', { limit: 1 })).rows);
    const newPrice = item.price + 77;

    const applied: EngineEventBatch[] = [];
    let held = false;
    const call = (async (method: string, input: unknown) => {
      const answer = (await dispatchIpc(app.engine, method, input)) as IpcEnvelope<unknown>;
      if (method === 'catalog.item' && !held) {
        held = true;
        // The detail holds the old price: the price moves, and its batch is applied first.
        expect((await adminApi(sb).patch(`/admin/items/${item.itemId}`, { price: newPrice })).status).toBe(200);
        await waitFor(
          () =>
            applied.some((batch) =>
              batch.items?.prices.some((move) => move.itemId === item.itemId && move.price === newPrice),
            ),
          10_000,
          'the price batch applied',
        );
      }
      return answer;
    }) as IpcCall;
    const bridge = buildBridge(call, (listener) => app.engine.subscribe(listener), 'electron');
    globals.window = { merchantDesk: bridge };
    const unsubscribe = bridge.events.subscribe(handleBatch);
    // After handleBatch: a batch seen here has been applied.
    const unrecord = bridge.events.subscribe((batch) => applied.push(batch));
    const detail = () => useStore.getState().catalog.detail;
    try {
      openDetail(item.itemId);
      await waitFor(() => held && detail().status === 'ready', 15_000, 'the detail answered');
      await waitFor(() => detail().data?.item.price === newPrice, 5_000, 'the newer price in the detail');
      expect(detail().data?.item.price).toBe(newPrice);
    } finally {
      unrecord();
      unsubscribe();
    }
  });
});
