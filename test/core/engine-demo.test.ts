// The embedded demo as the hosts run it: a persistent sandbox in the data folder, handed to the engine.
// Cached item pictures point at the demo's address, so that address must survive a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IpcMethod, IpcParsedInput, IpcResult } from '../../src/shared/ipc';
import { IPC_METHODS } from '../../src/shared/ipc';
import { Engine } from '../../src/main/core/engine/engine';
import { MemorySecretStore } from '../../src/main/core/secrets';
import { startDemoSandbox } from '../../src/server/demo';
import { reach, useFlowingFakeClock, useRealClock } from '../support/faults/fakeClock';
import { waitFor } from '../support/waitFor';

describe('the demo sandbox across restarts', () => {
  let dataDir: string;
  let engine: Engine | null = null;
  let blocker: Server | null = null;

  async function call<M extends IpcMethod>(method: M, input: unknown = {}): Promise<IpcResult<M>> {
    const parsed = IPC_METHODS[method].input.parse(input) as IpcParsedInput<M>;
    return (engine as Engine).handle(method, parsed);
  }

  async function launch(): Promise<Engine> {
    engine = new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: () => {},
      startDemo: () => startDemoSandbox(dataDir, () => {}),
    });
    await engine.start();
    return engine;
  }

  /** Twenty cached items that have a picture, by id: the simulator's new listings would hide stale ones. */
  async function someItemIds(): Promise<number[]> {
    const page = await call('catalog.query', { sort: 'price', direction: 'asc', limit: 40 });
    return page.rows
      .filter((row) => row.img)
      .slice(0, 20)
      .map((row) => row.itemId);
  }

  /** The cached pictures of those items that are still cached (the simulator sells some). */
  async function cachedPictures(itemIds: number[]): Promise<string[]> {
    const pictures: string[] = [];
    for (const itemId of itemIds) {
      const img = (await call('catalog.item', { itemId }))?.item.img;
      if (img) pictures.push(img);
    }
    return pictures;
  }

  const waitForCatalog = () =>
    waitFor(async () => (await call('catalog.query', { limit: 1 })).total >= 15_000, 60_000, 'the demo catalog synced');

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'engine-demo-'));
  });

  afterEach(async () => {
    await engine?.close();
    engine = null;
    await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
    blocker = null;
    rmSync(dataDir, { recursive: true, force: true });
    useRealClock();
  });

  it('keeps its address per data folder: the cached pictures load after a restart', async () => {
    await launch();
    await waitForCatalog();
    const address = (await call('app.snapshot')).account.baseUrl;
    const itemIds = await someItemIds();
    const before = await cachedPictures(itemIds);
    expect(before.length).toBe(20);
    expect((await fetch(before[0] as string)).status).toBe(200);
    await (engine as Engine).close();

    await launch();
    expect((await call('app.snapshot')).account.baseUrl).toBe(address);
    // Straight from the cache, before any sync: every picture still answers.
    const after = await cachedPictures(itemIds);
    expect(after.length).toBeGreaterThan(10);
    for (const url of after) expect((await fetch(url)).status, url).toBe(200);
  }, 120_000);

  it('when its port is taken by then, starts elsewhere and refreshes the cached pictures at once', async () => {
    // The demo sandbox and the engine on a fake clock that flows with real time (see the refresh below).
    useFlowingFakeClock();
    await launch();
    await waitForCatalog();
    const address = (await call('app.snapshot')).account.baseUrl as string;
    const itemIds = await someItemIds();
    await (engine as Engine).close();
    // Something else took the demo's port while the app was closed.
    const server = createServer();
    blocker = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(Number(new URL(address).port), '127.0.0.1', () => resolve());
    });

    await launch();
    const moved = (await call('app.snapshot')).account.baseUrl as string;
    expect(moved).not.toBe(address);
    // No 5-minute wait for the catalog to be stale: the pictures follow the new address.
    let pictures: string[] = [];
    const refreshed = async () => {
      pictures = await cachedPictures(itemIds);
      return pictures.length > 10 && pictures.every((url) => url.startsWith(`${moved}/`));
    };
    // The cached catalog is shown first: its refresh starts after the start-up delay (fast-forwarded), then the
    // download takes its real time.
    await reach(
      () => engine?.accountSession?.progressList().some((p) => p.kind === 'catalog-sync'),
      10_000,
      'the refresh started',
    );
    await waitFor(refreshed, 30_000, 'the cached pictures to point at the new address');
    expect((await fetch(pictures[0] as string)).status).toBe(200);
  }, 120_000);
});
