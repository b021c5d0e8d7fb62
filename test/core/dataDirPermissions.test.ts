import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/main/core/engine/engine';
import { createLog } from '../../src/main/shell/log';
import { MemorySecretStore } from '../../src/main/core/secrets';
import { IPC_METHODS } from '../../src/shared/ipc';
import { startDemoSandbox } from '../../src/server/demo';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { adminApi } from '../support/sandboxHttp';
import { waitFor } from '../support/waitFor';

/**
 * The data folder holds the account's whole history (trades, ledger, recipients' trade URLs) and its
 * settings: other users of the machine may not read it. A new folder is created owner-only; an
 * existing one that is open to others is tightened, with a warning.
 */

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');

describe.skipIf(process.platform === 'win32')('the data folder is private to its user', () => {
  let sb: Sandbox;
  let credentials: { baseUrl: string; wsUrl: string; merchantId: string; apiKey: string };
  const dirs: string[] = [];

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 3 });
    const merchant = await adminApi(sb).createMerchant({ balance: 10_000 });
    credentials = { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId: merchant.merchantId, apiKey: merchant.apiKey };
  }, 30_000);

  afterAll(async () => {
    await sb.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  function engineAt(dataDir: string, lines: string[]): Engine {
    return new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: (line) => lines.push(line),
      startDemo: () => Promise.reject(new Error('no demo here')),
      override: credentials,
    });
  }

  /** The account database's files while the engine holds it open (WAL mode: -wal and -shm beside it; the auto-buy journal). */
  async function databaseFiles(dataDir: string): Promise<string[]> {
    const accounts = join(dataDir, 'accounts');
    const found = (): string[] | null => {
      const names = existsSync(accounts) ? readdirSync(accounts) : [];
      const db = names.find((name) => name.endsWith('.sqlite'));
      const beside = db ? [`${db}-wal`, `${db}-shm`, `${db}.auto-buys`] : [];
      return db && beside.every((name) => names.includes(name))
        ? [db, ...beside].map((name) => join(accounts, name))
        : null;
    };
    await waitFor(() => found() !== null);
    return found() ?? [];
  }

  it('creates a new folder 0700, and config.json and the account database with its -wal, -shm and auto-buy journal 0600', async () => {
    const base = mkdtempSync(join(tmpdir(), 'md-perm-'));
    dirs.push(base);
    const dataDir = join(base, 'Merchant Desk');
    const lines: string[] = [];
    const engine = engineAt(dataDir, lines);
    try {
      await engine.start();
      await engine.handle('settings.update', IPC_METHODS['settings.update'].input.parse({ theme: 'light' }));
      const files = await databaseFiles(dataDir);
      expect({ dataDir: modeOf(dataDir), accounts: modeOf(join(dataDir, 'accounts')) }).toEqual({
        dataDir: '0700',
        accounts: '0700',
      });
      expect(
        Object.fromEntries(
          [join(dataDir, 'config.json'), ...files].map((file) => [file.slice(dataDir.length), modeOf(file)]),
        ),
      ).toEqual(
        Object.fromEntries(
          [join(dataDir, 'config.json'), ...files].map((file) => [file.slice(dataDir.length), '0600']),
        ),
      );
      expect(lines.join('\n')).not.toMatch(/other users/);
    } finally {
      await engine.close();
    }
  });

  it('tightens an existing folder open to others (0700, its files 0600) and says so', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'md-perm-existing-'));
    dirs.push(dataDir);
    // A folder an older version (or the user) left readable by everyone, with its settings and account database.
    const first = engineAt(dataDir, []);
    await first.start();
    await first.handle('settings.update', IPC_METHODS['settings.update'].input.parse({ theme: 'light' }));
    const [db] = await databaseFiles(dataDir);
    await first.close();
    if (!db) throw new Error('no account database');
    writeFileSync(`${db}-wal`, '');
    for (const dir of [dataDir, join(dataDir, 'accounts')]) chmodSync(dir, 0o755);
    for (const file of [join(dataDir, 'config.json'), db, `${db}-wal`]) chmodSync(file, 0o644);

    const lines: string[] = [];
    const engine = engineAt(dataDir, lines);
    try {
      expect({ dataDir: modeOf(dataDir), accounts: modeOf(join(dataDir, 'accounts')) }).toEqual({
        dataDir: '0700',
        accounts: '0700',
      });
      for (const file of [join(dataDir, 'config.json'), db, `${db}-wal`]) expect(modeOf(file), file).toBe('0600');
      const warning = lines.find((line) => line.includes('other users'));
      expect(warning).toBeDefined();
      expect(warning).toContain(dataDir);
      expect(warning).toContain('0755');
      expect(warning).toContain('0700');
      await engine.start();
      for (const file of await databaseFiles(dataDir)) expect(modeOf(file), file).toBe('0600');
    } finally {
      await engine.close();
    }
  });

  it('tightens what is open inside a private folder without a warning, and leaves files not its own alone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'md-perm-inner-'));
    dirs.push(dataDir);
    const first = engineAt(dataDir, []);
    await first.start();
    await first.handle('settings.update', IPC_METHODS['settings.update'].input.parse({ theme: 'light' }));
    const [db] = await databaseFiles(dataDir);
    await first.close();
    if (!db) throw new Error('no account database');
    chmodSync(join(dataDir, 'accounts'), 0o755);
    chmodSync(db, 0o644);
    chmodSync(join(dataDir, 'config.json'), 0o644);
    writeFileSync(join(dataDir, 'notes.txt'), 'mine', { mode: 0o644 });
    chmodSync(join(dataDir, 'notes.txt'), 0o644);

    const lines: string[] = [];
    const engine = engineAt(dataDir, lines);
    try {
      expect([
        modeOf(dataDir),
        modeOf(join(dataDir, 'accounts')),
        modeOf(db),
        modeOf(join(dataDir, 'config.json')),
      ]).toEqual(['0700', '0700', '0600', '0600']);
      expect(modeOf(join(dataDir, 'notes.txt'))).toBe('0644');
      expect(lines.join('\n')).not.toMatch(/other users/);
    } finally {
      await engine.close();
    }
  });

  it('the demo sandbox the hosts start keeps its database (with -wal and -shm) and its port file 0600 in the folder', async () => {
    const base = mkdtempSync(join(tmpdir(), 'md-perm-demo-'));
    dirs.push(base);
    const dataDir = join(base, 'Merchant Desk');
    const umask = process.umask(0o022); // what a desktop session usually has: new files 0644 unless made otherwise
    const engine = new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: () => {},
      startDemo: () => startDemoSandbox(dataDir, () => {}),
    });
    try {
      await engine.start();
      const demoFiles = [
        'demo-sandbox.sqlite',
        'demo-sandbox.sqlite-wal',
        'demo-sandbox.sqlite-shm',
        'demo-sandbox.json',
      ].map((name) => join(dataDir, name));
      await waitFor(() => demoFiles.every((file) => existsSync(file)));
      expect(Object.fromEntries(demoFiles.map((file) => [file.slice(dataDir.length), modeOf(file)]))).toEqual(
        Object.fromEntries(demoFiles.map((file) => [file.slice(dataDir.length), '0600'])),
      );
    } finally {
      process.umask(umask);
      await engine.close();
    }
  }, 60_000);

  it('the shell log, written before the engine starts, creates the data folder and itself owner-only', () => {
    const base = mkdtempSync(join(tmpdir(), 'md-perm-log-'));
    dirs.push(base);
    const dataDir = join(base, 'Merchant Desk');
    createLog(dataDir, { echo: () => {} })('started');
    expect([modeOf(dataDir), modeOf(join(dataDir, 'logs')), modeOf(join(dataDir, 'logs', 'main.log'))]).toEqual([
      '0700',
      '0700',
      '0600',
    ]);
  });
});
