import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogEnvelope, Item } from '../../src/shared/api';
import type { ProgressStatus } from '../../src/shared/ipc';
import { FaultProxy } from '../support/faultProxy';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, merchantApi, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * "Sandbox killed mid catalog sync → the cache keeps the previous complete catalog; the next
 * sync finishes." The sandbox runs in a CHILD process (`node --import tsx src/server/cli.ts`,
 * what `npm run sandbox` runs) on a SQLite file; the engine, in this process, syncs a large
 * catalog through a fault proxy that slows the download down; the child is SIGKILLed while the list
 * streams in. The engine's catalog must be the previous complete one, item for item. Then the
 * sandbox restarts on the same file and port, and the next sync completes with the server's list.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const ITEMS = 60_000;
const ADDED = 12_000;
const ADMIN_TOKEN = 'kill-sync-admin-token-0123456789';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** `npm run sandbox` in a child process; resolves once it printed its ready line. */
async function startChild(dbFile: string, port: number): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/server/cli.ts',
      '--port',
      String(port),
      '--db',
      dbFile,
      '--items',
      String(ITEMS),
      '--seed',
      '5',
      '--admin-token',
      ADMIN_TOKEN,
      '--json',
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ready = await new Promise<{ base_url: string }>((done, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sandbox did not start in 120 s: ${stderr.slice(-2000)}`)),
      120_000,
    );
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${stderr.slice(-2000)}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => {
      clearTimeout(timer);
      done(JSON.parse(line) as { base_url: string });
    });
  });
  return { child, baseUrl: ready.base_url };
}

/** Every item of the engine's cache: id → price. */
async function cachedCatalog(app: EngineHarness): Promise<Map<number, number>> {
  const all = new Map<number, number>();
  for (let offset = 0; ; offset += 1000) {
    const page = await app.call('catalog.query', { sort: 'price', direction: 'asc', offset, limit: 1000 });
    for (const row of page.rows) all.set(row.itemId, row.price);
    if (page.rows.length < 1000) break;
  }
  return all;
}

const catalogProgress = (app: EngineHarness): ProgressStatus | undefined => {
  for (let i = app.batches.length - 1; i >= 0; i--) {
    const progress = app.batches[i]?.progress;
    if (progress) return progress.find((p) => p.kind === 'catalog-sync');
  }
  return undefined;
};

describe('sandbox killed mid catalog sync (child process, SIGKILL)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kill-sync-'));
  const dbFile = join(dir, 'sandbox.sqlite');
  let port = 0;
  let sandbox: { child: ChildProcess; baseUrl: string };
  let proxy: FaultProxy;
  let app: EngineHarness;
  let merchant: MerchantCredentials;
  const admin = () => adminApi({ baseUrl: sandbox.baseUrl, adminToken: ADMIN_TOKEN });

  beforeAll(async () => {
    port = await freePort();
    sandbox = await startChild(dbFile, port);
    merchant = await admin().createMerchant({ balance: 1_000_000 });
    proxy = new FaultProxy({ host: '127.0.0.1', port });
    await proxy.start();
    app = await startEngine(join(dir, 'engine'), {
      baseUrl: proxy.baseUrl,
      wsUrl: proxy.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
    });
    // Readers see the committed catalog a moment before the session has read its totals after the sync: wait for both.
    await waitFor(
      async () =>
        (await app.call('catalog.query', { limit: 1 })).total === ITEMS &&
        (await app.engine.snapshot()).catalog.totalItems === ITEMS,
      90_000,
      'the first complete sync',
    );
  }, 240_000);

  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    sandbox?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the previous complete catalog, and the next sync after a restart on the same file completes', async () => {
    const first = (await app.engine.snapshot()).catalog;
    expect(first.totalItems).toBe(ITEMS);

    // The server's next list is bigger: new items (the live feed brings them to the cache as they are listed),
    // then a rebuild of the on-sale list (a new lastUpdate: a refresh_catalog).
    for (let done = 0; done < ADDED; done += 4_000) {
      const answer = await admin().post<{ items: Item[] }>('/admin/items', {
        items: Array.from({ length: 4_000 }, (_, i) => ({ price: 10_000 + done + i })),
      });
      expect(answer.status).toBe(200);
    }
    const rebuilt = (await admin().post<{ lastUpdate: string }>('/admin/catalog/rebuild', {})).body.lastUpdate;
    await waitFor(
      async () => (await app.call('catalog.query', { limit: 1 })).total === ITEMS + ADDED,
      30_000,
      'the new listings over the feed',
    );
    // The cache as it is before the sync: the previous complete list plus what the feed brought.
    const before = await cachedCatalog(app);
    const infoBefore = (await app.engine.snapshot()).catalog;
    expect(infoBefore.lastUpdate).toBe(first.lastUpdate);
    expect(rebuilt).not.toBe(first.lastUpdate);

    // The download crawls (about 128 kB/s); SIGKILL the sandbox while the list is streaming in.
    const unthrottle = proxy.inject('/Items/GetAllItemsOnSale', { kind: 'throttle', bytesPerSecond: 128 * 1024 });
    const batchesBefore = app.batches.length;
    const refresh = await app.call('catalog.refresh');
    expect(refresh.started).toBe(true);
    const midway = await waitFor(
      () => {
        const progress = app.batches
          .slice(batchesBefore)
          .flatMap((b) => b.progress ?? [])
          .filter((p) => p.kind === 'catalog-sync' && p.phase === 'receiving' && p.done >= 5_000);
        return progress.at(-1) ?? null;
      },
      60_000,
      'the list streaming in',
    );
    sandbox.child.kill('SIGKILL');
    // What the killed server had already written sits in socket buffers (on loopback they grow to tens of MB,
    // the whole gzipped list) and would still arrive: the proxy drops it with the connections, as a reset
    // would, so the list really stops where the kill caught it.
    proxy.dropConnections();
    await new Promise((done) => sandbox.child.once('exit', done));
    // Well into the list, far from its end.
    expect(midway.done).toBeGreaterThanOrEqual(5_000);
    expect(midway.total === null || midway.done < midway.total / 2).toBe(true);

    // The sync ends (failed), and the cache is exactly the previous complete catalog.
    await waitFor(() => catalogProgress(app) === undefined, 60_000, 'the failed sync to end');
    await waitFor(() => app.logs.some((line) => /catalog sync \(manual\)/.test(line)), 10_000, 'the failure logged');
    const afterKill = await cachedCatalog(app);
    expect(afterKill.size).toBe(before.size);
    expect([...afterKill].filter(([id, price]) => before.get(id) !== price)).toEqual([]);
    // Still the previous list's build: the cut list was not taken for a complete one.
    expect((await app.engine.snapshot()).catalog).toEqual(infoBefore);
    expect(app.logs.some((line) => /catalog sync \(manual\):.*cut off/.test(line))).toBe(true);

    // The sandbox comes back on the same file and port; the next sync finishes with the server's list.
    unthrottle();
    sandbox = await startChild(dbFile, port);
    const server = (await merchantApi(sandbox, merchant).get<CatalogEnvelope>('/Items/GetAllItemsOnSale')).body;
    expect(server.items).toHaveLength(ITEMS + ADDED);
    expect(server.lastUpdate).toBe(rebuilt);
    // A refresh asked while the app is still offline is refused with the reason: ask once it is live again.
    await waitFor(() => app.session().connection.state === 'connected', 60_000, 'live again');
    expect(await app.call('catalog.refresh')).toMatchObject({ started: true });
    await waitFor(
      async () => (await app.engine.snapshot()).catalog.lastUpdate === server.lastUpdate,
      90_000,
      'the next sync to complete',
    );
    // The refresh asked for it; the feed's return may already have started it (a reconnect checks the catalog's freshness).
    // Its line is logged just after the new catalog's info is taken up.
    await waitFor(
      () =>
        app.logs.some((line) => new RegExp(`catalog sync \\([^)]+\\): .*= ${server.items.length} items`).test(line)),
      10_000,
      'the sync logged with the server list’s size',
    );
    const after = await cachedCatalog(app);
    expect(after.size).toBe(server.items.length);
    expect(
      server.items.filter((item: Item) => after.get(item.itemId) !== item.price).map((item: Item) => item.itemId),
    ).toEqual([]);
    process.stdout.write(
      `kill-sync: killed at ${midway.done} items received${midway.total ? ` of ${midway.total}` : ''}; cache kept ${afterKill.size} items; after the restart the next sync has ${after.size}\n`,
    );
  }, 300_000);
});
