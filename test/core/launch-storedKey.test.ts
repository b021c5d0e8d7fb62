// A host started with --base-url: the key the keychain holds for the merchant goes only to the saved
// account's own address. Any other address needs MERCHANT_API_KEY for that run; without it the account
// opens read-only from its cache and nothing reaches the other address.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createEngineFromOptions, type LaunchedEngine } from '../../src/main/core/engine/create';
import { KeytarSecretStore } from '../../src/main/core/secrets';
import { skipKeychainTests } from '../support/keychain';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { waitFor } from '../support/waitFor';
import { adminApi } from '../support/sandboxHttp';

// In CI (CI=true) the test always runs, and fails without a Secret Service instead of skipping silently.
const noKeychain = await skipKeychainTests('stored-key launch tests');

const noDemo = () => Promise.reject(new Error('no demo in this test'));

describe.skipIf(noKeychain)('--base-url and the key in the keychain', () => {
  let sb: Sandbox;
  let listener: Server;
  let listenerUrl = '';
  const seen: IncomingHttpHeaders[] = [];
  const keychain = new KeytarSecretStore();
  const merchantId = `launch-${randomUUID().slice(0, 8)}`;
  let apiKey = '';
  let dataDir = '';
  let launched: LaunchedEngine | null = null;

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 3 });
    apiKey = (await adminApi(sb).createMerchant({ merchantId, balance: 10_000 })).apiKey;
    await keychain.set(merchantId, apiKey);
    listener = createServer((request, response) => {
      seen.push(request.headers);
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":"not_found","message":"nothing here"}');
    });
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    listenerUrl = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await keychain.delete(merchantId);
    await new Promise<void>((done) => listener.close(() => done()));
    await sb.close();
  });
  afterEach(async () => {
    await launched?.close();
    launched = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  function saveAccount(): void {
    dataDir = mkdtempSync(join(tmpdir(), 'launch-key-'));
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        version: 1,
        account: { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId },
        settings: { demoSandbox: false },
      }),
    );
  }

  it('another address gets nothing: the account opens read-only and the log says why', async () => {
    saveAccount();
    const lines: string[] = [];
    launched = await createEngineFromOptions({
      baseUrl: listenerUrl,
      wsUrl: `${listenerUrl.replace('http', 'ws')}/ws`,
      dataDir,
      log: (line) => lines.push(line),
      env: { MERCHANT_ID: merchantId },
      startDemo: noDemo,
    });
    const snapshot = await launched.engine.handle('app.snapshot', {});
    expect(snapshot.account).toMatchObject({ merchantId, cacheOnly: true });
    expect(seen.filter((headers) => headers['x-api-key'] !== undefined)).toEqual([]);
    expect(lines).toContain(
      `The stored API key of ${merchantId} is only sent to the saved account's address (${sb.baseUrl}); for ${listenerUrl} set MERCHANT_API_KEY`,
    );
    expect(lines.join('\n')).not.toContain(apiKey);
  }, 60_000);

  it('the saved address itself goes live with the stored key', async () => {
    saveAccount();
    launched = await createEngineFromOptions({
      baseUrl: `${sb.baseUrl}/`,
      wsUrl: sb.wsUrl,
      dataDir,
      log: () => {},
      env: { MERCHANT_ID: merchantId },
      startDemo: noDemo,
    });
    // A keychain slow to answer (a busy machine) is waited for: never read-only meanwhile.
    const engine = launched.engine;
    expect((await engine.handle('app.snapshot', {})).account).toMatchObject({ merchantId, cacheOnly: false });
    const snapshot = await waitFor(
      async () => {
        const next = await engine.handle('app.snapshot', {});
        return next.account.awaitingKeyStore ? null : next;
      },
      60_000,
      'the keychain to answer',
    );
    expect(snapshot.account).toMatchObject({ merchantId, apiKeyConfigured: true, cacheOnly: false });
    await waitFor(() => sb.feed.connectionCount(merchantId) === 1, 30_000, 'the feed opened with the stored key');
  }, 120_000);
});
