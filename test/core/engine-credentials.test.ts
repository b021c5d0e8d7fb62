import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IpcEnvelope } from '../../src/shared/ipc';
import { Engine } from '../../src/main/core/engine/engine';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { MemorySecretStore } from '../../src/main/core/secrets';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { waitFor } from '../support/waitFor';
import { adminApi, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * A plain loopback HTTP server that keeps the headers of every request and upgrade it gets, and answers 404,
 * or with `redirectTo` a 307 to the same path there.
 */
class RecordingListener {
  readonly requests: { kind: 'http' | 'upgrade'; url: string; headers: IncomingHttpHeaders }[] = [];
  private readonly server: Server = createServer((request, response) => {
    this.requests.push({ kind: 'http', url: request.url ?? '', headers: request.headers });
    if (this.redirectTo) response.writeHead(307, { location: `${this.redirectTo.baseUrl}${request.url ?? '/'}` }).end();
    else
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":"not_found","message":"nothing here"}');
  });

  constructor(private readonly redirectTo: RecordingListener | null = null) {
    this.server.on('upgrade', (request, socket) => {
      this.requests.push({ kind: 'upgrade', url: request.url ?? '', headers: request.headers });
      const status = this.redirectTo ? `307 Temporary Redirect\r\nLocation: ${this.redirectTo.wsUrl}` : '404 Not Found';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/ws`;
  }

  apiKeysSeen(): string[] {
    return this.requests.map((request) => String(request.headers['x-api-key'] ?? ''));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('the stored API key goes only to the saved account’s own addresses', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let listener: RecordingListener;
  let dataDir: string;
  let engine: Engine | null = null;

  beforeEach(async () => {
    sb = await startSandbox({ items: 50, seed: 23 });
    merchant = await adminApi(sb).createMerchant({ balance: 10_000 });
    listener = new RecordingListener();
    await listener.start();
    dataDir = mkdtempSync(join(tmpdir(), 'engine-credentials-'));
  });

  afterEach(async () => {
    await engine?.close();
    engine = null;
    await listener.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** An engine whose saved account is the merchant on the sandbox, its key in the secret store: as after a restart. */
  async function savedAccountEngine(): Promise<Engine> {
    const saved = { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId: merchant.merchantId };
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ version: 1, account: saved, settings: { demoSandbox: false } }),
    );
    const secrets = new MemorySecretStore();
    await secrets.set(merchant.merchantId, merchant.apiKey);
    engine = new Engine({
      dataDir,
      secrets,
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo in this test')),
    });
    await engine.start();
    return engine;
  }

  const call = (method: string, input: unknown): Promise<IpcEnvelope<unknown>> =>
    dispatchIpc(engine as Engine, method, input);
  const configFile = () => readFileSync(join(dataDir, 'config.json'), 'utf8');

  it('refuses to send it to another base URL or WebSocket URL without the key typed in the same call', async () => {
    await savedAccountEngine();
    const session = engine?.accountSession;
    expect(session?.merchantId).toBe(merchant.merchantId);
    await waitFor(() => session?.connection.state === 'connected', 15_000, 'the saved account live');
    const configBefore = configFile();

    const elsewhere = [
      { baseUrl: listener.baseUrl, wsUrl: listener.wsUrl },
      { baseUrl: listener.baseUrl, wsUrl: sb.wsUrl },
      { baseUrl: sb.baseUrl, wsUrl: listener.wsUrl },
    ];
    for (const urls of elsewhere) {
      for (const method of ['account.test', 'account.configure']) {
        const answer = await call(method, { ...urls, merchantId: merchant.merchantId });
        expect(listener.apiKeysSeen(), `${method} ${JSON.stringify(urls)}`).not.toContain(merchant.apiKey);
        expect(answer, `${method} ${JSON.stringify(urls)}`).toEqual({
          ok: false,
          error: {
            code: 'invalid_input',
            message: expect.stringMatching(/only sent to the saved account's addresses.*enter the API key/i) as unknown,
          },
        });
      }
    }
    // Nothing was sent, nothing was saved, the account in use is the same.
    expect(listener.requests).toEqual([]);
    expect(configFile()).toBe(configBefore);
    expect(engine?.accountSession).toBe(session);

    // A key typed in the call goes where the call says (the listener records it): the listener does see requests.
    const typed = await call('account.test', {
      baseUrl: listener.baseUrl,
      wsUrl: listener.wsUrl,
      merchantId: merchant.merchantId,
      apiKey: 'typed-key-0123456789',
    });
    expect(typed).toMatchObject({ ok: true, value: { ok: false } });
    await waitFor(() => listener.requests.length > 0, 5000, 'the typed key at the listener');
    expect(listener.apiKeysSeen().every((key) => key === 'typed-key-0123456789')).toBe(true);
    expect(listener.apiKeysSeen()).not.toContain(merchant.apiKey);
  }, 60_000);

  it('still re-tests and re-saves the saved account at its own addresses with the stored key', async () => {
    await savedAccountEngine();
    // A trailing slash does not make another address.
    const sameAddresses = { baseUrl: `${sb.baseUrl}/`, wsUrl: sb.wsUrl, merchantId: merchant.merchantId };
    const tested = await call('account.test', sameAddresses);
    expect(tested).toMatchObject({ ok: true, value: { ok: true, merchantId: merchant.merchantId } });
    const saved = await call('account.configure', sameAddresses);
    expect(saved).toMatchObject({ ok: true, value: { ok: true } });
    expect(JSON.parse(configFile())).toMatchObject({
      account: { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId: merchant.merchantId },
    });
  }, 60_000);

  it('does not lend one merchant’s stored key to another merchant id, even at the saved addresses', async () => {
    await savedAccountEngine();
    const other = await adminApi(sb).createMerchant({ balance: 10_000 });
    const answer = await call('account.test', { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, merchantId: other.merchantId });
    expect(answer).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('enter') as unknown },
    });
  }, 60_000);

  it('is not carried along a redirect by the REST client, the catalog download or the feed', async () => {
    // The account's own server (here: the command line's account) answers everything with a redirect elsewhere.
    const redirector = new RecordingListener(listener);
    await redirector.start();
    const logs: string[] = [];
    try {
      engine = new Engine({
        dataDir,
        secrets: new MemorySecretStore(),
        log: (line) => logs.push(line),
        startDemo: () => Promise.reject(new Error('no demo in this test')),
        override: {
          baseUrl: redirector.baseUrl,
          wsUrl: redirector.wsUrl,
          merchantId: merchant.merchantId,
          apiKey: merchant.apiKey,
        },
      });
      await engine.start();
      const tested = await call('account.test', {
        baseUrl: redirector.baseUrl,
        wsUrl: redirector.wsUrl,
        merchantId: merchant.merchantId,
        apiKey: merchant.apiKey,
      });
      expect(tested).toMatchObject({ ok: true, value: { ok: false } });
      const urls = () => redirector.requests.map((request) => `${request.kind} ${request.url.split('?')[0] ?? ''}`);
      // Each path has asked the redirector and has had its answer (the feed gave up on it, the catalog sync failed).
      await waitFor(
        () =>
          urls().includes('upgrade /ws') &&
          urls().includes('http /Items/GetAllItemsOnSale') &&
          urls().includes('http /Wallet/GetBalance'),
        15_000,
        'requests at the redirector',
      );
      await waitFor(() => engine?.accountSession?.connection.state !== 'connecting', 15_000, 'the feed refused');
      await waitFor(() => logs.some((line) => line.startsWith('catalog sync')), 15_000, 'the catalog sync failed');
      expect(redirector.requests.every((request) => request.headers['x-api-key'] === merchant.apiKey)).toBe(true);
      expect(listener.requests).toEqual([]);
    } finally {
      await engine?.close();
      engine = null;
      await redirector.close();
    }
  }, 60_000);
});
