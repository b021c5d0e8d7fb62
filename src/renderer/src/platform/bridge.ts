import type { MerchantDeskApi } from '../../../shared/ipc/bridge';
import { connectWebBridge } from './webBridge';

let webBridge: MerchantDeskApi | null = null;

/**
 * The one way the UI reaches the engine: the Electron preload's `window.merchantDesk`
 * when present, otherwise the web host's WebSocket bridge (created on first use, once).
 */
export function getBridge(): MerchantDeskApi {
  if (window.merchantDesk) return window.merchantDesk;
  webBridge ??= connectWebBridge();
  return webBridge;
}
