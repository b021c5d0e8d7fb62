/**
 * A notifications list read whose answer arrives after a batch with a newer unread count must not put the older
 * count back on the badge. A real engine on the sandbox over loopback behind the renderer's bridge; the list's
 * answer is held in this process until a trade notification has been stored and the batch counting it applied.
 */
import { describe, expect, it } from 'vitest';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { bought, recipientBuys } from '../support/recipientBuys';
import { adminApi, at } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('a notifications list answer arriving after a newer unread count', () => {
  const { env, connect } = useRendererOnEngine('inbox-order-', 45);
  const { listings, buy } = recipientBuys(env, 98_100_000);

  it("keeps the batch's newer unread count", async () => {
    const { sb, app } = env();
    await app.session().startupSettled();
    const { loadNotifications } = await import('../../src/renderer/src/state/actions/inbox');

    const item = at(await listings(1, 1));
    const trade = bought(await buy(item, 1));
    const before = (await app.call('notifications.list', { limit: 1 })).unread;
    const { useStore, hold, held } = await connect(app);
    const unread = () => useStore.getState().inbox.unread;

    hold('notifications.list', async () => {
      // The list counts `before` unread: the trade is sent (a notification), and the batch counting it lands first.
      await adminApi(sb).transition(trade.tradeId, { status: 'SENT' });
      await waitFor(() => unread() === before + 1, 10_000, 'the newer unread count on the badge');
    });
    await loadNotifications();
    expect(held()).toBe(true);
    expect(useStore.getState().inbox.status).toBe('ready');
    expect(unread()).toBe(before + 1);
  });
});
