/**
 * A notifications list read whose answer arrives after a batch with a newer unread count must not put the older
 * count back on the badge. A real engine on the sandbox over loopback behind the renderer's bridge; the list's
 * answer is held in this process until a trade notification has been stored and the batch counting it applied.
 */
import { describe, expect, it } from 'vitest';
import type { Item } from '../../src/shared/api';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { adminApi, at, TEST_TRADE_URL } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('a notifications list answer arriving after a newer unread count', () => {
  const { env, connect } = useRendererOnEngine('inbox-order-', 45);

  it("keeps the batch's newer unread count", async () => {
    const { sb, app } = env();
    await app.session().startupSettled();
    const { loadNotifications } = await import('../../src/renderer/src/state/actions/inbox');

    const item = at(
      (
        await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
          items: [{ itemId: 98_100_000, price: 1_000, steamId: null }],
        })
      ).body.items,
    );
    const bought = await app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      recipient: { tradeUrl: TEST_TRADE_URL },
    });
    if (!bought.ok) throw new Error(`buy refused: ${bought.failure.message}`);
    const before = (await app.call('notifications.list', { limit: 1 })).unread;
    const { useStore, hold, held } = await connect(app);
    const unread = () => useStore.getState().inbox.unread;

    hold('notifications.list', async () => {
      // The list counts `before` unread: the trade is sent (a notification), and the batch counting it lands first.
      await adminApi(sb).transition(bought.trade.tradeId, { status: 'SENT' });
      await waitFor(() => unread() === before + 1, 10_000, 'the newer unread count on the badge');
    });
    await loadNotifications();
    expect(held()).toBe(true);
    expect(useStore.getState().inbox.status).toBe('ready');
    expect(unread()).toBe(before + 1);
  });
});
