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
  SecretStoreTimeoutError,
  SecretStoreUnavailableError,
  whenKeychainAnswers,
} from '../../src/main/core/secrets';
import { skipKeychainTests } from '../support/keychain';
import { waitFor } from '../support/waitFor';

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
    // Patient, as the tests are with a busy machine: the app's 5 s probe would take a slow keychain as slow, not absent.
    const opened = await openSecretStore({
      env: { MERCHANT_API_KEY: 'k', MERCHANT_ID: 'm' },
      keychain: new KeytarSecretStore({ probeTimeoutMs: 60_000 }),
    });
    expect(opened.store.kind).toBe('keychain');
    expect(opened.warning).toBeNull();
  });

  it.runIf(process.platform === 'linux')(
    'explains a real missing Secret Service (child process without a session bus)',
    async () => {
      const secrets = fileURLToPath(new URL('../../src/main/core/secrets/index.ts', import.meta.url));
      const script = `const { openSecretStore } = await import(${JSON.stringify(secrets)});
      const opened = await openSecretStore({ env: {} });
      console.log(JSON.stringify({ kind: opened.store.kind, warning: opened.warning }));`;
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/merchant-desk-bus',
      };
      delete env['DISPLAY'];
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { env },
      );
      const result = JSON.parse(stdout) as { kind: string; warning: string };
      expect(result.kind).toBe('memory');
      expect(result.warning).toMatch(
        /^OS keychain unavailable: no Secret Service reachable \(.+\)\. API keys are kept in memory only/,
      );
    },
  );

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

  it('stops waiting for a probe that does not answer (a locked keyring waiting for a prompt): a slow keychain, not an absent one', async () => {
    const hanging: KeytarBackend = { ...brokenKeytar, findCredentials: () => new Promise(() => {}) };
    const store = new KeytarSecretStore({ backend: hanging, probeTimeoutMs: 50 });
    const error = await store.probe().catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(SecretStoreTimeoutError);
    expect((error as Error).message).toBe(
      'OS keychain slow: no answer within 50 ms (busy, or locked and waiting to be unlocked)',
    );
  });

  it('stops waiting for a read, write or delete that does not answer, and hands over its late answer', async () => {
    let answer: (key: string) => void = () => {};
    const never = () => new Promise<never>(() => {});
    const hanging: KeytarBackend = {
      getPassword: () => new Promise((resolve) => (answer = resolve)),
      setPassword: never,
      deletePassword: never,
      findCredentials: never,
    };
    const store = new KeytarSecretStore({ backend: hanging, operationTimeoutMs: 50 });
    const error = await store.get('acme').catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(SecretStoreTimeoutError);
    expect((error as Error).message).toBe(
      'OS keychain slow: no answer within 50 ms (busy, or locked and waiting to be unlocked)',
    );
    answer('sk_late');
    expect(await (error as SecretStoreTimeoutError).answer).toBe('sk_late');
    await expect(store.set('acme', 'k')).rejects.toBeInstanceOf(SecretStoreTimeoutError);
    await expect(store.delete('acme')).rejects.toBeInstanceOf(SecretStoreTimeoutError);
  });
});

describe('whenKeychainAnswers', () => {
  it('waits for the late answer of a call that timed out, and makes it again after a backoff when it fails', async () => {
    const answers: { resolve(key: string | null): void; reject(error: Error): void }[] = [];
    const backend: KeytarBackend = {
      ...brokenKeytar,
      getPassword: () => new Promise((resolve, reject) => answers.push({ resolve, reject })),
    };
    const store = new KeytarSecretStore({ backend, operationTimeoutMs: 50 });
    const timedOut = (await store.get('acme').catch((reason: unknown) => reason)) as SecretStoreTimeoutError<
      string | null
    >;
    expect(timedOut).toBeInstanceOf(SecretStoreTimeoutError);
    const retries: number[] = [];
    const answer = whenKeychainAnswers(timedOut, () => store.get('acme'), {
      signal: new AbortController().signal,
      onRetry: (at) => retries.push(at),
    });
    // The hanging call fails (libsecret's own D-Bus time-out): one more call, after the backoff, answers.
    answers[0]?.reject(new Error('Timeout was reached'));
    await waitFor(() => answers.length === 2, 10_000);
    expect(retries).toHaveLength(1);
    answers[1]?.resolve('sk_late');
    expect(await answer).toBe('sk_late');
  });

  it('ends when its signal aborts (a key was entered meanwhile), even during the backoff, and asks no more', async () => {
    let calls = 0;
    let fail: (error: Error) => void = () => {};
    const backend: KeytarBackend = {
      ...brokenKeytar,
      getPassword: () => (calls++, new Promise((_resolve, reject) => (fail = reject))),
    };
    const store = new KeytarSecretStore({ backend, operationTimeoutMs: 50 });
    const timedOut = (await store.get('acme').catch((reason: unknown) => reason)) as SecretStoreTimeoutError<
      string | null
    >;
    const stop = new AbortController();
    const answer = whenKeychainAnswers(timedOut, () => store.get('acme'), {
      signal: stop.signal,
      onRetry: () => stop.abort(new Error('a key was entered')),
    });
    fail(new Error('Timeout was reached'));
    await expect(answer).rejects.toThrow('a key was entered');
    expect(calls).toBe(1);
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
    const opened = await openSecretStore({
      env: { MERCHANT_API_KEY: 'sk_env', MERCHANT_ID: 'acme' },
      keychain: broken(),
    });
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

  it('keeps a keychain that is slow to answer, rather than the environment or memory', async () => {
    const slow = new KeytarSecretStore({
      backend: { ...brokenKeytar, findCredentials: () => new Promise(() => {}) },
      probeTimeoutMs: 50,
    });
    const opened = await openSecretStore({ env: { MERCHANT_API_KEY: 'sk_env', MERCHANT_ID: 'acme' }, keychain: slow });
    expect(opened.store).toBe(slow);
    expect(opened.warning).toBe(
      'OS keychain slow: no answer within 50 ms (busy, or locked and waiting to be unlocked). API keys stay in the OS keychain: the engine waits for its answer.',
    );
  });

  it('prefers a working keychain over the environment', async () => {
    const working = new MemorySecretStore();
    const backend: KeytarBackend = {
      getPassword: (_service, account) => working.get(account),
      setPassword: (_service, account, password) => working.set(account, password),
      deletePassword: (_service, account) => working.delete(account),
      findCredentials: async () => [],
    };
    const opened = await openSecretStore({
      env: { MERCHANT_API_KEY: 'sk_env', MERCHANT_ID: 'acme' },
      keychain: new KeytarSecretStore({ backend }),
    });
    expect(opened).toMatchObject({ store: { kind: 'keychain' }, warning: null });
  });
});

describe('the engine and the keychain', () => {
  it('asks the keychain once for the snapshots, and a keychain that hangs cannot hang a snapshot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'secrets-engine-'));
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        version: 1,
        account: { baseUrl: 'http://127.0.0.1:9', wsUrl: 'ws://127.0.0.1:9/ws', merchantId: 'acme' },
        settings: { demoSandbox: true },
      }),
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
