import { API_KEY_VARIABLE, type Environment, EnvironmentSecretStore, MERCHANT_ID_VARIABLE } from './environmentStore';
import { KeytarSecretStore } from './keytarStore';
import { MemorySecretStore } from './memoryStore';
import type { SecretStore } from './secretStore';

export interface OpenSecretStoreOptions {
  env: Environment;
  /** The keychain to try; the real one (keytar) when absent. */
  keychain?: KeytarSecretStore;
}

export interface OpenedSecretStore {
  store: SecretStore;
  /** Why the keychain is not used, for the user; null when it is. */
  warning: string | null;
}

/** The keychain when it answers, else the environment when both variables are set, else memory. */
export async function openSecretStore(options: OpenSecretStoreOptions): Promise<OpenedSecretStore> {
  const keychain = options.keychain ?? new KeytarSecretStore();
  let reason: string;
  try {
    await keychain.probe();
    return { store: keychain, warning: null };
  } catch (error) {
    reason = error instanceof Error ? error.message : String(error);
  }
  if (EnvironmentSecretStore.isConfigured(options.env)) {
    return {
      store: new EnvironmentSecretStore(options.env),
      warning: `${reason}. Using the API key from ${API_KEY_VARIABLE} for merchant ${options.env[MERCHANT_ID_VARIABLE]}.`,
    };
  }
  return {
    store: new MemorySecretStore(),
    warning: `${reason}. API keys are kept in memory only and must be entered again after a restart (or set ${API_KEY_VARIABLE} and ${MERCHANT_ID_VARIABLE}).`,
  };
}
