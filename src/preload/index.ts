// Sandboxed preload: bundled to ONE CommonJS file (out/preload/index.cjs) that may
// require nothing but `electron`. It imports only the zod-free parts of the IPC
// contract (bridge + method names + channel names) and exposes exactly one object,
// `window.merchantDesk`: functions grouped by area plus one event subscription.
// Never ipcRenderer itself, never a generic send/invoke.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { buildBridge, type IpcCall } from '../shared/ipc/bridge';
import type { EngineEventBatch } from '../shared/ipc/events';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from './channels';

const call: IpcCall = (method, input) => ipcRenderer.invoke(IPC_CALL_CHANNEL, method, input);

// One ipcRenderer listener for the whole page, fanned out to subscribers; it is
// registered on the first subscription and removed after the last one leaves.
const listeners = new Set<(batch: EngineEventBatch) => void>();
const onBatch = (_event: IpcRendererEvent, batch: EngineEventBatch): void => {
  for (const listener of [...listeners]) {
    try {
      listener(batch);
    } catch (error) {
      console.error('merchantDesk: an event listener threw', error);
    }
  }
};

function subscribe(listener: (batch: EngineEventBatch) => void): () => void {
  if (typeof listener !== 'function') throw new TypeError('subscribe needs a function');
  // A wrapper per call, so subscribing the same function twice needs two unsubscribes.
  const entry = (batch: EngineEventBatch): void => listener(batch);
  if (listeners.size === 0) ipcRenderer.on(IPC_EVENT_CHANNEL, onBatch);
  listeners.add(entry);
  let active = true;
  return () => {
    if (!active) return;
    active = false;
    listeners.delete(entry);
    if (listeners.size === 0) ipcRenderer.removeListener(IPC_EVENT_CHANNEL, onBatch);
  };
}

contextBridge.exposeInMainWorld('merchantDesk', buildBridge(call, subscribe, 'electron'));
