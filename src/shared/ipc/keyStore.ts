/** Where the engine keeps merchants' API keys. */
export type KeyStoreKind = 'keychain' | 'safeStorage' | 'environment' | 'memory';

export interface KeyStoreInfo {
  kind: KeyStoreKind;
  /** Where keys live, in the words Settings and the start-up line use ("in the OS keychain"). */
  description: string;
}

export const KEY_STORE_DESCRIPTIONS: Record<KeyStoreKind, string> = {
  keychain: 'in the OS keychain',
  safeStorage: 'encrypted on this computer (Electron safeStorage)',
  environment: 'from the MERCHANT_API_KEY environment variable (read-only)',
  memory: 'in memory only: enter it again after a restart',
};

export function keyStoreInfo(kind: KeyStoreKind): KeyStoreInfo {
  return { kind, description: KEY_STORE_DESCRIPTIONS[kind] };
}
