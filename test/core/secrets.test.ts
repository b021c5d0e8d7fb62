import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/main/core/engine/engine';
import {
  EnvironmentSecretStore,
  KEYCHAIN_SERVICE,
  type KeytarBackend,
  KeytarSecretStore,
  MemorySecretStore,
  openSecretStore,
  SecretStoreReadOnlyError,
  SecretStoreUnavailableError,
} from '../../src/main/core/secrets';
import { skipKeychainTests } from '../support/keychain';

/** In CI (CI=true) the keychain tests always run, and fail when there is no Secret Service instead of skipping silently. */
const noKeychain = await skipKeychainTests('keychain tests');

/** A keytar whose every call fails the way libsecret does without a session bus. */
const brokenKeytar: KeytarBackend = {
  getPassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
  setPassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
  deletePassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
  findCredentials: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
};

describe('KeytarSecretStore (the real OS keychain)', () => {
  const merchantId = `desk-test-${randomUUID()}`;
  const store = new KeytarSecretStore();
  afterAll(async () => {
    if (!noKeychain) await store.delete(merchantId);
  });

  it.skipIf(noKeychain)('stores, reads, overwrites and deletes a key under service merchant-desk', async () => {
    expect(store.kind).toBe('keychain');
    expect(store.service).toBe(KEYCHAIN_SERVICE);
    expect(await store.get(merchantId)).toBeNull();
    await store.set(merchantId, 'sk_first');
    expect(await store.get(merchantId)).toBe('sk_first');
    await store.set(merchantId, 'sk_second');
    expect(await store.get(merchantId)).toBe('sk_second');
    // Another store (another run of the app) reads the same entry.
    expect(await new KeytarSecretStore().get(merchantId)).toBe('sk_second');
    expect(await store.delete(merchantId)).toBe(true);
    expect(await store.get(merchantId)).toBeNull();
    expect(await store.delete(merchantId)).toBe(false);
  });

  it.skipIf(noKeychain)('is what openSecretStore picks when it answers', async () => {
    const opened = await openSecretStore({ env: { MERCHANT_API_KEY: 'k', MERCHANT_ID: 'm' } });
    expect(opened.store.kind).toBe('keychain');
    expect(opened.warning).toBeNull();
  });

  it.runIf(process.platform === 'linux')('explains a real missing Secret Service (child process without a session bus)', async () => {
    const secrets = fileURLToPath(new URL('../../src/main/core/secrets/index.ts', import.meta.url));
    const script = `const { openSecretStore } = await import(${JSON.stringify(secrets)});
      const opened = await openSecretStore({ env: {} });
      console.log(JSON.stringify({ kind: opened.store.kind, warning: opened.warning }));`;
    const env: NodeJS.ProcessEnv = { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/merchant-desk-bus' };
    delete env['DISPLAY'];
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env });
    const result = JSON.parse(stdout) as { kind: string; warning: string };
    expect(result.kind).toBe('memory');
    expect(result.warning).toMatch(/^OS keychain unavailable: no Secret Service reachable \(.+\)\. API keys are kept in memory only/);
  });

  it('wraps keychain failures in SecretStoreUnavailableError with the reason', async () => {
    const broken = new KeytarSecretStore({ backend: brokenKeytar });
    const error = await broken.get('acme').catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(SecretStoreUnavailableError);
    expect(error).toMatchObject({
      reason: 'no Secret Service reachable (Cannot autolaunch D-Bus without X11 $DISPLAY)',
      message: 'OS keychain unavailable: no Secret Service reachable (Cannot autolaunch D-Bus without X11 $DISPLAY)',
    });
    await expect(broken.set('acme', 'k')).rejects.toBeInstanceOf(SecretStoreUnavailableError);
    await expect(broken.delete('acme')).rejects.toBeInstanceOf(SecretStoreUnavailableError);
    await expect(broken.probe()).rejects.toBeInstanceOf(SecretStoreUnavailableError);
  });

  it('gives up probing a keychain that never answers (a locked keyring waiting for a prompt)', async () => {
    const hanging: KeytarBackend = { ...brokenKeytar, findCredentials: () => new Promise(() => {}) };
    const store = new KeytarSecretStore({ backend: hanging, probeTimeoutMs: 50 });
    await expect(store.probe()).rejects.toThrow('OS keychain unavailable: no answer within 50 ms (keyring locked?)');
  });

  it('gives up reading, writing and deleting when the keychain never answers', async () => {
    const never = () => new Promise<never>(() => {});
    const hanging: KeytarBackend = { getPassword: never, setPassword: never, deletePassword: never, findCredentials: never };
    const store = new KeytarSecretStore({ backend: hanging, operationTimeoutMs: 50 });
    await expect(store.get('acme')).rejects.toThrow('OS keychain unavailable: no answer within 50 ms (keyring locked?)');
    await expect(store.set('acme', 'k')).rejects.toBeInstanceOf(SecretStoreUnavailableError);
    await expect(store.delete('acme')).rejects.toBeInstanceOf(SecretStoreUnavailableError);
  });
});

describe('EnvironmentSecretStore', () => {
  const env = { MERCHANT_API_KEY: 'sk_env', MERCHANT_ID: 'acme' };

  it('gives MERCHANT_API_KEY for MERCHANT_ID only', async () => {
    const store = new EnvironmentSecretStore(env);
    expect(store.kind).toBe('environment');
    expect(store.merchantId).toBe('acme');
    expect(await store.get('acme')).toBe('sk_env');
    expect(await store.get('other')).toBeNull();
    expect(await new EnvironmentSecretStore({ MERCHANT_ID: 'acme' }).get('acme')).toBeNull();
  });

  it('is read-only with a clear error', async () => {
    const store = new EnvironmentSecretStore(env);
    await expect(store.set('acme', 'new')).rejects.toThrow(SecretStoreReadOnlyError);
    await expect(store.set('acme', 'new')).rejects.toThrow(/MERCHANT_API_KEY and MERCHANT_ID environment variables/);
    await expect(store.delete('acme')).rejects.toThrow(SecretStoreReadOnlyError);
    expect(await store.get('acme')).toBe('sk_env');
  });

  it('keeps the key out of its serialized forms', () => {
    const store = new EnvironmentSecretStore(env);
    expect(JSON.stringify(store)).not.toContain('sk_env');
  });
});

describe('MemorySecretStore', () => {
  it('round-trips, overwrites and deletes', async () => {
    const store = new MemorySecretStore();
    expect(store.kind).toBe('memory');
    expect(await store.get('demo')).toBeNull();
    await store.set('demo', 'sk_a');
    await store.set('demo', 'sk_b');
    expect(await store.get('demo')).toBe('sk_b');
    expect(JSON.stringify(store)).not.toContain('sk_b');
    expect(await store.delete('demo')).toBe(true);
    expect(await store.delete('demo')).toBe(false);
    expect(await store.get('demo')).toBeNull();
  });
});

describe('openSecretStore fallback order', () => {
  const broken = () => new KeytarSecretStore({ backend: brokenKeytar });

  it('uses the environment when the keychain fails and both variables are set', async () => {
    const opened = await openSecretStore({ env: { MERCHANT_API_KEY: 'sk_env', MERCHANT_ID: 'acme' }, keychain: broken() });
    expect(opened.store.kind).toBe('environment');
    expect(await opened.store.get('acme')).toBe('sk_env');
    expect(opened.warning).toBe(
      'OS keychain unavailable: no Secret Service reachable (Cannot autolaunch D-Bus without X11 $DISPLAY). Using the API key from MERCHANT_API_KEY for merchant acme.',
    );
    expect(opened.warning).not.toContain('sk_env');
  });

  it('falls back to memory with a warning when only one variable is set', async () => {
    const opened = await openSecretStore({ env: { MERCHANT_API_KEY: 'sk_env' }, keychain: broken() });
    expect(opened.store.kind).toBe('memory');
    expect(opened.warning).toContain('kept in memory only');
  });

  it('prefers a working keychain over the environment', async () => {
    const working = new MemorySecretStore();
    const backend: KeytarBackend = {
      getPassword: (_service, account) => working.get(account),
      setPassword: (_service, account, password) => working.set(account, password),
      deletePassword: (_service, account) => working.delete(account),
      findCredentials: async () => [],
    };
    const opened = await openSecretStore({ env: { MERCHANT_API_KEY: 'sk_env', MERCHANT_ID: 'acme' }, keychain: new KeytarSecretStore({ backend }) });
    expect(opened).toMatchObject({ store: { kind: 'keychain' }, warning: null });
  });
});

describe('the engine and the keychain', () => {
  it('asks the keychain once for the snapshots, and a keychain that hangs cannot hang a snapshot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'secrets-engine-'));
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ version: 1, account: { baseUrl: 'http://127.0.0.1:9', wsUrl: 'ws://127.0.0.1:9/ws', merchantId: 'acme' }, settings: { demoSandbox: true } }),
    );
    let reads = 0;
    const hanging: KeytarBackend = {
      ...brokenKeytar,
      getPassword: () => {
        reads++;
        return new Promise(() => {});
      },
    };
    const engine = new Engine({
      dataDir,
      secrets: new KeytarSecretStore({ backend: hanging, operationTimeoutMs: 100 }),
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo in this test')),
    });
    try {
      const started = Date.now();
      const first = await engine.snapshot();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(first.account.apiKeyConfigured).toBe(false);
      for (let i = 0; i < 5; i++) await engine.snapshot();
      expect(reads).toBe(1);
    } finally {
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
