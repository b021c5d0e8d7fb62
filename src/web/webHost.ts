// The loopback web host: serves the built renderer and bridges the IPC contract over one
// WebSocket per page, so the app also runs in a browser. Host and Origin are checked on every
// request against what we are bound to (DNS rebinding, cross-site pages). The files hold no
// secret and need no credential; the bridge socket does: its upgrade must offer the launch token
// (or a one-time code), see bridgeAuth.ts.
import { randomBytes } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { hostname, networkInterfaces } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import Fastify from 'fastify';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { EngineService } from '../main/core/ipc/engineService';
import { dispatchIpc } from '../main/core/ipc/dispatch';
import { BRIDGE_PROTOCOL, BridgeCredentials, offeredCredential, UNAUTHORIZED_CLOSE } from './bridgeAuth';
import { registerExportDownloads } from './exportDownloads';
import { parseAllowedHost, parsePublicUrl } from './hostNames';

export interface WebHostOptions {
  engine: EngineService;
  /** The built renderer (`out/renderer`): must contain index.html. */
  rendererDir: string;
  host?: string;
  /** 0: any free port. */
  port?: number;
  /** 16–256 characters of [A-Za-z0-9._~-]; a random 32-byte base64url token when absent. */
  token?: string;
  /** Origins allowed in an `Origin` header; the host's own origin(s) by default (plus those of publicUrl and allowHosts). */
  allowedOrigins?: string[];
  /**
   * Where browsers reach this host when it is not the bind address (a server name, a TLS
   * reverse proxy): `http(s)://name[:port]/`. It is the URL reported (with the token), its
   * Host and origin are allowed. Only the root of a host: no path, query or credentials.
   */
  publicUrl?: string;
  /** More names browsers may use in `Host` (`myserver` means `myserver:PORT`; `myserver:8080` exactly that). */
  allowHosts?: string[];
  /** One line per noteworthy event (refused sockets, engine failures); never carries the token or inputs. */
  log?: (line: string) => void;
  /** Keep-alive ping period for bridge sockets. */
  pingIntervalMs?: number;
  /** How long a code of `openUrl()` stays good (unused). */
  codeTtlMs?: number;
}

export interface WebHostStats {
  /** Open bridge sockets that were welcomed (a refused one is not a connection). */
  connections: number;
  /** Well-formed JSON messages of an unknown type (or a call without a usable id), refused with a close (1008). */
  ignoredMessages: number;
}

export interface WebHost {
  /** The full URL to open, with `?token=`. */
  url: string;
  /**
   * A URL with a new one-time `?code=` instead of the token, for handing to another process
   * (a browser's command line is visible to every local user): good for one page, briefly.
   */
  openUrl(): string;
  /** `http://host:port` (or the public URL's origin), no trailing slash. */
  origin: string;
  port: number;
  stats(): WebHostStats;
  close(): Promise<void>;
}

/** Bridge protocol (JSON text frames on `/bridge`). */
export interface BridgeCallMessage {
  type: 'call';
  id: number;
  method: string;
  input?: unknown;
}

export const BRIDGE_PATH = '/bridge';
export const MAX_MESSAGE_BYTES = 1024 * 1024;
const MAX_IN_FLIGHT_PER_SOCKET = 256;
/** Welcomed sockets at once (pages, tabs); a socket without a credential never counts. */
const MAX_SOCKETS = 32;
/** A refused socket that does not answer our close frame is cut after this. */
const REFUSED_LINGER_MS = 1000;
/** Refusals are logged at most once per this period, with a count (a flood must not flood the log). */
const REFUSAL_LOG_PERIOD_MS = 10_000;
/** A client that stops reading events is dropped (it reconnects and re-reads state). */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,256}$/;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
};

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/** The first non-internal IPv4 address of this machine: what another machine can open when bound to all interfaces. */
function firstExternalAddress(): string | null {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) if (!address.internal && address.family === 'IPv4') return address.address;
  }
  return null;
}

/** `host:port` as it appears in a Host header (IPv6 in brackets). */
function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`.toLowerCase();
}

/** Host header values that address this server. */
function allowedHostHeaders(host: string, port: number): Set<string> {
  const names = new Set<string>([host]);
  if (isLoopback(host)) {
    names.add('localhost');
    names.add('127.0.0.1');
  }
  if (isWildcard(host)) {
    names.delete(host);
    names.add('localhost');
    // The machine's own name: what people type for a server (never attacker-controlled, unlike a rebinding domain).
    names.add(hostname().toLowerCase());
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(address.address.replace(/%.*$/, ''));
    }
  }
  const headers = new Set<string>();
  for (const name of names) {
    headers.add(hostPort(name, port));
    if (port === 80) headers.add(name.includes(':') ? `[${name}]` : name);
  }
  return headers;
}

function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/** A header value fit to quote in a plain-text refusal (no control characters, bounded). */
function quoted(value: string | undefined): string {
  if (value === undefined || value === '') return '(none)';
  const clean = Array.from(value.slice(0, 120), (ch) =>
    ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127 ? '?' : ch,
  ).join('');
  return `"${clean}${value.length > 120 ? '…' : ''}"`;
}

/** The one content-security policy of every answer; `wsHost` is an already validated Host header. */
function contentSecurityPolicy(wsHost: string | null, secure = false): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    // Plain http only from loopback (the embedded demo sandbox), as the renderer's own policy says.
    "img-src 'self' data: https: http://127.0.0.1:* http://localhost:*",
    wsHost === null ? "connect-src 'self'" : `connect-src 'self' ${secure ? 'wss' : 'ws'}://${wsHost}`,
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function securityHeaders(wsHost: string | null, secure = false): OutgoingHttpHeaders {
  return {
    'content-security-policy': contentSecurityPolicy(wsHost, secure),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}

type Verdict = { kind: 'refuse'; status: 403; body: string } | { kind: 'pass' };

function isBridgeCall(message: unknown): message is BridgeCallMessage {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return m['type'] === 'call' && typeof m['id'] === 'number' && Number.isSafeInteger(m['id']) && m['id'] >= 0;
}

function rawDataToString(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** A file under root for a request path, or null (missing, hidden, outside, not a file). */
async function resolveStatic(root: string, rawUrl: string): Promise<{ file: string; size: number } | null> {
  const pathname = rawUrl.split(/[?#]/, 1)[0] ?? '/';
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s.length > 0);
  // No '.', '..' or dotfiles: traversal is refused before any path arithmetic.
  if (segments.some((s) => s.startsWith('.'))) return null;
  const file = resolve(root, segments.length === 0 ? 'index.html' : segments.join('/'));
  if (!file.startsWith(root + sep)) return null;
  try {
    const info = await stat(file);
    if (!info.isFile()) return null; // directories: no listing
    // Symlinks must not lead out of the renderer folder either.
    if (!(await realpath(file)).startsWith(root + sep)) return null;
    return { file, size: info.size };
  } catch {
    return null;
  }
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const { engine, host = '127.0.0.1', port: requestedPort = 0, log = () => {}, pingIntervalMs = 20_000 } = options;
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (!TOKEN_PATTERN.test(token)) throw new Error('web host token must be 16-256 characters of [A-Za-z0-9._~-]');
  const credentials = new BridgeCredentials(
    token,
    options.codeTtlMs === undefined ? {} : { codeTtlMs: options.codeTtlMs },
  );
  const publicUrl = options.publicUrl === undefined ? null : parsePublicUrl(options.publicUrl);
  const extraHosts = (options.allowHosts ?? []).map(parseAllowedHost);

  const rendererDir = resolve(options.rendererDir);
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`${join(rendererDir, 'index.html')} not found: build the renderer first (npm run build)`);
  }
  const root = realpathSync(rendererDir);

  // Filled in once listening (port 0 means we learn the port then).
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();
  let ownOrigin = '';
  let ignoredMessages = 0;

  /** Requests through an https public URL: the socket is wss. */
  const viaSecurePublicUrl = (hostHeader: string) =>
    publicUrl !== null && publicUrl.secure && hostHeader === publicUrl.host;

  function verdict(req: IncomingMessage): Verdict {
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts.has(hostHeader)) {
      return {
        kind: 'refuse',
        status: 403,
        body:
          `Forbidden: this Merchant Desk web host does not answer to the Host ${quoted(req.headers.host)}. ` +
          `Open ${ownOrigin}/ instead, or start it with --public-url or --allow-host NAME for the name you use.`,
      };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(normalizeOrigin(origin))) {
      return {
        kind: 'refuse',
        status: 403,
        body:
          `Forbidden: requests from the page origin ${quoted(origin)} are refused (cross-site use). ` +
          'A reverse proxy must be named with --public-url (or its host with --allow-host).',
      };
    }
    return { kind: 'pass' };
  }

  const app = Fastify({
    logger: false,
    bodyLimit: 1024,
    forceCloseConnections: true,
    return503OnClosing: true,
    // Every request passes the gate before fastify sees it, even ones fastify would reject itself.
    serverFactory: (handler) =>
      createServer((req: IncomingMessage, res: ServerResponse) => {
        const v = verdict(req);
        if (v.kind === 'pass') {
          handler(req, res);
          return;
        }
        res.writeHead(v.status, {
          ...securityHeaders(null),
          'cache-control': 'no-store',
          'content-type': 'text/plain; charset=utf-8',
          'content-length': String(Buffer.byteLength(v.body)),
        });
        res.end(v.body);
      }),
  });

  app.addHook('onSend', async (request, reply) => {
    const hostHeader = (request.headers.host ?? '').toLowerCase();
    reply.headers(securityHeaders(hostHeader, viaSecurePublicUrl(hostHeader)));
  });

  registerExportDownloads(app, { credentials, fileOf: (id) => engine.exportFile?.(id) ?? null });

  app.get('/*', async (request, reply) => {
    const found = await resolveStatic(root, request.raw.url ?? '/');
    if (!found)
      return reply.code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('Not Found');
    const body = await readFile(found.file);
    const type = CONTENT_TYPES[extname(found.file).toLowerCase()] ?? 'application/octet-stream';
    const relative = found.file.slice(root.length + 1);
    // Vite's hashed bundles never change under one name; everything else (index.html) is re-read each load.
    const cacheControl = relative.startsWith(`assets${sep}`) ? 'private, max-age=31536000, immutable' : 'no-store';
    return reply.type(type).header('cache-control', cacheControl).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const known =
      request.method === 'POST' ||
      request.method === 'PUT' ||
      request.method === 'DELETE' ||
      request.method === 'PATCH';
    return reply
      .code(known ? 405 : 404)
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(known ? 'Method Not Allowed' : 'Not Found');
  });

  // --- the bridge -------------------------------------------------------------------------
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    // Never the credential: the answer names the bridge's protocol, which the page offers beside it.
    handleProtocols: (protocols) => (protocols.has(BRIDGE_PROTOCOL) ? BRIDGE_PROTOCOL : false),
  });
  const alive = new WeakMap<WebSocket, boolean>();
  /** Welcomed sockets: the only ones MAX_SOCKETS counts. */
  const served = new Set<WebSocket>();

  let refusalsUnlogged = 0;
  let lastRefusalLogAt = Number.NEGATIVE_INFINITY;
  function logRefusal(line: string): void {
    const now = Date.now();
    if (now - lastRefusalLogAt < REFUSAL_LOG_PERIOD_MS) {
      refusalsUnlogged += 1;
      return;
    }
    log(refusalsUnlogged > 0 ? `${line} (and ${refusalsUnlogged} more refused before it)` : line);
    lastRefusalLogAt = now;
    refusalsUnlogged = 0;
  }

  function refuseUpgrade(socket: Duplex, status: number, text: string, message = text): void {
    const body = `${message}\n`;
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
        `Cache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    socket.once('error', () => {});
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {});
    const v = verdict(req);
    if (v.kind !== 'pass') {
      logRefusal('web host: refused a bridge connection (403)');
      refuseUpgrade(socket, 403, 'Forbidden', v.body);
      return;
    }
    // Browsers always send Origin on a WebSocket: its absence means no page of ours.
    if (req.headers.origin === undefined) {
      logRefusal('web host: refused a bridge connection without an Origin (403)');
      refuseUpgrade(
        socket,
        403,
        'Forbidden',
        'Forbidden: the bridge answers pages of this web host only (no Origin header).',
      );
      return;
    }
    const pathname = (req.url ?? '/').split('?', 1)[0];
    if (pathname !== BRIDGE_PATH) {
      refuseUpgrade(socket, 404, 'Not Found');
      return;
    }
    // Before the credential, so a one-time code is not spent on a refusal.
    if (served.size >= MAX_SOCKETS) {
      refuseUpgrade(
        socket,
        503,
        'Service Unavailable',
        `Service Unavailable: at most ${MAX_SOCKETS} pages at once; close one.`,
      );
      return;
    }
    // Judged here, before any socket exists: one without a good credential never waits for anything.
    const credential = credentials.check(offeredCredential(req.headers['sec-websocket-protocol']));
    if (!credential.ok) {
      if (credential.reused) {
        log(
          'web host: a one-time browser link was presented a second time. If your browser then said the session ' +
            'expired, someone else opened the link first: restart the web host with a new token.',
        );
      }
      logRefusal(
        `web host: refused a bridge connection (${credential.reason.slice(0, credential.reason.indexOf(';'))})`,
      );
      // Opened only to be closed with the reason: a page then says its session expired, rather than "host down".
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('error', () => {});
        ws.close(UNAUTHORIZED_CLOSE, credential.reason);
        setTimeout(() => ws.terminate(), REFUSED_LINGER_MS).unref();
      });
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      ws.on('error', (error) => log(`web host: bridge socket error: ${error.message}`));
      served.add(ws);
      ws.once('close', () => served.delete(ws));
      ws.send(
        JSON.stringify(credential.token === null ? { type: 'welcome' } : { type: 'welcome', token: credential.token }),
      );
      serve(ws);
    });
  });

  /** A welcomed socket: calls in, results and event batches out. */
  function serve(ws: WebSocket): void {
    let inFlight = 0;

    const send = (message: unknown): void => {
      if (ws.readyState !== WebSocket.OPEN) return;
      ws.send(JSON.stringify(message));
    };

    const unsubscribe = engine.subscribe((batch) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
        log('web host: a bridge client stopped reading events; closing its socket');
        ws.close(1013, 'client too slow');
        return;
      }
      try {
        send({ type: 'events', batch });
      } catch (error) {
        log(`web host: could not send an event batch: ${(error as Error).message}`);
      }
    });

    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        ws.close(1003, 'text frames only');
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(rawDataToString(data));
      } catch {
        ws.close(1007, 'invalid JSON');
        return;
      }
      if (!isBridgeCall(message)) {
        // Nothing to answer (no call id): close with the reason, so no frame goes without a reply.
        ignoredMessages += 1;
        ws.close(1008, 'not a bridge call: {"type":"call","id":<integer>,"method","input"} expected');
        return;
      }
      const { id, method, input } = message;
      if (inFlight >= MAX_IN_FLIGHT_PER_SOCKET) {
        send({
          type: 'result',
          id,
          envelope: { ok: false, error: { code: 'unavailable', message: 'Too many calls in flight' } },
        });
        return;
      }
      inFlight += 1;
      void dispatchIpc(engine, method, input, (m, error) => {
        log(`web host: ${m} failed: ${error instanceof Error ? error.message : String(error)}`);
      })
        .then((envelope) => {
          try {
            send({ type: 'result', id, envelope });
          } catch (error) {
            // An unserializable result (BigInt, cycle) still answers the call.
            log(`web host: could not send the result of ${String(method).slice(0, 64)}: ${(error as Error).message}`);
            send({
              type: 'result',
              id,
              envelope: { ok: false, error: { code: 'internal', message: 'result could not be sent' } },
            });
          }
        })
        .catch((error: unknown) => log(`web host: bridge call failed: ${(error as Error).message}`))
        .finally(() => {
          inFlight -= 1;
        });
    });

    ws.once('close', () => unsubscribe());
  }

  const pinger = setInterval(() => {
    for (const ws of served) {
      if (ws.readyState !== WebSocket.OPEN) continue; // closing: ping() would throw
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, pingIntervalMs);
  pinger.unref();

  try {
    await app.listen({ host, port: requestedPort });
  } catch (error) {
    clearInterval(pinger);
    wss.close();
    throw error;
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('web host: unexpected server address');
  const port = address.port;

  allowedHosts = allowedHostHeaders(host, port);
  for (const extra of extraHosts) {
    const name = extra.name.includes(':') ? `[${extra.name}]` : extra.name;
    allowedHosts.add(extra.port === null ? `${name}:${port}` : `${name}:${extra.port}`);
    if (extra.port === 80 || (extra.port === null && port === 80)) allowedHosts.add(name);
  }
  if (publicUrl) allowedHosts.add(publicUrl.host);
  allowedOrigins = new Set(
    (options.allowedOrigins ?? [...allowedHosts].map((h) => `http://${h}`)).map(normalizeOrigin),
  );
  if (publicUrl) allowedOrigins.add(publicUrl.origin);

  const urlHost = isWildcard(host) ? (firstExternalAddress() ?? '127.0.0.1') : host.includes(':') ? `[${host}]` : host;
  ownOrigin = `http://${urlHost}:${port}`;
  const origin = publicUrl?.origin ?? ownOrigin;

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      clearInterval(pinger);
      const sockets = [...wss.clients];
      await Promise.all(
        sockets.map(
          (ws) =>
            new Promise<void>((done) => {
              if (ws.readyState === WebSocket.CLOSED) return done();
              const timer = setTimeout(() => ws.terminate(), 500);
              ws.once('close', () => {
                clearTimeout(timer);
                done();
              });
              ws.close(1001, 'Merchant Desk web host is shutting down');
            }),
        ),
      );
      await new Promise<void>((done) => wss.close(() => done()));
      await app.close();
    })();
    return closing;
  };

  return {
    url: `${origin}/?token=${encodeURIComponent(token)}`,
    openUrl: () => `${origin}/?code=${credentials.issueCode()}`,
    origin,
    port,
    stats: () => ({ connections: served.size, ignoredMessages }),
    close,
  };
}
