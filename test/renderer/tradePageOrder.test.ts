/**
 * A Trades page read whose answer arrives after a batch that moved one of its trades must not put the trade's older
 * record back on screen. A real engine on the sandbox over loopback behind the renderer's bridge; the page's answer
 * is held in this process until the trade has moved and the batch saying so has been applied, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { bought, recipientBuys } from '../support/recipientBuys';
import { adminApi, at } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('a trades page answer arriving after a newer batch', () => {
  const { env, connect } = useRendererOnEngine('trade-page-order-', 43);
  const { listings, buy } = recipientBuys(env, 98_000_000);

  it("keeps the batch's newer record of a listed trade", async () => {
    const { sb, app } = env();
    await app.session().startupSettled();
    const { loadTrades } = await import('../../src/renderer/src/state/actions/trades');

    const item = at(await listings(1, 1));
    const trade = bought(await buy(item, 1));
    const { tradeId } = trade;
    const { useStore, hold, held } = await connect(app);
    const shown = () => useStore.getState().trades.byId[tradeId]?.status;

    await loadTrades();
    expect(shown()).toBe('PENDING');
    hold('trades.query', async () => {
      // The page holds the trade as PENDING: it moves on, and its batch reaches the page before this answer does.
      await adminApi(sb).transition(tradeId, { status: 'SENT' });
      await waitFor(() => shown() === 'SENT', 10_000, 'the SENT batch on screen');
    });
    await loadTrades();
    expect(held()).toBe(true);
    expect(useStore.getState().trades.list.ids).toContain(tradeId);
    expect(shown()).toBe('SENT');
  });
});
