import type { MerchantDeskApi } from '../../../shared/ipc/bridge';
import { connectWebBridge, type WebBridgeState } from './webBridge';

export type { WebBridgeState };

let webBridge: MerchantDeskApi | null = null;
let lastState: WebBridgeState | null = null;
const stateListeners = new Set<(state: WebBridgeState) => void>();

/**
 * The one way the UI reaches the engine: the Electron preload's `window.merchantDesk`
 * when present, otherwise the web host's WebSocket bridge (created on first use, once).
 */
export function getBridge(): MerchantDeskApi {
  if (window.merchantDesk) return window.merchantDesk;
  webBridge ??= connectWebBridge(location, {
    onStateChange: (state) => {
      lastState = state;
      for (const listener of [...stateListeners]) listener(state);
    },
  });
  return webBridge;
}

/**
 * The web bridge's connection state (the latest at once, then every change). Electron's
 * IPC cannot drop, so there it never calls back.
 */
export function onBridgeState(listener: (state: WebBridgeState) => void): () => void {
  stateListeners.add(listener);
  if (lastState !== null) listener(lastState);
  return () => {
    stateListeners.delete(listener);
  };
}
