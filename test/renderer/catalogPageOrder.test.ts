/**
 * A Catalog page read whose answer arrives after a batch that moved the price of one of its items must not show the
 * older price. A real engine on the sandbox over loopback behind the renderer's bridge; the page's answer is held in
 * this process until the price has moved and the batch saying so has been applied, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import type { IpcEnvelope, IpcResult } from '../../src/shared/ipc';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { adminApi, at } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('a catalog page answer arriving after a newer batch', () => {
  const { env, connect } = useRendererOnEngine('catalog-page-order-', 44);

  it("keeps the batch's newer price of an item on the page", async () => {
    const { sb, app } = env();
    await app.session().startupSettled();
    const { ensureRows } = await import('../../src/renderer/src/state/actions/catalog');
    const { useStore, applied, hold } = await connect(app);

    let moved: { itemId: number; price: number } | null = null;
    hold('catalog.query', async (envelope) => {
      const answer = envelope as IpcEnvelope<IpcResult<'catalog.query'>>;
      if (!answer.ok) throw new Error(`the page was refused: ${answer.error.message}`);
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
    });
    ensureRows(0, 10);
    await waitFor(() => useStore.getState().catalog.pages[0]?.status === 'ready', 15_000, 'the first page');
    const item = moved as { itemId: number; price: number } | null;
    if (!item) throw new Error('no page was read');
    expect(useStore.getState().catalog.rows[item.itemId]?.price).toBe(item.price);
  });
});
