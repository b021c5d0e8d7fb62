// The renderer's store on a real engine (useEngineOnSandbox) behind its bridge, for the tests of an answer that
// arrives after a newer batch: one method's answer can be held until `meanwhile` has made something newer happen.
import { afterEach } from 'vitest';
import type { SandboxOptions } from '../../src/server/sandbox';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { EngineEventBatch, IpcEnvelope } from '../../src/shared/ipc';
import { buildBridge, type IpcCall } from '../../src/shared/ipc/bridge';
import type { useStore as rendererStore } from '../../src/renderer/src/state/store';
import type { EngineHarness } from './faults/harness';
import { useEngineOnSandbox } from './engineOnSandbox';

export interface RendererOnEngine {
  useStore: typeof rendererStore;
  /** The batches handed to the page, each pushed after the store has applied it. */
  applied: EngineEventBatch[];
  /** The next answer of `method` is handed over only after `meanwhile(answer)` has settled. */
  hold(method: string, meanwhile: (answer: IpcEnvelope<unknown>) => Promise<void>): void;
  /** Whether the held answer was reached. */
  held(): boolean;
}

/**
 * Registers useEngineOnSandbox's hooks (20 items, a merchant with 100,000) and the bridge's clean-up. `connect(app)`
 * installs the bridge as `window.merchantDesk` with the store's handleBatch subscribed.
 */
export function useRendererOnEngine(prefix: string, seed: number) {
  const sandbox: SandboxOptions = { items: 20, seed };
  const env = useEngineOnSandbox(prefix, sandbox, { balance: 100_000 });
  const globals = globalThis as { window?: unknown };
  const cleanups: (() => void)[] = [];

  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    delete globals.window;
  });

  const connect = async (app: EngineHarness): Promise<RendererOnEngine> => {
    const { useStore } = await import('../../src/renderer/src/state/store');
    const { handleBatch } = await import('../../src/renderer/src/state/actions/boot');
    let pending: { method: string; meanwhile: (answer: IpcEnvelope<unknown>) => Promise<void> } | null = null;
    let held = false;
    const call = (async (method: string, input: unknown) => {
      const answer = (await dispatchIpc(app.engine, method, input)) as IpcEnvelope<unknown>;
      if (pending?.method === method) {
        const { meanwhile } = pending;
        pending = null;
        held = true;
        await meanwhile(answer);
      }
      return answer;
    }) as IpcCall;
    const bridge = buildBridge(call, (listener) => app.engine.subscribe(listener), 'electron');
    globals.window = { merchantDesk: bridge };
    const applied: EngineEventBatch[] = [];
    cleanups.push(bridge.events.subscribe(handleBatch));
    // After handleBatch: a batch seen here has been applied.
    cleanups.push(bridge.events.subscribe((batch) => applied.push(batch)));
    return {
      useStore,
      applied,
      hold: (method, meanwhile) => {
        pending = { method, meanwhile };
      },
      held: () => held,
    };
  };

  return { env, connect };
}
