import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SecretStore } from './secretStore';
import { SecretStoreUnavailableError } from './secretStore';

/**
 * The part of Electron's `safeStorage` we use, so the store's logic runs under plain Node in tests.
 * Electron encrypts with a key the OS keeps (Keychain, DPAPI, kwallet/libsecret).
 */
export interface SafeStorageBackend {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: `basic_text` means a password built into Chromium, which protects nothing. */
  getSelectedStorageBackend?(): string;
}

/** The file: `{ version: 1, keys: { [merchantId]: base64 of the encrypted key } }`. */
interface KeyFile {
  version: 1;
  keys: Record<string, string>;
}

function selectedBackend(backend: SafeStorageBackend): string | null {
  try {
    return backend.getSelectedStorageBackend?.() ?? null;
  } catch {
    // Only Linux answers; elsewhere the OS's own store is always used.
    return null;
  }
}

/** Why `backend` cannot protect a key, or null when it can. */
export function safeStorageProblem(backend: SafeStorageBackend): string | null {
  if (!backend.isEncryptionAvailable()) return 'Electron safeStorage has no encryption available';
  if (selectedBackend(backend) === 'basic_text') {
    return 'Electron safeStorage found no OS keyring and would use a built-in password (basic_text)';
  }
  return null;
}

/**
 * API keys encrypted with Electron's safeStorage in one file (mode 0600) of the data folder: the
 * keychain's stand-in where keytar could not be built (what VS Code and Signal Desktop use).
 */
export class SafeStorageSecretStore implements SecretStore {
  readonly kind = 'safeStorage';
  readonly #backend: SafeStorageBackend;
  readonly #file: string;

  constructor(backend: SafeStorageBackend, file: string) {
    this.#backend = backend;
    this.#file = file;
  }

  async get(merchantId: string): Promise<string | null> {
    const encrypted = this.#read().get(merchantId);
    if (encrypted === undefined) return null;
    try {
      return this.#backend.decryptString(Buffer.from(encrypted, 'base64'));
    } catch (error) {
      throw new SecretStoreUnavailableError(
        `the stored key of ${merchantId} could not be decrypted (${(error as Error).message})`,
        { cause: error },
      );
    }
  }

  async set(merchantId: string, apiKey: string): Promise<void> {
    const problem = safeStorageProblem(this.#backend);
    if (problem) throw new SecretStoreUnavailableError(problem);
    const keys = this.#read();
    keys.set(merchantId, this.#backend.encryptString(apiKey).toString('base64'));
    this.#write(keys);
  }

  async delete(merchantId: string): Promise<boolean> {
    const keys = this.#read();
    if (!keys.delete(merchantId)) return false;
    this.#write(keys);
    return true;
  }

  /** merchant id → encrypted key (a Map: a merchant id such as `__proto__` is a key like any other). */
  #read(): Map<string, string> {
    if (!existsSync(this.#file)) return new Map();
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.#file, 'utf8'));
    } catch (error) {
      throw new SecretStoreUnavailableError(
        `${this.#file} is not readable JSON (${(error as Error).message}); move it away to start afresh`,
        { cause: error },
      );
    }
    if (!isKeyFile(parsed))
      throw new SecretStoreUnavailableError(
        `${this.#file} is not a key file of this app; move it away to start afresh`,
      );
    return new Map(Object.entries(parsed.keys));
  }

  #write(keys: Map<string, string>): void {
    const file: KeyFile = { version: 1, keys: Object.fromEntries(keys) };
    mkdirSync(dirname(this.#file), { recursive: true, mode: 0o700 });
    const temporary = `${this.#file}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    // writeFileSync keeps the mode of a file that already existed.
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.#file);
  }
}

function isKeyFile(value: unknown): value is KeyFile {
  if (typeof value !== 'object' || value === null) return false;
  const { version, keys } = value as { version?: unknown; keys?: unknown };
  if (version !== 1 || typeof keys !== 'object' || keys === null || Array.isArray(keys)) return false;
  return Object.values(keys).every((entry) => typeof entry === 'string');
}
