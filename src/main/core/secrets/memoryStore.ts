import type { SecretStore } from './secretStore';

/** Keys held for this run only: the embedded demo sandbox (its key is no secret) or when nothing else works. */
export class MemorySecretStore implements SecretStore {
  readonly kind = 'memory';
  readonly #keys = new Map<string, string>();

  async get(merchantId: string): Promise<string | null> {
    return this.#keys.get(merchantId) ?? null;
  }

  async set(merchantId: string, apiKey: string): Promise<void> {
    this.#keys.set(merchantId, apiKey);
  }

  async delete(merchantId: string): Promise<boolean> {
    return this.#keys.delete(merchantId);
  }
}
