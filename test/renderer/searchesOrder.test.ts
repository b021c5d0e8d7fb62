/**
 * The saved searches' list read whose answer arrives after a batch that saved one (another window, a search link)
 * must not drop it. A real engine on the sandbox over loopback behind the renderer's bridge; the list's answer is
 * held in this process until a search has been saved and the batch saying so applied, so the order is exact.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IpcEnvelope } from '../../src/shared/ipc';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { buildBridge, type IpcCall } from '../../src/shared/ipc/bridge';
import { useEngineOnSandbox } from '../support/engineOnSandbox';
import { waitFor } from '../support/waitFor';

describe('a saved searches answer arriving after a newer batch', () => {
  const env = useEngineOnSandbox('searches-order-', { items: 20, seed: 48 }, { balance: 100_000 });
  const globals = globalThis as { window?: unknown };

  afterEach(() => {
    delete globals.window;
  });

  it('keeps the search the batch saved', async () => {
    const { app } = env();
    await app.session().startupSettled();
    const { useStore } = await import('../../src/renderer/src/state/store');
    const { handleBatch } = await import('../../src/renderer/src/state/actions/boot');
    const { loadSearches } = await import('../../src/renderer/src/state/actions/searches');
    const names = () => useStore.getState().searches.list.map((search) => search.name);

    let held = false;
    const call = (async (method: string, input: unknown) => {
      const answer = (await dispatchIpc(app.engine, method, input)) as IpcEnvelope<unknown>;
      if (method === 'searches.list' && !held) {
        held = true;
        // The list holds no search: one is saved (another window), and its batch is applied first.
        await app.call('searches.save', { name: 'Rubies', query: { search: 'Doppler', phase: 'Ruby' } });
        await waitFor(() => names().includes('Rubies'), 10_000, 'the saved search on screen');
      }
      return answer;
    }) as IpcCall;
    const bridge = buildBridge(call, (listener) => app.engine.subscribe(listener), 'electron');
    globals.window = { merchantDesk: bridge };
    const unsubscribe = bridge.events.subscribe(handleBatch);
    try {
      await loadSearches();
      expect(held).toBe(true);
      expect(useStore.getState().searches.status).toBe('ready');
      expect(names()).toEqual(['Rubies']);
    } finally {
      unsubscribe();
    }
  });
});
