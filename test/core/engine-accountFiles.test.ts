import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IpcMethod, IpcParsedInput, IpcResult } from '../../src/shared/ipc';
import { IPC_METHODS } from '../../src/shared/ipc';
import { Engine } from '../../src/main/core/engine/engine';
import { MemorySecretStore } from '../../src/main/core/secrets';
import { LocalStore } from '../../src/main/core/store';
import { tradeUrlFor } from '../support/sandboxHttp';
import { accountStoreFile, safeFileName } from '../../src/main/core/engine/accountFiles';

/** Nothing listens here: sessions open their cache and stay offline, which is all these tests need. */
const NOWHERE = { baseUrl: 'http://127.0.0.1:9', wsUrl: 'ws://127.0.0.1:9/ws' };

const dirs: string[] = [];
const engines: Engine[] = [];

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'account-files-'));
  dirs.push(dir);
  return dir;
}

/** An engine on `dataDir` with `merchantId` as its account (the command-line path); `demoMerchantId` is the demo's. */
async function openEngine(dataDir: string, merchantId: string, demoMerchantId = 'demo') {
  const engine = new Engine({
    dataDir,
    secrets: new MemorySecretStore(),
    log: () => {},
    startDemo: async () => ({
      credentials: { ...NOWHERE, merchantId: demoMerchantId, apiKey: 'demo-key-0123456789' },
      close: async () => {},
    }),
    override: { ...NOWHERE, merchantId, apiKey: 'account-key-0123456789' },
  });
  engines.push(engine);
  await engine.start();
  const call = <M extends IpcMethod>(method: M, input: unknown = {}): Promise<IpcResult<M>> =>
    engine.handle(method, IPC_METHODS[method].input.parse(input) as IpcParsedInput<M>);
  const close = async () => {
    engines.splice(engines.indexOf(engine), 1);
    await engine.close();
  };
  return { engine, call, close };
}

const labels = (recipients: { label: string }[]) => recipients.map((recipient) => recipient.label);

describe('one account file per merchant', () => {
  it('keeps merchants whose ids differ only in punctuation or case in files of their own', async () => {
    const dataDir = tempDir();
    const ids = ['a/b', 'a.b', 'a_b', 'A_B', 'a b'];
    for (const [index, merchantId] of ids.entries()) {
      const app = await openEngine(dataDir, merchantId);
      expect(await app.call('recipients.list')).toEqual([]);
      await app.call('recipients.save', { label: `of ${merchantId}`, tradeUrl: tradeUrlFor(10_000_000 + index) });
      await app.close();
    }
    // The first one, opened again after the others, still has its own.
    const first = await openEngine(dataDir, 'a/b');
    expect(labels(await first.call('recipients.list'))).toEqual(['of a/b']);
    const files = readdirSync(join(dataDir, 'accounts')).filter((name) => name.endsWith('.sqlite'));
    expect(files).toHaveLength(ids.length);
    // Distinct on a file system that ignores case too (macOS, Windows).
    expect(new Set(files.map((name) => name.toLowerCase())).size).toBe(ids.length);
  }, 60_000);

  it('keeps the demo sandbox’s cache apart from an account whose id starts with "demo-"', async () => {
    const dataDir = tempDir();
    const app = await openEngine(dataDir, 'demo-shop', 'shop');
    await app.call('recipients.save', { label: 'the real account', tradeUrl: tradeUrlFor(10_000_001) });
    await app.call('account.useDemo');
    expect(app.engine.accountSession?.merchantId).toBe('shop');
    expect(await app.call('recipients.list')).toEqual([]);
    await app.call('recipients.save', { label: 'a demo recipient', tradeUrl: tradeUrlFor(10_000_002) });
    await app.close();
    const again = await openEngine(dataDir, 'demo-shop', 'shop');
    expect(labels(await again.call('recipients.list'))).toEqual(['the real account']);
  }, 60_000);

  it('names files safely on every OS, distinct even where case does not count', () => {
    const ids = [
      'merchant-1',
      'Merchant-1',
      'a/b',
      'a.b',
      'a_b',
      'a__b',
      '../../etc/passwd',
      'C:\\x',
      '..',
      'ü ñ',
      '',
      'CON',
      'con',
      'nul.x',
      'lpt1',
      'x'.repeat(300),
    ];
    const names = ids.map(safeFileName);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(ids.length);
    for (const name of names) {
      expect(name).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
      expect(name).not.toContain('..');
      expect(name.length).toBeLessThanOrEqual(100);
      expect(name.split('.')[0]).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)$/);
    }
    // Plain ids keep their name: the file is easy to find.
    expect(safeFileName('merchant-1')).toBe('merchant-1');
    expect(accountStoreFile('/data', 'merchant-1')).toBe(join('/data', 'accounts', 'merchant-1.sqlite'));
    expect(accountStoreFile('/data', 'merchant-1', 'demo')).toBe(
      join('/data', 'accounts', 'demo', 'merchant-1.sqlite'),
    );
  });
});

describe('caches written under the earlier names', () => {
  /** A cache at `accounts/<name>` with one recipient, as an earlier version left it. */
  async function earlierCache(dataDir: string, name: string, label: string): Promise<string> {
    mkdirSync(join(dataDir, 'accounts'), { recursive: true });
    const file = join(dataDir, 'accounts', name);
    const store = await LocalStore.open({ file });
    await store.saveRecipient({ label, tradeUrl: tradeUrlFor(10_000_003) });
    await store.close();
    return file;
  }

  it('are adopted by their merchant, the demo’s too', async () => {
    const dataDir = tempDir();
    const old = await earlierCache(dataDir, 'Shop_eu.sqlite', 'kept across the upgrade');
    const oldDemo = await earlierCache(dataDir, 'demo-demo.sqlite', 'kept in the demo');
    const app = await openEngine(dataDir, 'Shop.eu');
    expect(labels(await app.call('recipients.list'))).toEqual(['kept across the upgrade']);
    await app.call('account.useDemo');
    expect(labels(await app.call('recipients.list'))).toEqual(['kept in the demo']);
    await app.close();
    expect(existsSync(old)).toBe(false);
    expect(existsSync(oldDemo)).toBe(false);
    expect(existsSync(accountStoreFile(dataDir, 'Shop.eu'))).toBe(true);
    expect(existsSync(accountStoreFile(dataDir, 'demo', 'demo'))).toBe(true);
  }, 60_000);

  it('are not taken from a merchant that has opened its file under the new names', async () => {
    const dataDir = tempDir();
    await earlierCache(dataDir, 'a_b.sqlite', 'of a_b');
    const plain = await openEngine(dataDir, 'a_b');
    expect(labels(await plain.call('recipients.list'))).toEqual(['of a_b']);
    await plain.close();
    const dotted = await openEngine(dataDir, 'a.b');
    expect(await dotted.call('recipients.list')).toEqual([]);
    await dotted.close();
    const back = await openEngine(dataDir, 'a_b');
    expect(labels(await back.call('recipients.list'))).toEqual(['of a_b']);
  }, 60_000);
});
