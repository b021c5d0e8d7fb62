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
  override readonly name: string = 'SecretStoreUnavailableError';

  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`OS keychain unavailable: ${reason}`, options);
  }
}

/**
 * The keychain did not answer within its time-out: it is there but slow (a busy machine, a brand-new keyring) or
 * locked and waiting to be unlocked. Not "no keychain": `answer` is the call's own answer, whenever it comes.
 */
export class SecretStoreTimeoutError<T = unknown> extends SecretStoreUnavailableError {
  override readonly name: string = 'SecretStoreTimeoutError';

  constructor(
    ms: number,
    readonly answer: Promise<T>,
  ) {
    super(`no answer within ${ms} ms (busy, or locked and waiting to be unlocked)`);
    this.message = `OS keychain slow: ${this.reason}`;
  }
}

/** A write to a store that cannot change (keys given by environment variables). */
export class SecretStoreReadOnlyError extends Error {
  override readonly name = 'SecretStoreReadOnlyError';
}
