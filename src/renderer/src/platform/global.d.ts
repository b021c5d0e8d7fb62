import type { MerchantDeskApi } from '../../../shared/ipc/bridge';

declare global {
  interface Window {
    /** Installed by the Electron preload; absent when the renderer runs in a browser through the web host. */
    readonly merchantDesk?: MerchantDeskApi;
  }
}

export {};
