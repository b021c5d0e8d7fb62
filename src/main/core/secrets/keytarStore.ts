import type { SecretStore } from './secretStore';
import { SecretStoreUnavailableError } from './secretStore';

export const KEYCHAIN_SERVICE = 'merchant-desk';

/** The part of keytar we use; injectable so a broken keychain can be shown in tests. */
export interface KeytarBackend {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<Array<{ account: string; password: string }>>;
}

export interface KeytarSecretStoreOptions {
  service?: string;
  backend?: KeytarBackend;
  /** A locked keyring may wait for an unlock prompt forever; give up on the probe after this. */
  probeTimeoutMs?: number;
  /** The same for get/set/delete: a read that never answers must not hang a start-up or a snapshot. */
  operationTimeoutMs?: number;
}

const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
const DEFAULT_OPERATION_TIMEOUT_MS = 10_000;

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/d-?bus|org\.freedesktop\.secrets|secret service|could not connect/i.test(message)) return `no Secret Service reachable (${message})`;
  return message;
}

async function loadKeytar(): Promise<KeytarBackend> {
  try {
    // Loaded on first use: a missing or broken native module must not stop the engine from starting.
    return (await import('keytar')).default;
  } catch (error) {
    throw new SecretStoreUnavailableError(`the keytar module could not be loaded (${reasonOf(error)})`, { cause: error });
  }
}

/** API keys in the OS keychain (Secret Service, Keychain, Credential Manager): service `merchant-desk`, account = merchant id. */
export class KeytarSecretStore implements SecretStore {
  readonly kind = 'keychain';
  readonly service: string;
  readonly #probeTimeoutMs: number;
  readonly #operationTimeoutMs: number;
  #backend: Promise<KeytarBackend> | null;

  constructor(options: KeytarSecretStoreOptions = {}) {
    this.service = options.service ?? KEYCHAIN_SERVICE;
    this.#backend = options.backend ? Promise.resolve(options.backend) : null;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    this.#operationTimeoutMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  }

  /** Resolves when the keychain answers a harmless lookup; rejects with `SecretStoreUnavailableError` otherwise. */
  async probe(): Promise<void> {
    await withTimeout(this.#run((k) => k.findCredentials(this.service)), this.#probeTimeoutMs);
  }

  get(merchantId: string): Promise<string | null> {
    return withTimeout(this.#run((k) => k.getPassword(this.service, merchantId)), this.#operationTimeoutMs);
  }

  set(merchantId: string, apiKey: string): Promise<void> {
    return withTimeout(this.#run((k) => k.setPassword(this.service, merchantId, apiKey)), this.#operationTimeoutMs);
  }

  delete(merchantId: string): Promise<boolean> {
    return withTimeout(this.#run((k) => k.deletePassword(this.service, merchantId)), this.#operationTimeoutMs);
  }

  async #run<T>(operation: (backend: KeytarBackend) => Promise<T>): Promise<T> {
    this.#backend ??= loadKeytar();
    const backend = await this.#backend;
    try {
      return await operation(backend);
    } catch (error) {
      throw new SecretStoreUnavailableError(reasonOf(error), { cause: error });
    }
  }
}

/** `operation`, or a `SecretStoreUnavailableError` when the keychain does not answer within `ms`. */
async function withTimeout<T>(operation: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new SecretStoreUnavailableError(`no answer within ${ms} ms (keyring locked?)`)), ms);
  });
  try {
    return await Promise.race([operation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
