// Where the API key lives when the OS keychain (keytar) is not there: keytar not installed (npm left the
// optional dependency out), Electron's safeStorage in the desktop app, the environment or memory in the
// web host; and the one start-up line that says which and why.
import { execFile } from 'node:child_process';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  KeytarSecretStore,
  openSecretStore,
  type SafeStorageBackend,
  SafeStorageSecretStore,
  SecretStoreUnavailableError,
} from '../../src/main/core/secrets';

const WITHOUT_KEYTAR = fileURLToPath(new URL('../support/withoutKeytar.mjs', import.meta.url));
const SECRETS = fileURLToPath(new URL('../../src/main/core/secrets/index.ts', import.meta.url));

/** Encrypts as safeStorage does (a key the OS holds, here one per backend): AES-256-GCM, authenticated. */
function aesBackend(options: { available?: boolean; selected?: string } = {}): SafeStorageBackend {
  const key = randomBytes(32);
  return {
    isEncryptionAvailable: () => options.available ?? true,
    getSelectedStorageBackend: () => options.selected ?? 'gnome_libsecret',
    encryptString(plainText) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plainText, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]);
    },
    decryptString(encrypted) {
      const decipher = createDecipheriv('aes-256-gcm', key, encrypted.subarray(0, 12));
      decipher.setAuthTag(encrypted.subarray(12, 28));
      return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** A keytar module that is not installed: the real error Node gives for an import of a missing package. */
const NOT_INSTALLED: string = 'merchant-desk-no-such-keytar-module';
const missingKeytar = () => new KeytarSecretStore({ loadModule: () => import(NOT_INSTALLED) as never });

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'key-store-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('SafeStorageSecretStore (Electron safeStorage behind an interface)', () => {
  it('keeps keys encrypted in a 0600 file that another run of the app reads back', async () => {
    const file = join(tempDir(), 'api-keys.json');
    const backend = aesBackend();
    const store = new SafeStorageSecretStore(backend, file);
    expect(store.kind).toBe('safeStorage');
    expect(await store.get('acme')).toBeNull();
    await store.set('acme', 'sk_live_first');
    await store.set('globex', 'sk_live_other');
    await store.set('acme', 'sk_live_second');
    expect(await new SafeStorageSecretStore(backend, file).get('acme')).toBe('sk_live_second');
    expect(await store.get('globex')).toBe('sk_live_other');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('sk_live');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(existsSync(`${file}.tmp`)).toBe(false);
    expect(await store.delete('acme')).toBe(true);
    expect(await store.delete('acme')).toBe(false);
    expect(await store.get('acme')).toBeNull();
    expect(await store.get('globex')).toBe('sk_live_other');
  });

  it('treats a merchant id such as __proto__ as a key like any other', async () => {
    const store = new SafeStorageSecretStore(aesBackend(), join(tempDir(), 'api-keys.json'));
    expect(await store.get('__proto__')).toBeNull();
    expect(await store.get('toString')).toBeNull();
    await store.set('__proto__', 'sk_proto');
    expect(await store.get('__proto__')).toBe('sk_proto');
    expect(await store.delete('toString')).toBe(false);
  });

  it('tightens an existing file that was readable by others', async () => {
    const file = join(tempDir(), 'api-keys.json');
    writeFileSync(file, JSON.stringify({ version: 1, keys: {} }), { mode: 0o644 });
    await new SafeStorageSecretStore(aesBackend(), file).set('acme', 'sk_x');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses to store with no real encryption (no keyring: basic_text), and says why', async () => {
    const file = join(tempDir(), 'api-keys.json');
    const store = new SafeStorageSecretStore(aesBackend({ selected: 'basic_text' }), file);
    await expect(store.set('acme', 'sk_x')).rejects.toThrow(/built-in password \(basic_text\)/);
    expect(existsSync(file)).toBe(false);
    const unavailable = new SafeStorageSecretStore(aesBackend({ available: false }), file);
    await expect(unavailable.set('acme', 'sk_x')).rejects.toBeInstanceOf(SecretStoreUnavailableError);
  });

  it('gives a clear error, and keeps the file, when it is not a key file or a key cannot be decrypted', async () => {
    const file = join(tempDir(), 'api-keys.json');
    writeFileSync(file, '{"version": 1, "keys": {"acme": 42}}');
    const store = new SafeStorageSecretStore(aesBackend(), file);
    await expect(store.get('acme')).rejects.toThrow(/is not a key file of this app; move it away/);
    await expect(store.set('acme', 'sk_x')).rejects.toThrow(SecretStoreUnavailableError);
    expect(readFileSync(file, 'utf8')).toBe('{"version": 1, "keys": {"acme": 42}}');
    writeFileSync(file, '{not json');
    await expect(store.get('acme')).rejects.toThrow(/is not readable JSON/);

    const other = join(tempDir(), 'api-keys.json');
    await new SafeStorageSecretStore(aesBackend(), other).set('acme', 'sk_x');
    // Another machine's (or user's) OS key cannot decrypt it.
    await expect(new SafeStorageSecretStore(aesBackend(), other).get('acme')).rejects.toThrow(
      /the stored key of acme could not be decrypted/,
    );
  });
});

describe('when keytar is not installed', () => {
  it('the keychain explains it in one line', async () => {
    const error = await missingKeytar()
      .probe()
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(SecretStoreUnavailableError);
    expect((error as Error).message).toBe(
      'OS keychain unavailable: keytar is not installed (its build needs libsecret-1-dev on Linux)',
    );
  });

  it('the desktop app keeps keys encrypted with safeStorage, and says so', async () => {
    const file = join(tempDir(), 'api-keys.json');
    const opened = await openSecretStore({
      env: {},
      keychain: missingKeytar(),
      safeStorage: { backend: aesBackend(), file },
    });
    expect(opened.store.kind).toBe('safeStorage');
    expect(opened.warning).toBe(
      `OS keychain unavailable: keytar is not installed (its build needs libsecret-1-dev on Linux). API keys are stored encrypted with Electron safeStorage in ${file}.`,
    );
    await opened.store.set('acme', 'sk_y');
    expect(await opened.store.get('acme')).toBe('sk_y');
  });

  it('the desktop app without a keyring for safeStorage keeps keys in memory, and says both reasons', async () => {
    const opened = await openSecretStore({
      env: {},
      keychain: missingKeytar(),
      safeStorage: { backend: aesBackend({ selected: 'basic_text' }), file: join(tempDir(), 'k.json') },
    });
    expect(opened.store.kind).toBe('memory');
    expect(opened.warning).toMatch(
      /^OS keychain unavailable: keytar is not installed \(.+\); Electron safeStorage found no OS keyring .+\. API keys are kept in memory only/,
    );
  });

  it('the environment still wins when both variables are set (its key is the one the user chose)', async () => {
    const opened = await openSecretStore({
      env: { MERCHANT_API_KEY: 'sk_env', MERCHANT_ID: 'acme' },
      keychain: missingKeytar(),
      safeStorage: { backend: aesBackend(), file: join(tempDir(), 'k.json') },
    });
    expect(opened.store.kind).toBe('environment');
    expect(opened.warning).toContain('Using the API key from MERCHANT_API_KEY for merchant acme.');
    expect(opened.warning).not.toContain('sk_env');
  });

  it('a process that cannot load keytar (the web host) says where keys live: memory, or the environment', async () => {
    const script = `const { openSecretStore } = await import(${JSON.stringify(SECRETS)});
      const opened = await openSecretStore({ env: process.env });
      console.log(JSON.stringify({ kind: opened.store.kind, warning: opened.warning }));`;
    const run = async (extra: Record<string, string>) => {
      const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
      if (!('MERCHANT_API_KEY' in extra)) delete env['MERCHANT_API_KEY'];
      if (!('MERCHANT_ID' in extra)) delete env['MERCHANT_ID'];
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--import', WITHOUT_KEYTAR, '--input-type=module', '-e', script],
        { env },
      );
      return JSON.parse(stdout) as { kind: string; warning: string };
    };
    const memory = await run({});
    expect(memory.kind).toBe('memory');
    expect(memory.warning).toBe(
      'OS keychain unavailable: keytar is not installed (its build needs libsecret-1-dev on Linux). API keys are kept in memory only and must be entered again after a restart (or set MERCHANT_API_KEY and MERCHANT_ID).',
    );
    const environment = await run({ MERCHANT_API_KEY: 'sk_from_env', MERCHANT_ID: 'acme' });
    expect(environment.kind).toBe('environment');
    expect(environment.warning).toBe(
      'OS keychain unavailable: keytar is not installed (its build needs libsecret-1-dev on Linux). Using the API key from MERCHANT_API_KEY for merchant acme.',
    );
  });
});
