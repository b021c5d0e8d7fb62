/**
 * A Catalog page read whose answer arrives after a batch that moved the price of one of its items must not show the
 * older price. A real engine on the sandbox over loopback behind the renderer's bridge; the page's answer is held in
 * this process until the price has moved and the batch saying so has been applied, so the order is exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEventBatch, IpcEnvelope, IpcResult } from '../../src/shared/ipc';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { buildBridge, type IpcCall } from '../../src/shared/ipc/bridge';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { adminApi, at } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('a catalog page answer arriving after a newer batch', () => {
  const env = useEngineOnSandbox('catalog-page-order-', { items: 20, seed: 44 }, { balance: 100_000 });
  const globals = globalThis as { window?: unknown };

  afterEach(() => {
    delete globals.window;
  });

  it("keeps the batch's newer price of an item on the page", async () => {
    const { sb, app } = env();
    await app.session().startupSettled();
    const { useStore } = await import('../../src/renderer/src/state/store');
    const { handleBatch } = await import('../../src/renderer/src/state/actions/boot');
    const { ensureRows } = await import('../../src/renderer/src/state/actions/catalog');

    const applied: EngineEventBatch[] = [];
    let moved: { itemId: number; price: number } | null = null;
    const call = (async (method: string, input: unknown) => {
      const answer = (await dispatchIpc(app.engine, method, input)) as IpcEnvelope<IpcResult<'catalog.query'>>;
      if (method === 'catalog.query' && answer.ok && moved === null) {
        // The page holds the item at its old price: the price moves, and its batch reaches the page first.
        const row = at(answer.value.rows);
        moved = { itemId: row.itemId, price: row.price + 123 };
        expect((await adminApi(sb).patch(`/admin/items/${row.itemId}`, { price: moved.price })).status).toBe(200);
        const seen = moved;
        await waitFor(
          () =>
            applied.some((batch) =>
              batch.items?.prices.some((move) => move.itemId === seen.itemId && move.price === seen.price),
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
    try {
      ensureRows(0, 10);
      await waitFor(() => useStore.getState().catalog.pages[0]?.status === 'ready', 15_000, 'the first page');
      const item = moved as { itemId: number; price: number } | null;
      if (!item) throw new Error('no page was read');
      expect(useStore.getState().catalog.rows[item.itemId]?.price).toBe(item.price);
    } finally {
      unrecord();
      unsubscribe();
    }
  });
});
