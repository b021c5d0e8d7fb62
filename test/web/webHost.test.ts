import { connect } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { EngineEventBatch } from '../../src/shared/ipc';
import { parseWebCli } from '../../src/web/options';
import { startWebHost, type WebHost } from '../../src/web/webHost';
import {
  APP_MARKER,
  EchoEngine,
  SECRET,
  bridgeProtocols,
  makeRendererDir,
  openBridge,
  rawRequest,
  type BridgeCredential,
} from './support';

const TOKEN = 'test-token-0123456789abcdef';
const EXPECTED_CSP = (hostPort: string) =>
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https: http://127.0.0.1:* http://localhost:*; " +
  `connect-src 'self' ws://${hostPort}; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

interface SocketOptions {
  /** The credential offered at the upgrade; the right token by default, null for none. */
  credential?: BridgeCredential | null;
  origin?: string | null;
  host?: string;
  path?: string;
  headers?: Record<string, string>;
}

function openSocket(host: WebHost, options: SocketOptions = {}): WebSocket {
  const headers: Record<string, string> = { ...options.headers };
  if (options.host) headers['host'] = options.host;
  const origin = options.origin === undefined ? host.origin : options.origin;
  const credential = options.credential === undefined ? { token: TOKEN } : options.credential;
  return new WebSocket(`ws://127.0.0.1:${host.port}${options.path ?? '/bridge'}`, bridgeProtocols(credential), {
    headers,
    ...(origin !== null ? { origin } : {}),
  });
}

/** Resolves with the HTTP status the upgrade was refused with, or rejects when it opened. */
function refusal(ws: WebSocket): Promise<number> {
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => {});
  });
}

/** How an opened socket ended, and every frame it received before. */
function ending(ws: WebSocket): Promise<{ code: number; reason: string; frames: string[] }> {
  const frames: string[] = [];
  ws.on('message', (data) => frames.push(String(data)));
  ws.on('error', () => {});
  return new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason), frames })));
}

/** A bridge client over `ws`: every message kept, calls correlated by id. */
class Client {
  readonly messages: Record<string, unknown>[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private nextId = 1;
  private waiters: {
    predicate: (m: Record<string, unknown>) => boolean;
    resolve: (m: Record<string, unknown>) => void;
  }[] = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      this.messages.push(message);
      this.waiters = this.waiters.filter((w) => {
        if (!w.predicate(message)) return true;
        w.resolve(message);
        return false;
      });
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  /** Opens the socket with its credential and waits for the welcome. */
  static async open(host: WebHost, options: SocketOptions = {}): Promise<Client> {
    const ws = openSocket(host, options);
    const client = new Client(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('close', (code, reason) => reject(new Error(`closed before the welcome: ${code} ${String(reason)}`)));
      void client.next((m) => m['type'] === 'welcome').then(() => resolve());
    });
    return client;
  }

  next(predicate: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const seen = this.messages.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  async call(method: string, input: unknown): Promise<unknown> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ type: 'call', id, method, input }));
    const answer = await this.next((m) => m['type'] === 'result' && m['id'] === id);
    return answer['envelope'];
  }
}

describe('web host', () => {
  const tree = makeRendererDir();
  const engine = new EchoEngine();
  let host: WebHost;
  const clients: Client[] = [];
  const logLines: string[] = [];

  beforeAll(async () => {
    host = await startWebHost({
      engine,
      rendererDir: tree.rendererDir,
      token: TOKEN,
      pingIntervalMs: 100,
      log: (line) => logLines.push(line),
    });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.ws.terminate();
    // Each test starts with no bridge socket left on the server side.
    await expect.poll(() => engine.listeners.size).toBe(0);
  });
  afterAll(async () => {
    await host.close();
    tree.cleanup();
  });

  const client = async (options: SocketOptions = {}) => {
    const c = await Client.open(host, options);
    clients.push(c);
    return c;
  };

  it('reports a URL with the token, on loopback', () => {
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`);
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/?token=${TOKEN}`);
  });

  describe('the page and its assets', () => {
    it('are served without a credential (they hold no secret) and never set a cookie', async () => {
      for (const path of [
        '/',
        '/index.html',
        '/assets/app-1a2b.js',
        `/?token=${TOKEN}`,
        '/?token=wrong-token-0123456789abcdef',
        '/?code=anything',
      ]) {
        const answer = await rawRequest(host.port, path);
        expect(answer.status, path).toBe(200);
        expect(answer.headers['set-cookie'], path).toBeUndefined();
        expect(answer.headers['location'], path).toBeUndefined();
      }
      const page = await rawRequest(host.port, `/?token=${TOKEN}`);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.body).toContain(APP_MARKER);
      expect(page.body).not.toContain(TOKEN);
    });
  });

  describe('Host and Origin', () => {
    it('a foreign Host is refused with 403 even with the token (DNS rebinding)', async () => {
      for (const foreign of [
        `evil.example:${host.port}`,
        'evil.example',
        `127.0.0.1:${host.port + 1}`,
        `127.0.0.1:${host.port}.evil.example`,
      ]) {
        const answer = await rawRequest(host.port, '/', { host: foreign });
        expect(answer.status, foreign).toBe(403);
        expect(answer.body).toMatch(/^Forbidden: this Merchant Desk web host does not answer to the Host "/);
        expect(answer.body).toContain(`Open http://127.0.0.1:${host.port}/ instead`);
        expect(answer.body).not.toContain(APP_MARKER);
      }
      expect((await rawRequest(host.port, `/?token=${TOKEN}`, { host: `evil.example:${host.port}` })).status).toBe(403);
    });

    it('a request without any Host header is refused with 403', async () => {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(host.port, '127.0.0.1', () => socket.end('GET / HTTP/1.0\r\n\r\n'));
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.[01] 403 /);
      expect(answer).not.toContain(APP_MARKER);
    });

    it('localhost:PORT and 127.0.0.1:PORT are both this host', async () => {
      expect((await rawRequest(host.port, '/', { host: `localhost:${host.port}` })).status).toBe(200);
      expect((await rawRequest(host.port, '/', { host: `LOCALHOST:${host.port}` })).status).toBe(200);
    });

    it('a foreign Origin is refused with 403; its own origin passes', async () => {
      expect((await rawRequest(host.port, '/', { origin: 'http://evil.example' })).status).toBe(403);
      expect((await rawRequest(host.port, '/', { origin: 'null' })).status).toBe(403);
      expect((await rawRequest(host.port, '/', { origin: `http://127.0.0.1:${host.port + 1}` })).status).toBe(403);
      expect((await rawRequest(host.port, '/', { origin: host.origin })).status).toBe(200);
      expect((await rawRequest(host.port, '/', { origin: `http://localhost:${host.port}` })).status).toBe(200);
    });
  });

  describe('static files', () => {
    it('serves assets with their content type and the security headers', async () => {
      const js = await rawRequest(host.port, '/assets/app-1a2b.js');
      expect(js.status).toBe(200);
      expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(js.headers['cache-control']).toContain('immutable');
      expect((await rawRequest(host.port, '/assets/style.css')).headers['content-type']).toBe(
        'text/css; charset=utf-8',
      );
      for (const answer of [js, await rawRequest(host.port, '/'), await rawRequest(host.port, '/')]) {
        expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
        expect(answer.headers['referrer-policy']).toBe('no-referrer');
      }
    });

    it('sends the strict CSP, with the WebSocket of the Host the page was loaded from', async () => {
      const page = await rawRequest(host.port, '/');
      expect(page.headers['content-security-policy']).toBe(EXPECTED_CSP(`127.0.0.1:${host.port}`));
      const viaLocalhost = await rawRequest(host.port, '/', { host: `localhost:${host.port}` });
      expect(viaLocalhost.headers['content-security-policy']).toBe(EXPECTED_CSP(`localhost:${host.port}`));
    });

    it('never serves a file outside the renderer folder, nor dotfiles, symlinks out, or directory listings', async () => {
      const attempts = [
        '/../package.json',
        '/%2e%2e/package.json',
        '/%2E%2E/package.json',
        '/..%2fpackage.json',
        '/%2e%2e%2fpackage.json',
        '/assets/../../package.json',
        '/assets/%2e%2e/%2e%2e/package.json',
        '/..\\package.json',
        '/%5c..%5cpackage.json',
        '/%252e%252e/package.json',
        '/index.html%00.js',
        '/.env',
        '/%2eenv',
        '/linked.json',
        '/assets',
        '/assets/',
        '/%',
      ];
      for (const path of attempts) {
        const answer = await rawRequest(host.port, path);
        expect([400, 404], path).toContain(answer.status);
        expect(answer.body, path).not.toContain(SECRET);
      }
    });

    it('answers other methods with 405', async () => {
      expect((await rawRequest(host.port, '/', {}, 'POST')).status).toBe(405);
      expect((await rawRequest(host.port, '/', {}, 'HEAD')).status).toBe(200);
    });
  });

  describe('the bridge socket', () => {
    it('is refused without an Origin or with a foreign one, with a foreign Host (403), and elsewhere than /bridge (404)', async () => {
      expect(await refusal(openSocket(host, { origin: null }))).toBe(403);
      expect(await refusal(openSocket(host, { origin: 'http://evil.example' }))).toBe(403);
      expect(await refusal(openSocket(host, { origin: `http://127.0.0.1:${host.port + 1}` }))).toBe(403);
      expect(await refusal(openSocket(host, { host: `evil.example:${host.port}` }))).toBe(403);
      expect(await refusal(openSocket(host, { path: '/other' }))).toBe(404);
    });

    it('opens nothing without the token at the upgrade: none, a wrong one, an unknown code, the token in a first frame, the query or a cookie are closed with 4401', async () => {
      const callFirst = (ws: WebSocket) =>
        ws.once('open', () => ws.send(JSON.stringify({ type: 'call', id: 1, method: 'app.snapshot', input: {} })));
      const helloFirst = openSocket(host, { credential: null });
      helloFirst.once('open', () => helloFirst.send(JSON.stringify({ type: 'hello', token: TOKEN })));
      const attempts: [string, WebSocket][] = [
        ['a call first', openSocket(host, { credential: null })],
        ['a wrong token', openSocket(host, { credential: { token: 'wrong-token-0123456789abcdef' } })],
        ['the token plus one character', openSocket(host, { credential: { token: `${TOKEN}x` } })],
        ['an unknown code', openSocket(host, { credential: { code: 'not-a-code-0123456789abcdef' } })],
        ['the token as a first frame', helloFirst],
        ['the token in the query', openSocket(host, { credential: null, path: `/bridge?token=${TOKEN}` })],
        [
          'the cookies of earlier versions',
          openSocket(host, {
            credential: null,
            headers: { cookie: `md_token=${TOKEN}; md_token_${host.port}=${TOKEN}` },
          }),
        ],
      ];
      const before = engine.calls.length;
      for (const [what, ws] of attempts) if (what !== 'the token as a first frame') callFirst(ws);
      const ends = await Promise.all(attempts.map(async ([what, ws]) => [what, await ending(ws)] as const));
      for (const [what, end] of ends) {
        expect(end.code, what).toBe(4401);
        expect(end.reason, what).toMatch(/open the URL printed by npm run web/);
        expect(end.frames, what).toEqual([]);
      }
      expect(engine.calls.length).toBe(before);
      expect(host.stats().connections).toBe(0);
    });

    it("sockets without a credential never keep a page out: a flood from the page's own address, re-opened as they end", async () => {
      // Silent sockets from 127.0.0.1, the page's own address: each one that ends is opened again at once.
      let flooding = true;
      let attempts = 0;
      const flood = new Set<WebSocket>();
      const openSilent = (): void => {
        if (!flooding) return;
        const ws = openSocket(host, { credential: null });
        flood.add(ws);
        ws.on('error', () => {});
        ws.on('upgrade', () => (attempts += 1));
        ws.on('unexpected-response', (_req, res) => {
          attempts += 1;
          res.resume();
          ws.terminate();
        });
        ws.on('close', () => {
          flood.delete(ws);
          openSilent();
        });
      };
      const linesBefore = logLines.length;
      for (let i = 0; i < 40; i++) openSilent();
      try {
        await expect.poll(() => attempts, { timeout: 10_000 }).toBeGreaterThanOrEqual(80);
        for (let i = 0; i < 15; i++) {
          // The page that presses stop-all: it gets in every time, and its call is answered.
          const page = await Client.open(host);
          expect(await page.call('settings.update', { autoBuyStopped: true }), `try ${i + 1}`).toMatchObject({
            ok: true,
          });
          page.ws.close();
          await page.closed;
        }
        // Refusals are logged with a count, not one line each: a flood does not flood the log.
        const refusalLines = logLines.slice(linesBefore).filter((line) => line.includes('refused'));
        expect(refusalLines.length).toBeLessThan(attempts / 20);
      } finally {
        flooding = false;
        for (const ws of flood) ws.terminate();
      }
    });

    it('welcomes the token (none echoed back), then answers calls and sends events', async () => {
      const c = await client();
      expect(c.messages[0]).toEqual({ type: 'welcome' });
      expect(await c.call('catalog.item', { itemId: 2 })).toMatchObject({ ok: true });
    });

    it('a one-time code from openUrl() opens the bridge once and hands the page the token; used or expired it is refused', async () => {
      const link = new URL(host.openUrl());
      expect(link.origin).toBe(host.origin);
      expect(link.search).toMatch(/^\?code=[A-Za-z0-9_-]{32,}$/);
      expect(link.href).not.toContain(TOKEN);
      const code = link.searchParams.get('code') ?? '';
      expect(new URL(host.openUrl()).searchParams.get('code')).not.toBe(code);

      const c = await client({ credential: { code } });
      expect(c.messages[0]).toEqual({ type: 'welcome', token: TOKEN });
      expect(await c.call('catalog.item', { itemId: 3 })).toMatchObject({ ok: true });

      const again = await ending(openSocket(host, { credential: { code } }));
      expect(again.code).toBe(4401);
      expect(again.reason).toMatch(/already used/);
      expect(again.frames).toEqual([]);
    });

    it('round-trips a call through dispatchIpc: parsed input in, envelope out', async () => {
      const c = await client();
      expect(await c.call('catalog.item', { itemId: 7 })).toEqual({
        ok: true,
        value: { method: 'catalog.item', input: { itemId: 7 } },
      });
      // The engine sees the schema's output: defaults filled in.
      const page = (await c.call('trades.query', { activeOnly: true })) as {
        ok: true;
        value: { input: Record<string, unknown> };
      };
      expect(page.value.input).toMatchObject({ activeOnly: true, statuses: [], offset: 0, limit: 200 });
      // No input at all is `{}`.
      expect(await c.call('app.snapshot', undefined)).toEqual({
        ok: true,
        value: { method: 'app.snapshot', input: {} },
      });
    });

    it('refuses invalid input and unknown methods before the engine', async () => {
      const c = await client();
      const before = engine.calls.length;
      for (const [method, input] of [
        ['catalog.item', { itemId: -1 }],
        ['catalog.item', { itemId: 1, extra: true }],
        ['catalog.query', { limit: 10_000 }],
        ['buy.byId', { itemId: 1 }],
        ['engine.handle', {}],
        ['__proto__', {}],
        [42, {}],
      ] as const) {
        const envelope = (await c.call(method as string, input)) as { ok: boolean; error: { code: string } };
        expect(envelope.ok, String(method)).toBe(false);
        expect(envelope.error.code).toBe('invalid_input');
      }
      expect(engine.calls.length).toBe(before);
    });

    it('passes engine failures as envelopes: EngineError codes as-is, anything else as internal', async () => {
      const c = await client();
      expect(await c.call('trades.get', { tradeId: 'missing' })).toEqual({
        ok: false,
        error: { code: 'not_found', message: 'no such trade' },
      });
      const internal = (await c.call('recipients.list', {})) as { ok: false; error: { code: string; message: string } };
      expect(internal.error.code).toBe('internal');
      expect(internal.error.message).not.toContain('disk on fire');
    });

    it('pushes every engine batch while open and unsubscribes on close', async () => {
      const c = await client();
      await expect.poll(() => engine.listeners.size).toBe(1);
      const batch: EngineEventBatch = { seq: 1, at: '2026-01-01T00:00:00.000Z', activeTrades: 3, ledgerChanged: true };
      engine.emit(batch);
      engine.emit({ ...batch, seq: 2 });
      expect(await c.next((m) => m['type'] === 'events' && (m['batch'] as EngineEventBatch).seq === 2)).toEqual({
        type: 'events',
        batch: { ...batch, seq: 2 },
      });
      expect(c.messages.filter((m) => m['type'] === 'events').map((m) => (m['batch'] as EngineEventBatch).seq)).toEqual(
        [1, 2],
      );
      c.ws.close();
      await c.closed;
      await expect.poll(() => engine.listeners.size).toBe(0);
    });

    it('answers every frame or closes with a reason: unknown types and calls without an id (1008, counted), non-JSON (1007), binary (1003), oversize (1009)', async () => {
      const before = host.stats().ignoredMessages;
      for (const frame of [{ type: 'hello' }, [1, 2], null, { type: 'call', id: 'x', method: 'app.snapshot' }]) {
        const c = await client();
        c.ws.send(JSON.stringify(frame));
        const closed = await c.closed;
        expect(closed.code).toBe(1008);
        expect(String(closed.reason)).toMatch(/^not a bridge call/);
      }
      expect(host.stats().ignoredMessages).toBe(before + 4);
      const c = await client();
      expect((await c.call('catalog.item', { itemId: 1 })) as { ok: boolean }).toMatchObject({ ok: true });

      const notJson = await client();
      notJson.ws.send('{not json');
      expect((await notJson.closed).code).toBe(1007);

      const binary = await client();
      binary.ws.send(Buffer.from('{}'));
      expect((await binary.closed).code).toBe(1003);

      const big = await client();
      big.ws.send(
        JSON.stringify({ type: 'call', id: 1, method: 'catalog.query', input: { search: 'x'.repeat(1024 * 1024) } }),
      );
      expect((await big.closed).code).toBe(1009);
    });

    it('pings every interval (keep-alive)', async () => {
      const c = await client();
      await new Promise<void>((resolve) => c.ws.once('ping', () => resolve()));
    });
  });
});

describe('web host lifecycle and options', () => {
  it('generates a 32-byte base64url token when none is given, and rejects weak ones', async () => {
    const tree = makeRendererDir();
    try {
      const host = await startWebHost({ engine: new EchoEngine(), rendererDir: tree.rendererDir });
      try {
        const token = new URL(host.url).searchParams.get('token') ?? '';
        expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect((await openBridge(host.url, { token })).welcome).toEqual({ type: 'welcome' });
      } finally {
        await host.close();
      }
      await expect(
        startWebHost({ engine: new EchoEngine(), rendererDir: tree.rendererDir, token: 'short' }),
      ).rejects.toThrow(/token/);
      await expect(
        startWebHost({ engine: new EchoEngine(), rendererDir: tree.rendererDir, token: 'has;semicolon-0123456789' }),
      ).rejects.toThrow(/token/);
      await expect(startWebHost({ engine: new EchoEngine(), rendererDir: tree.base })).rejects.toThrow(/npm run build/);
    } finally {
      tree.cleanup();
    }
  });

  it('honours allowedOrigins', async () => {
    const tree = makeRendererDir();
    const host = await startWebHost({
      engine: new EchoEngine(),
      rendererDir: tree.rendererDir,
      token: TOKEN,
      allowedOrigins: ['http://app.example:1234/'],
    });
    try {
      expect((await rawRequest(host.port, '/', { origin: 'http://app.example:1234' })).status).toBe(200);
      expect((await rawRequest(host.port, '/', { origin: host.origin })).status).toBe(403);
    } finally {
      await host.close();
      tree.cleanup();
    }
  });

  it('close() closes open sockets (1001), unsubscribes, and stops listening', async () => {
    const tree = makeRendererDir();
    const engine = new EchoEngine();
    const host = await startWebHost({ engine, rendererDir: tree.rendererDir, token: TOKEN });
    try {
      const c = await Client.open(host);
      await expect.poll(() => engine.listeners.size).toBe(1);
      await host.close();
      expect((await c.closed).code).toBe(1001);
      expect(engine.listeners.size).toBe(0);
      await expect(rawRequest(host.port, '/')).rejects.toThrow();
      await host.close(); // idempotent
    } finally {
      tree.cleanup();
    }
  });
});

describe('running on a server: --public-url, --allow-host, several hosts', () => {
  const tree = makeRendererDir();
  const hosts: WebHost[] = [];
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.close()));
    tree.cleanup();
  });
  const start = async (options: Partial<Parameters<typeof startWebHost>[0]> = {}) => {
    const host = await startWebHost({
      engine: new EchoEngine(),
      rendererDir: tree.rendererDir,
      token: TOKEN,
      ...options,
    });
    hosts.push(host);
    return host;
  };

  it('reports the public URL, and answers its Host and origin (a TLS reverse proxy)', async () => {
    const host = await start({ publicUrl: 'https://desk.example.com/' });
    expect(host.url).toBe(`https://desk.example.com/?token=${TOKEN}`);
    expect(host.origin).toBe('https://desk.example.com');
    const viaProxy = await rawRequest(host.port, '/', { host: 'desk.example.com', origin: 'https://desk.example.com' });
    expect(viaProxy.status).toBe(200);
    // Through https: the socket is wss.
    expect(viaProxy.headers['content-security-policy']).toContain("connect-src 'self' wss://desk.example.com");
    expect(new URL(host.openUrl()).origin).toBe('https://desk.example.com');
    // Loopback still works as before.
    expect((await rawRequest(host.port, '/')).status).toBe(200);
    // Other names and origins stay refused.
    expect((await rawRequest(host.port, '/', { host: 'desk.example.org' })).status).toBe(403);
    expect((await rawRequest(host.port, '/', { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('refuses an unusable public URL', async () => {
    for (const bad of [
      'desk.example.com',
      'ftp://desk.example.com',
      'https://desk.example.com/md/',
      'https://u:p@desk.example.com/',
      'https://desk.example.com/?a=1',
    ]) {
      await expect(start({ publicUrl: bad }), bad).rejects.toThrow(/--public-url/);
    }
  });

  it('--allow-host: a name means name:PORT, name:port means exactly that; Host and Origin', async () => {
    const host = await start({ allowHosts: ['myserver', 'Proxy.LAN:8443'] });
    expect((await rawRequest(host.port, '/', { host: `myserver:${host.port}` })).status).toBe(200);
    expect(
      (await rawRequest(host.port, '/', { host: `myserver:${host.port}`, origin: `http://myserver:${host.port}` }))
        .status,
    ).toBe(200);
    expect((await rawRequest(host.port, '/', { host: 'proxy.lan:8443' })).status).toBe(200);
    expect((await rawRequest(host.port, '/', { host: 'myserver:1' })).status).toBe(403);
    expect((await rawRequest(host.port, '/', { host: `proxy.lan:${host.port}` })).status).toBe(403);
    expect((await rawRequest(host.port, '/', { host: `notmyserver:${host.port}` })).status).toBe(403);
    await expect(start({ allowHosts: ['http://myserver'] })).rejects.toThrow(/--allow-host/);
    await expect(start({ allowHosts: ['myserver/path'] })).rejects.toThrow(/--allow-host/);
  });

  it('a refusal says what happened and what to do, and quotes the header safely', async () => {
    const host = await start();
    const wrongHost = await rawRequest(host.port, '/', { host: `myserver:${host.port}` });
    expect(wrongHost.status).toBe(403);
    expect(wrongHost.body).toBe(
      `Forbidden: this Merchant Desk web host does not answer to the Host "myserver:${host.port}". ` +
        `Open http://127.0.0.1:${host.port}/ instead, or start it with --public-url or --allow-host NAME for the name you use.`,
    );
    const wrongOrigin = await rawRequest(host.port, '/', { origin: 'https://proxy.example' });
    expect(wrongOrigin.status).toBe(403);
    expect(wrongOrigin.body).toMatch(
      /^Forbidden: requests from the page origin "https:\/\/proxy\.example" are refused \(cross-site use\)\. .*--public-url/,
    );
    const long = await rawRequest(host.port, '/', { origin: `http://${'x'.repeat(500)}` });
    expect(long.body.length).toBeLessThan(400);
    // The socket's refusal carries the same explanation.
    const ws = openSocket(host, { host: `myserver:${host.port}` });
    const body = await new Promise<string>((resolve) => {
      ws.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve(text));
      });
      ws.on('error', () => {});
    });
    expect(body).toContain('does not answer to the Host "myserver:');
  });

  it('two hosts on one machine: each token and code opens its own host only', async () => {
    const other = 'other-token-0123456789abcdef';
    const a = await start();
    const b = await start({ token: other });
    expect((await openBridge(a.url, { token: TOKEN })).welcome).toEqual({ type: 'welcome' });
    expect((await openBridge(b.url, { token: other })).welcome).toEqual({ type: 'welcome' });
    await expect(openBridge(a.url, { token: other })).rejects.toThrow(/4401/);
    const codeOfB = new URL(b.openUrl()).searchParams.get('code') ?? '';
    await expect(openBridge(a.url, { code: codeOfB })).rejects.toThrow(/4401/);
    expect((await openBridge(b.url, { code: codeOfB })).welcome).toEqual({ type: 'welcome', token: other });
  });

  it('a code not used within its time is refused', async () => {
    const host = await start({ codeTtlMs: 50 });
    const code = new URL(host.openUrl()).searchParams.get('code') ?? '';
    await new Promise((r) => setTimeout(r, 120));
    await expect(openBridge(host.url, { code })).rejects.toThrow(/4401 .*expired/);
  });
});

describe('npm run web command line', () => {
  it('binds loopback by default, without warnings', () => {
    const parsed = parseWebCli([]);
    expect(parsed).toMatchObject({
      ok: true,
      options: {
        host: '127.0.0.1',
        port: 0,
        publicUrl: null,
        allowHosts: [],
        warnings: [],
        open: true,
        forwardToPrivateNetworks: false,
        testRateLimitScale: 1,
      },
    });
  });

  it('raises the client rate limits only by --test-rate-limit-scale, a whole number from 1 to 1000, with a warning', () => {
    expect(parseWebCli(['--test-rate-limit-scale', '10'])).toMatchObject({
      ok: true,
      options: { testRateLimitScale: 10, warnings: [expect.stringMatching(/--test-rate-limit-scale 10/)] },
    });
    expect(parseWebCli(['--test-rate-limit-scale', '1'])).toMatchObject({
      ok: true,
      options: { testRateLimitScale: 1, warnings: [] },
    });
    for (const bad of ['0', '-2', '1.5', 'ten', '1001', '']) {
      expect(parseWebCli([`--test-rate-limit-scale=${bad}`])).toEqual({
        ok: false,
        message: `--test-rate-limit-scale must be a whole number from 1 to 1000, got ${bad}`,
      });
    }
  });

  it('lets chat forwarding reach private networks only when the command line says so, with a warning', () => {
    expect(parseWebCli(['--forward-to-private-networks'])).toMatchObject({
      ok: true,
      options: { forwardToPrivateNetworks: true, warnings: [expect.stringMatching(/--forward-to-private-networks/)] },
    });
  });

  it('warns on stderr-bound lines when exposed to the network', () => {
    const parsed = parseWebCli([
      '--host',
      '0.0.0.0',
      '--public-url',
      'https://desk.example.com',
      '--allow-host',
      'myserver',
      '--allow-host',
      'alt:9000',
      '--no-open',
    ]);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.options).toMatchObject({
      host: '0.0.0.0',
      publicUrl: 'https://desk.example.com',
      allowHosts: ['myserver', 'alt:9000'],
      open: false,
    });
    expect(parsed.options.warnings).toHaveLength(1);
    expect(parsed.options.warnings[0]).toMatch(
      /^WARNING: --host 0\.0\.0\.0 makes Merchant Desk reachable from the network, protected only by the token/,
    );
    expect(
      parseWebCli(['--public-url', 'http://desk.example.com']).ok &&
        parseWebCli(['--public-url', 'http://desk.example.com']),
    ).toMatchObject({
      options: { warnings: [expect.stringMatching(/plain http/)] },
    });
  });

  it('refuses bad values before anything starts', () => {
    expect(parseWebCli(['--port', '70000'])).toMatchObject({ ok: false, message: expect.stringMatching(/--port/) });
    expect(parseWebCli(['--public-url', 'https://x.example/path'])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/--public-url/),
    });
    expect(parseWebCli(['--allow-host', 'https://x.example'])).toMatchObject({
      ok: false,
      message: expect.stringMatching(/--allow-host/),
    });
    expect(parseWebCli(['--bogus'])).toMatchObject({ ok: false });
  });

  it('takes the token from the environment when not given', () => {
    expect(parseWebCli([], { MERCHANT_DESK_WEB_TOKEN: 'env-token-0123456789abcdef' })).toMatchObject({
      options: { token: 'env-token-0123456789abcdef' },
    });
    expect(parseWebCli(['--token', 'cli-token-0123456789abcdef'], { MERCHANT_DESK_WEB_TOKEN: 'env' })).toMatchObject({
      options: { token: 'cli-token-0123456789abcdef' },
    });
  });
});

describe('bound to every interface', () => {
  it('reports an address other machines can open, and answers the machine name', async () => {
    const tree = makeRendererDir();
    const host = await startWebHost({
      engine: new EchoEngine(),
      rendererDir: tree.rendererDir,
      token: TOKEN,
      host: '0.0.0.0',
    });
    try {
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && !a.internal && a.family === 'IPv4')?.address;
      expect(host.origin).toBe(`http://${external ?? '127.0.0.1'}:${host.port}`);
      expect((await rawRequest(host.port, '/', { host: `${hostname().toLowerCase()}:${host.port}` })).status).toBe(200);
      expect((await rawRequest(host.port, '/', { host: `evil.example:${host.port}` })).status).toBe(403);
    } finally {
      await host.close();
      tree.cleanup();
    }
  });
});
