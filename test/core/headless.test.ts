import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeytarSecretStore } from '../../src/main/core/secrets';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { RATE_LIMITS } from '../../src/shared/api';
import { waitFor } from '../support/waitFor';
import { skipKeychainTests } from '../support/keychain';
import { adminApi } from '../support/sandboxHttp';
import { callHost, webCli as startWebCli, type WebCliRun, webHostUrl } from '../support/webCli';

const keychainIt = (await skipKeychainTests('headless keychain test')) ? it.skip : it;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `npx tsx src/web/cli.ts …` as a user would type it (after `npm run web --`), stopped after the test. */
function webCli(args: string[], env: NodeJS.ProcessEnv): WebCliRun {
  const run = startWebCli(args, env);
  cleanups.push(() => run.stop());
  return run;
}

/** The app's snapshot through the web host's bridge, as a browser window would ask for it. */
const snapshot = (url: URL) => callHost(url, 'app.snapshot');

describe('headless run: npm run web -- --base-url … --ws-url … --data-dir … --port …', () => {
  let sb: Sandbox;
  let merchant: { merchantId: string; apiKey: string };

  async function setup(rateLimitScale?: number): Promise<{ dataDir: string; home: string }> {
    sb = await startSandbox({ items: 1500, seed: 47, ...(rateLimitScale ? { rateLimitScale } : {}) });
    cleanups.push(() => sb.close());
    merchant = await adminApi(sb).createMerchant({ balance: 50_000 });
    const dataDir = mkdtempSync(join(tmpdir(), 'headless-'));
    const home = join(dataDir, 'home');
    mkdirSync(home);
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    return { dataDir, home };
  }

  async function syncedAtStartUp(run: WebCliRun): Promise<URL> {
    const url = await webHostUrl(run);
    const { totalItems } = sb.core.catalog.totals();
    await waitFor(
      async () => (await snapshot(url)).catalog.totalItems === totalItems,
      60_000,
      `a catalog of ${totalItems} items`,
    );
    expect((await snapshot(url)).account.merchantId).toBe(merchant.merchantId);
    return url;
  }

  it('with the credentials in the environment: syncs at start-up; a second host on the same data folder is refused', async () => {
    const { dataDir, home } = await setup();
    const env = {
      ...process.env,
      HOME: home,
      DBUS_SESSION_BUS_ADDRESS: 'disabled:',
      MERCHANT_ID: merchant.merchantId,
      MERCHANT_API_KEY: merchant.apiKey,
    };
    const args = ['--base-url', sb.baseUrl, '--ws-url', sb.wsUrl, '--data-dir', dataDir];
    const run = webCli([...args, '--port', '0'], env);
    await syncedAtStartUp(run);
    expect(run.stdout().trim().split('\n')).toHaveLength(1);
    expect(run.stderr()).not.toContain(merchant.apiKey);

    const second = webCli([...args, '--port', '0'], env);
    await waitFor(() => second.exitCode() !== undefined, 60_000, 'the second host to give up');
    expect(second.exitCode()).toBe(1);
    expect(second.stderr()).toMatch(
      new RegExp(`web: Another Merchant Desk \\(process \\d+, started [^)]+\\) is already using the data folder`),
    );
    expect(second.stdout()).toBe('');
    expect(sb.feed.connectionCount(merchant.merchantId)).toBe(1);
  }, 120_000);

  it('--test-rate-limit-scale reaches the engine: its budget is the spec limits times the scale, with a warning', async () => {
    // The sandbox raised alike: the desk takes the server's own limit (X-RateLimit-Limit) when it is lower.
    const { dataDir, home } = await setup(4);
    const env = {
      ...process.env,
      HOME: home,
      DBUS_SESSION_BUS_ADDRESS: 'disabled:',
      MERCHANT_ID: merchant.merchantId,
      MERCHANT_API_KEY: merchant.apiKey,
    };
    const args = ['--base-url', sb.baseUrl, '--ws-url', sb.wsUrl, '--data-dir', dataDir, '--port', '0'];
    const run = webCli([...args, '--test-rate-limit-scale', '4'], env);
    const url = await syncedAtStartUp(run);
    const { rateLimit } = await snapshot(url);
    expect([rateLimit.defaultLimit, rateLimit.catalogLimit]).toEqual([
      RATE_LIMITS.default * 4,
      RATE_LIMITS.catalog * 4,
    ]);
    expect(run.stderr()).toContain('WARNING: --test-rate-limit-scale 4');
  }, 120_000);

  keychainIt(
    'with the key in the keychain and the merchant saved in config.json (nothing in the environment): syncs at start-up',
    async () => {
      const { dataDir, home } = await setup();
      const keychain = new KeytarSecretStore();
      const merchantId = `headless-${randomUUID().slice(0, 8)}`;
      merchant = await adminApi(sb).createMerchant({ merchantId, balance: 50_000 });
      await keychain.set(merchantId, merchant.apiKey);
      cleanups.push(async () => {
        await keychain.delete(merchantId);
      });
      writeFileSync(
        join(dataDir, 'config.json'),
        JSON.stringify({
          version: 1,
          account: { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId },
          settings: { demoSandbox: false },
        }),
      );
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
      delete env['MERCHANT_ID'];
      delete env['MERCHANT_API_KEY'];
      const port = await freePort();
      const run = webCli(
        ['--base-url', sb.baseUrl, '--ws-url', sb.wsUrl, '--data-dir', dataDir, '--port', String(port)],
        env,
      );
      const url = await syncedAtStartUp(run);
      expect(url.port).toBe(String(port));
      expect(run.stderr()).not.toContain(merchant.apiKey);
    },
    120_000,
  );
});

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}
