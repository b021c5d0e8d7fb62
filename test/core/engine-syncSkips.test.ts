// A catalog list holding an item the cache cannot take (not the API's item shape) is synced without it, and the
// engine says so in its log with the count and the first reason: nothing is left out silently.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { FaultProxy } from '../support/faultProxy';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi } from '../support/sandboxHttp';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('logs how many items a sync left out, and why the first one was', async () => {
  const sandbox: Sandbox = await startSandbox({ items: 300, seed: 31 });
  cleanups.push(() => sandbox.close());
  const proxy = FaultProxy.forBaseUrl(sandbox.baseUrl);
  await proxy.start();
  cleanups.push(() => proxy.close());
  // The list as the server sends it, but for two items whose price is text.
  let broken: number[] = [];
  let listed = 0;
  proxy.inject('/Items/GetAllItemsOnSale', {
    kind: 'schema',
    untilMs: Date.now() + 600_000,
    body: (text) => {
      const envelope = JSON.parse(text) as { items: { itemId: number; price: unknown }[] };
      const [first, second] = envelope.items;
      if (!first || !second) throw new Error('the sandbox listed fewer than two items');
      broken = [first.itemId, second.itemId];
      listed = envelope.items.length;
      first.price = 'a lot';
      second.price = '12.50';
      return JSON.stringify(envelope);
    },
  });
  const merchant = await adminApi(sandbox).createMerchant({ balance: 10_000 });
  const dataDir = mkdtempSync(join(tmpdir(), 'sync-skips-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const app: EngineHarness = await startEngine(dataDir, {
    baseUrl: proxy.baseUrl,
    wsUrl: proxy.wsUrl,
    merchantId: merchant.merchantId,
    apiKey: merchant.apiKey,
  });
  cleanups.push(() => app.close());

  const line = await waitFor(
    () => app.logs.find((entry) => entry.includes('left out')),
    20_000,
    'the log line on the items left out',
  );
  expect(line).toContain('2 items');
  expect(line).toContain(`item ${broken[0]}: price is not an integer`);
  // The rest of the list is the catalog.
  expect((await app.call('catalog.query', { limit: 1 })).total).toBe(listed - 2);
});
