/**
 * The saved searches' list read whose answer arrives after a batch that saved one (another window, a search link)
 * must not drop it. A real engine on the sandbox over loopback behind the renderer's bridge; the list's answer is
 * held in this process until a search has been saved and the batch saying so applied, so the order is exact.
 */
import { describe, expect, it } from 'vitest';
import { useRendererOnEngine } from '../support/rendererOnEngine';
import { waitFor } from '../support/waitFor';

describe('a saved searches answer arriving after a newer batch', () => {
  const { env, connect } = useRendererOnEngine('searches-order-', 48);

  it('keeps the search the batch saved', async () => {
    const { app } = env();
    await app.session().startupSettled();
    const { loadSearches } = await import('../../src/renderer/src/state/actions/searches');
    const { useStore, hold, held } = await connect(app);
    const names = () => useStore.getState().searches.list.map((search) => search.name);

    hold('searches.list', async () => {
      // The list holds no search: one is saved (another window), and its batch is applied first.
      await app.call('searches.save', { name: 'Rubies', query: { search: 'Doppler', phase: 'Ruby' } });
      await waitFor(() => names().includes('Rubies'), 10_000, 'the saved search on screen');
    });
    await loadSearches();
    expect(held()).toBe(true);
    expect(useStore.getState().searches.status).toBe('ready');
    expect(names()).toEqual(['Rubies']);
  });
});
