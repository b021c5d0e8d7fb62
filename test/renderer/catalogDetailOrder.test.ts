/**
 * An item's detail read whose answer arrives after a batch that moved the item's price must not leave the older
 * price on screen. A real engine on the sandbox over loopback behind the renderer's bridge; the detail's answer is
 * held in this process until the price has moved and the batch saying so has been applied, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { adminApi, at } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('an item detail answer arriving after a newer batch', () => {
  const { env, connect } = useRendererOnEngine('catalog-detail-order-', 46);

  it("ends on the batch's newer price", async () => {
    const { sb, app } = env();
    await app.session().startupSettled();
    const { openDetail } = await import('../../src/renderer/src/state/actions/catalog');
    const item = at((await app.call('catalog.query', { limit: 1 })).rows);
    const newPrice = item.price + 77;
    const { useStore, applied, hold, held } = await connect(app);

    hold('catalog.item', async () => {
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
    });
    const detail = () => useStore.getState().catalog.detail;
    openDetail(item.itemId);
    await waitFor(() => held() && detail().status === 'ready', 15_000, 'the detail answered');
    await waitFor(() => detail().data?.item.price === newPrice, 5_000, 'the newer price in the detail');
    expect(detail().data?.item.price).toBe(newPrice);
  });
});
