import { API_KEY_VARIABLE, type Environment, EnvironmentSecretStore, MERCHANT_ID_VARIABLE } from './environmentStore';
import { KeytarSecretStore } from './keytarStore';
import { MemorySecretStore } from './memoryStore';
import { type SafeStorageBackend, SafeStorageSecretStore, safeStorageProblem } from './safeStorageStore';
import { type SecretStore, SecretStoreTimeoutError } from './secretStore';

export interface OpenSecretStoreOptions {
  env: Environment;
  /** The keychain to try; the real one (keytar) when absent. */
  keychain?: KeytarSecretStore;
  /** The Electron app's fallback: safeStorage and the file it keeps encrypted keys in. */
  safeStorage?: { backend: SafeStorageBackend; file: string };
}

export interface OpenedSecretStore {
  store: SecretStore;
  /** One line for the log: why the keychain is not used and where keys live instead, or that it is slow; null when it answered. */
  warning: string | null;
}

/**
 * The keychain when it answers, or is there but slow to (busy, or locked until the merchant unlocks it: a slow
 * keychain is still where the keys are); else the environment when both variables are set; else (in the
 * Electron app) keys encrypted with safeStorage; else memory. Each fallback says why in one line.
 */
export async function openSecretStore(options: OpenSecretStoreOptions): Promise<OpenedSecretStore> {
  const keychain = options.keychain ?? new KeytarSecretStore();
  let reason: string;
  try {
    await keychain.probe();
    return { store: keychain, warning: null };
  } catch (error) {
    if (error instanceof SecretStoreTimeoutError) {
      return {
        store: keychain,
        warning: `${error.message}. API keys stay in the OS keychain: the engine waits for its answer.`,
      };
    }
    reason = error instanceof Error ? error.message : String(error);
  }
  if (EnvironmentSecretStore.isConfigured(options.env)) {
    return {
      store: new EnvironmentSecretStore(options.env),
      warning: `${reason}. Using the API key from ${API_KEY_VARIABLE} for merchant ${options.env[MERCHANT_ID_VARIABLE]}.`,
    };
  }
  let safeStorageReason = '';
  if (options.safeStorage) {
    const problem = safeStorageProblem(options.safeStorage.backend);
    if (!problem) {
      return {
        store: new SafeStorageSecretStore(options.safeStorage.backend, options.safeStorage.file),
        warning: `${reason}. API keys are stored encrypted with Electron safeStorage in ${options.safeStorage.file}.`,
      };
    }
    safeStorageReason = `; ${problem}`;
  }
  return {
    store: new MemorySecretStore(),
    warning: `${reason}${safeStorageReason}. API keys are kept in memory only and must be entered again after a restart (or set ${API_KEY_VARIABLE} and ${MERCHANT_ID_VARIABLE}).`,
  };
}
