import type { SecretStore } from './secretStore';
import { SecretStoreReadOnlyError } from './secretStore';

export const API_KEY_VARIABLE = 'MERCHANT_API_KEY';
export const MERCHANT_ID_VARIABLE = 'MERCHANT_ID';

export type Environment = Readonly<Record<string, string | undefined>>;

/** One key given by `MERCHANT_API_KEY` for the merchant `MERCHANT_ID` (CI, headless machines). Read-only. */
export class EnvironmentSecretStore implements SecretStore {
  readonly kind = 'environment';
  readonly #env: Environment;

  constructor(env: Environment) {
    this.#env = env;
  }

  /** Whether both variables are set (non-empty). */
  static isConfigured(env: Environment): boolean {
    return Boolean(env[API_KEY_VARIABLE]) && Boolean(env[MERCHANT_ID_VARIABLE]);
  }

  /** The merchant whose key the environment gives, or null. */
  get merchantId(): string | null {
    return this.#env[MERCHANT_ID_VARIABLE] || null;
  }

  async get(merchantId: string): Promise<string | null> {
    const key = this.#env[API_KEY_VARIABLE];
    return key && merchantId === this.merchantId ? key : null;
  }

  async set(_merchantId: string, _apiKey: string): Promise<void> {
    throw this.#readOnly('store');
  }

  async delete(_merchantId: string): Promise<boolean> {
    // Reporting "nothing deleted" would let the UI believe the key is gone while it is still used.
    throw this.#readOnly('remove');
  }

  #readOnly(action: string): SecretStoreReadOnlyError {
    return new SecretStoreReadOnlyError(
      `cannot ${action} an API key: keys come from the ${API_KEY_VARIABLE} and ${MERCHANT_ID_VARIABLE} environment variables; change them there and restart`,
    );
  }
}
