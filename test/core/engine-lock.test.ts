import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE } from '../../src/main/core/engine/dataDirLock';
import { Engine } from '../../src/main/core/engine/engine';
import { MemorySecretStore } from '../../src/main/core/secrets';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { startWebHost } from '../../src/web/webHost';
import { waitFor } from '../support/waitFor';
import { adminApi } from '../support/sandboxHttp';
import { makeRendererDir, openBridge } from '../web/support';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-lock-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function engineOn(dataDir: string): Engine {
  return new Engine({
    dataDir,
    secrets: new MemorySecretStore(),
    log: () => {},
    startDemo: () => Promise.reject(new Error('no demo in this test')),
  });
}

/** Another process holding the data folder's lock, as a second `npm run web` would. */
async function holder(dataDir: string): Promise<ChildProcess> {
  const lock = fileURLToPath(new URL('../../src/main/core/engine/dataDirLock.ts', import.meta.url));
  const script = `const { DataDirLock } = await import(${JSON.stringify(lock)});
    DataDirLock.acquire(${JSON.stringify(dataDir)});
    console.log('locked');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => {
    child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return child;
}

describe('one engine per data folder', () => {
  it('refuses a second engine in the same process, and allows it once the first is closed', async () => {
    const dataDir = tempDir();
    const first = engineOn(dataDir);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    expect(() => engineOn(dataDir)).toThrow(DataDirLockedError);
    expect(() => engineOn(dataDir)).toThrow(
      `The data folder ${dataDir} is already used by another engine in this process; close it first.`,
    );
    await first.close();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
    const second = engineOn(dataDir);
    await second.close();
  });

  it('refuses while another process holds the folder, naming it; takes over a lock left by a killed process', async () => {
    const dataDir = tempDir();
    const child = await holder(dataDir);
    const owner = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number };
    expect(owner.pid).toBe(child.pid);
    let refusal: unknown;
    try {
      engineOn(dataDir);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirLockedError);
    expect((refusal as Error).message).toMatch(
      new RegExp(
        `^Another Merchant Desk \\(process ${child.pid}, started .+Z\\) is already using the data folder ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Close it first, or start this one with another data folder \\(--data-dir\\)\\.`,
      ),
    );

    // A crash (SIGKILL) leaves the file behind; its pid is dead, so the next engine takes over.
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    const engine = engineOn(dataDir);
    expect((JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as { pid: number }).pid).toBe(process.pid);
    await engine.close();
  });

  it('takes over a lock file that is garbage (a crash while it was written)', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, LOCK_FILE), '{"pid":');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dataDir, LOCK_FILE), old, old);
    const engine = engineOn(dataDir);
    await engine.close();
  });
});

describe('the web host with two browser windows', () => {
  it('gives the merchant exactly one feed connection at the sandbox', async () => {
    const sb: Sandbox = await startSandbox({ items: 100, seed: 43 });
    cleanups.push(() => sb.close());
    const merchant = await adminApi(sb).createMerchant({ balance: 10_000 });
    const dataDir = tempDir();
    const engine = new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo in this test')),
      override: { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant },
    });
    cleanups.push(() => engine.close());
    await engine.start();
    const tree = makeRendererDir();
    cleanups.push(() => tree.cleanup());
    const token = 'lock-test-token-0123456789abcdef';
    const host = await startWebHost({ engine, rendererDir: tree.rendererDir, token });
    cleanups.push(() => host.close());

    const windows = await Promise.all([1, 2].map(async () => (await openBridge(host.url, { token })).ws));
    cleanups.push(() => windows.forEach((ws) => ws.terminate()));
    const snapshots = await Promise.all(
      windows.map(
        (ws, i) =>
          new Promise<Record<string, unknown>>((resolve) => {
            ws.on('message', (data) => {
              const message = JSON.parse(String(data)) as Record<string, unknown>;
              if (message['type'] === 'result' && message['id'] === i + 1) resolve(message);
            });
            ws.send(JSON.stringify({ type: 'call', id: i + 1, method: 'app.snapshot', input: {} }));
          }),
      ),
    );
    expect(snapshots.map((m) => (m['envelope'] as { ok: boolean }).ok)).toEqual([true, true]);
    expect(host.stats().connections).toBe(2);
    await waitFor(() => engine.accountSession?.connection.state === 'connected', 15_000, 'feed');
    expect(sb.feed.connectionCount(merchant.merchantId)).toBe(1);
  });
});
