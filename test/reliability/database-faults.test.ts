import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, type MerchantCredentials } from '../support/sandboxHttp';
import { openBridge } from '../web/support';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';

/**
 * The engine started on a data directory whose account database is corrupt
 * (random bytes), from a newer Merchant Desk (`PRAGMA user_version = 999`), or
 * read-only. Each time: a clear message naming the file and what to do (log
 * line, connection detail, the typed error of calls that need the account),
 * no crash (start() resolves, the engine keeps answering, it can switch to
 * another account without a restart), the bad file left byte for byte, and
 * nothing else in the data directory touched. Then the same through a real
 * process: the web host CLI keeps running and serves its UI.
 */

const ROOT = resolve(import.meta.dirname, '../..');

type Fault = 'corrupt' | 'newer' | 'readonly';

/** Every file under `dir` with its bytes. */
function snapshotTree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(path, readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

/** How to make one file unwritable here: chattr +i as root (root ignores permissions), chmod otherwise. */
function makeReadOnly(file: string): (() => void) | null {
  if (process.getuid?.() !== 0) {
    chmodSync(file, 0o444);
    chmodSync(join(file, '..'), 0o555);
    return () => {
      chmodSync(join(file, '..'), 0o755);
      chmodSync(file, 0o644);
    };
  }
  const set = spawnSync('chattr', ['+i', file]);
  if (set.status !== 0) return null;
  return () => {
    spawnSync('chattr', ['-i', file]);
  };
}

describe('database faults: a bad account database is reported, left alone, and survived', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let other: MerchantCredentials;
  const dirs: string[] = [];
  const undo: (() => void)[] = [];

  beforeAll(async () => {
    sb = await startSandbox({ items: 200, seed: 41 });
    merchant = await adminApi(sb).createMerchant({ balance: 100_000 });
    other = await adminApi(sb).createMerchant({ balance: 100_000 });
  }, 30_000);

  afterAll(async () => {
    for (const restore of undo) restore();
    await sb?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const account = () => ({
    baseUrl: sb.baseUrl,
    wsUrl: sb.wsUrl,
    merchantId: merchant.merchantId,
    apiKey: merchant.apiKey,
  });

  /** A data dir that an engine used normally (config, an account database, another account's database), then the fault. */
  async function preparedDataDir(fault: Fault): Promise<{ dataDir: string; file: string } | null> {
    const dataDir = mkdtempSync(join(tmpdir(), `db-faults-${fault}-`));
    dirs.push(dataDir);
    const first = await startEngine(dataDir, account());
    await waitFor(async () => (await first.call('catalog.query', { limit: 1 })).total > 0, 20_000, 'first sync');
    await first.call('recipients.save', {
      label: 'Main',
      tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234',
    });
    await first.close();
    writeFileSync(join(dataDir, 'accounts', 'unrelated-account.sqlite'), 'another account, not ours to touch');
    writeFileSync(join(dataDir, 'notes.txt'), 'user data beside the app data');
    const file = accountStoreFile(dataDir, merchant.merchantId);
    expect(existsSync(file)).toBe(true);
    if (fault === 'corrupt') writeFileSync(file, randomBytes(64 * 1024));
    if (fault === 'newer') {
      const db = new Database(file);
      db.pragma('user_version = 999');
      db.close();
    }
    if (fault === 'readonly') {
      const restore = makeReadOnly(file);
      if (!restore) return null;
      undo.push(restore);
    }
    return { dataDir, file };
  }

  const advice: Record<Fault, RegExp> = {
    corrupt: /damaged|not a Merchant Desk database/i,
    newer: /newer Merchant Desk|Update Merchant Desk/i,
    readonly: /cannot be written|permissions/i,
  };

  it.each(['corrupt', 'newer', 'readonly'] as const)(
    '%s database: clear message, no crash, file and other data untouched',
    async (fault) => {
      const prepared = await preparedDataDir(fault);
      if (!prepared) {
        process.stdout.write(
          'database-faults: cannot make a file read-only here (root without chattr); read-only case not run\n',
        );
        return;
      }
      const { dataDir, file } = prepared;
      const before = snapshotTree(dataDir);

      const app = await startEngine(dataDir, account()); // resolves: no crash
      try {
        // Said once in the log, naming the file and what to do.
        const logged = app.logs.filter((line) => line.includes(file));
        expect(logged.length, app.logs.join('\n')).toBeGreaterThanOrEqual(1);
        expect(logged.join('\n')).toMatch(advice[fault]);
        // Shown in the state the UI renders (snapshot and event batches).
        const snapshot = await app.engine.snapshot();
        expect(snapshot.connection.detail).toContain(file);
        expect(snapshot.connection.detail).toMatch(advice[fault]);
        await waitFor(
          () => app.batches.some((b) => b.connection?.detail.includes(file)),
          2_000,
          'the problem in an event batch',
        );
        // Calls that need the account fail typed, with the same explanation; reads answer empty.
        const refresh = await dispatchIpc(app.engine, 'catalog.refresh', {});
        expect(refresh).toMatchObject({ ok: false, error: { code: 'unavailable' } });
        if (!refresh.ok) expect(refresh.error.message).toContain(file);
        const query = await dispatchIpc(app.engine, 'catalog.query', { limit: 5 });
        expect(query).toMatchObject({ ok: true, value: { rows: [], total: 0 } });

        // Nothing was deleted or rewritten: every file of the data dir has its bytes (SQLite may add -wal/-shm beside a read-only file).
        const after = snapshotTree(dataDir);
        for (const [path, bytes] of before) {
          expect(after.has(path), `${path} still there`).toBe(true);
          expect(Buffer.compare(after.get(path) as Buffer, bytes), `${path} unchanged`).toBe(0);
        }

        // Still alive and useful: it switches to another account without a restart.
        const switched = await dispatchIpc(app.engine, 'account.configure', {
          baseUrl: sb.baseUrl,
          wsUrl: sb.wsUrl,
          merchantId: other.merchantId,
          apiKey: other.apiKey,
        });
        expect(switched).toMatchObject({ ok: true, value: { ok: true } });
        await waitFor(
          async () => (await app.call('catalog.query', { limit: 1 })).total > 0,
          20_000,
          'the other account syncs',
        );
        expect((await app.engine.snapshot()).connection.detail).not.toContain(file);
        expect(Buffer.compare(readFileSync(file), before.get(file) as Buffer)).toBe(0);
      } finally {
        await app.close();
      }
    },
    60_000,
  );

  it('a real process (the web host CLI) keeps running on a corrupt account database and tells why', async () => {
    const prepared = await preparedDataDir('corrupt');
    if (!prepared) throw new Error('unreachable');
    const { dataDir, file } = prepared;
    const bytes = readFileSync(file);
    mkdirSync(join(dataDir, 'home'), { recursive: true });
    const token = 'reliability-token-0123456789';
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/web/cli.ts',
        '--no-open',
        '--port',
        '0',
        '--base-url',
        sb.baseUrl,
        '--data-dir',
        dataDir,
        '--token',
        token,
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        // No keychain here: the key comes from the environment, as on a headless machine.
        env: {
          ...process.env,
          HOME: join(dataDir, 'home'),
          DBUS_SESSION_BUS_ADDRESS: 'disabled:',
          MERCHANT_ID: merchant.merchantId,
          MERCHANT_API_KEY: merchant.apiKey,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let exitCode: number | null | undefined;
    child.on('exit', (code) => (exitCode = code));
    try {
      await waitFor(
        () => /web host: (http\S+)/.exec(stdout) ?? exitCode !== undefined,
        30_000,
        'the web host URL or an exit',
      );
      expect(exitCode, `the process exited:\n${stderr}`).toBeUndefined();
      // The host listens while the engine opens the account: the report follows the URL line.
      await waitFor(() => stderr.includes(file) || exitCode !== undefined, 15_000, 'the report of the bad file');
      expect(stderr).toContain(file);
      expect(stderr).toMatch(advice.corrupt);
      // It serves its UI and stays up.
      const url = new URL((/web host: (http\S+)/.exec(stdout) as RegExpExecArray)[1] as string);
      const page = await fetch(`${url.origin}/`);
      expect(page.status).toBe(200);
      // The engine's start has settled (the host logs where the data is only after it), and did not fail the process.
      await waitFor(() => stderr.includes('; data in ') || exitCode !== undefined, 15_000, 'the engine started');
      expect(exitCode, stderr).toBeUndefined();
      // Its engine answers over the bridge after the report: the process outlived the failure, and says why.
      let answer: (message: Record<string, unknown>) => void = () => {};
      const answered = new Promise<Record<string, unknown>>((resolve) => (answer = resolve));
      const { ws } = await openBridge(url, { token }, (message) => {
        if (message.type === 'result' && message.id === 1) answer(message);
      });
      ws.send(JSON.stringify({ type: 'call', id: 1, method: 'app.snapshot', input: {} }));
      const snapshot = (await answered) as { envelope: { ok: boolean; value?: { connection: { detail: string } } } };
      ws.close();
      expect(snapshot.envelope.ok).toBe(true);
      expect(snapshot.envelope.value?.connection.detail).toMatch(advice.corrupt);
      expect(exitCode).toBeUndefined();
      expect(Buffer.compare(readFileSync(file), bytes)).toBe(0);
    } finally {
      child.kill('SIGTERM');
      await waitFor(() => exitCode !== undefined, 15_000, 'the web host to stop').catch(() => child.kill('SIGKILL'));
    }
    expect(exitCode).toBe(0);
  }, 60_000);
});
