import type { KeyStoreKind } from '../../../shared/ipc/keyStore';

export type SecretStoreKind = KeyStoreKind;

/** Where the app keeps merchants' API keys, by merchant id. */
export interface SecretStore {
  readonly kind: SecretStoreKind;
  get(merchantId: string): Promise<string | null>;
  set(merchantId: string, apiKey: string): Promise<void>;
  /** True when a key was stored and is now gone. */
  delete(merchantId: string): Promise<boolean>;
}

/** The OS keychain cannot be used; `reason` says why (e.g. no Secret Service running). */
export class SecretStoreUnavailableError extends Error {
  override readonly name = 'SecretStoreUnavailableError';

  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`OS keychain unavailable: ${reason}`, options);
  }
}

/** A write to a store that cannot change (keys given by environment variables). */
export class SecretStoreReadOnlyError extends Error {
  override readonly name = 'SecretStoreReadOnlyError';
}
