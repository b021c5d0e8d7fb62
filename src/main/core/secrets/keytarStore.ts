import type { SecretStore } from './secretStore';
import { SecretStoreTimeoutError, SecretStoreUnavailableError } from './secretStore';

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
  /** How the native module is loaded (tests point it at a module that is not there). */
  loadModule?: () => Promise<{ default: KeytarBackend }>;
}

const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
const DEFAULT_OPERATION_TIMEOUT_MS = 10_000;

function reasonOf(error: unknown): string {
  // Node's messages for a missing module go on with the require stack: the first line says it.
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  if (/d-?bus|org\.freedesktop\.secrets|secret service|could not connect/i.test(message))
    return `no Secret Service reachable (${message})`;
  return message;
}

// An optional dependency: named through a variable so that neither the type checker nor the bundler
// needs it present; Node resolves it at run time.
const KEYTAR_MODULE = 'keytar';
const importKeytar = (): Promise<{ default: KeytarBackend }> =>
  import(/* @vite-ignore */ KEYTAR_MODULE) as Promise<{ default: KeytarBackend }>;

function isModuleNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

async function loadKeytar(load: () => Promise<{ default: KeytarBackend }>): Promise<KeytarBackend> {
  try {
    // Loaded on first use: a missing or broken native module must not stop the engine from starting.
    return (await load()).default;
  } catch (error) {
    if (isModuleNotFound(error)) {
      // keytar is an optional dependency: npm leaves it out where it cannot be built.
      throw new SecretStoreUnavailableError('keytar is not installed (its build needs libsecret-1-dev on Linux)', {
        cause: error,
      });
    }
    throw new SecretStoreUnavailableError(`the keytar module could not be loaded (${reasonOf(error)})`, {
      cause: error,
    });
  }
}

/** API keys in the OS keychain (Secret Service, Keychain, Credential Manager): service `merchant-desk`, account = merchant id. */
export class KeytarSecretStore implements SecretStore {
  readonly kind = 'keychain';
  readonly service: string;
  readonly #probeTimeoutMs: number;
  readonly #operationTimeoutMs: number;
  readonly #loadModule: () => Promise<{ default: KeytarBackend }>;
  #backend: Promise<KeytarBackend> | null;

  constructor(options: KeytarSecretStoreOptions = {}) {
    this.service = options.service ?? KEYCHAIN_SERVICE;
    this.#backend = options.backend ? Promise.resolve(options.backend) : null;
    this.#probeTimeoutMs = options.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    this.#operationTimeoutMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    this.#loadModule = options.loadModule ?? importKeytar;
  }

  /**
   * Resolves when the keychain answers a harmless lookup; rejects with `SecretStoreTimeoutError` when it is slow to,
   * and with `SecretStoreUnavailableError` when there is none (keytar missing, no Secret Service).
   */
  async probe(): Promise<void> {
    await withTimeout(
      this.#run((k) => k.findCredentials(this.service)),
      this.#probeTimeoutMs,
    );
  }

  get(merchantId: string): Promise<string | null> {
    return withTimeout(
      this.#run((k) => k.getPassword(this.service, merchantId)),
      this.#operationTimeoutMs,
    );
  }

  set(merchantId: string, apiKey: string): Promise<void> {
    return withTimeout(
      this.#run((k) => k.setPassword(this.service, merchantId, apiKey)),
      this.#operationTimeoutMs,
    );
  }

  delete(merchantId: string): Promise<boolean> {
    return withTimeout(
      this.#run((k) => k.deletePassword(this.service, merchantId)),
      this.#operationTimeoutMs,
    );
  }

  async #run<T>(operation: (backend: KeytarBackend) => Promise<T>): Promise<T> {
    this.#backend ??= loadKeytar(this.#loadModule);
    const backend = await this.#backend;
    try {
      return await operation(backend);
    } catch (error) {
      throw new SecretStoreUnavailableError(reasonOf(error), { cause: error });
    }
  }
}

/** `operation`, or a `SecretStoreTimeoutError` (carrying `operation`) when the keychain does not answer within `ms`. */
async function withTimeout<T>(operation: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new SecretStoreTimeoutError(ms, operation)), ms);
  });
  try {
    return await Promise.race([operation, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
