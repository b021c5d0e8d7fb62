/**
 * The Alerts screen's read whose answer arrives after a batch with a new firing must not drop that firing. A real
 * engine on the sandbox over loopback behind the renderer's bridge; the firings' answer is held in this process until
 * a listing has matched a rule and the batch with its firing has been applied, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { adminApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

describe('an alerts answer arriving after a newer firing', () => {
  const { env, connect } = useRendererOnEngine('alerts-order-', 49);

  it('keeps the firing the batch brought', async () => {
    const { sb, app } = env();
    await app.session().startupSettled();
    const { loadAlerts } = await import('../../src/renderer/src/state/actions/alerts');
    const rule = await app.call('alerts.saveRule', { name: 'Zeta', namePattern: 'Zeta Knife', maxPrice: 5_000 });
    const { useStore, hold, held } = await connect(app);
    const firings = () => Object.values(useStore.getState().alerts.firings).filter((f) => f.ruleId === rule.id);

    hold('alerts.firings', async () => {
      // The answer holds no firing: a listing matches, and the batch with its firing is applied first.
      const listed = await adminApi(sb).post('/admin/items', {
        items: [{ itemId: 98_200_000, market_hash_name: 'Zeta Knife (Field-Tested)', price: 1_000, phase: null }],
      });
      expect(listed.status).toBe(200);
      await waitFor(() => firings().length === 1, 10_000, 'the firing on screen');
    });
    await loadAlerts();
    expect(held()).toBe(true);
    expect(useStore.getState().alerts.ruleOrder).toContain(rule.id);
    expect(firings()).toHaveLength(1);
  });
});
