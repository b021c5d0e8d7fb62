import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * An HTTP-level fault proxy in front of the sandbox (REST and the WebSocket
 * upgrade share its port). Per path prefix it can answer 429 with
 * `Retry-After` N times, answer 503 maintenance for a while, hold responses
 * past the client's time-out, or replace a 200 body with JSON that violates
 * the schema. Everything else passes through untouched, the WebSocket upgrade
 * included. It counts every request it sees (and what it answered), so tests
 * can assert that a client backs off instead of spinning. `halfOpenWebSockets()`
 * turns the open WebSocket tunnels into black holes: nothing passes either way
 * and nothing is closed (no FIN, no RST), as a dead NAT entry or a pulled cable
 * between two routers would.
 */

export type Fault =
  /** Answer 429 `rate_limited` with `Retry-After: retryAfterSeconds`, `times` times. */
  | { kind: 'rate-limit'; times: number; retryAfterSeconds: number }
  /** Answer 503 `maintenance` with `Retry-After` until `untilMs` (Date.now() clock). Also refuses WebSocket upgrades. */
  | { kind: 'maintenance'; untilMs: number; retryAfterSeconds: number }
  /** Forward the request, hold the response `delayMs` before sending it (until `untilMs`). */
  | { kind: 'delay'; delayMs: number; untilMs: number }
  /** Forward the request; replace a 2xx body with `body(original)` (until `untilMs`). */
  | { kind: 'schema'; untilMs: number; body: (original: string) => string }
  /** A hostile or broken middlebox: answer `status` with an HTML page that echoes every request header (credentials included). */
  | { kind: 'echo'; status: number; untilMs: number };

export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  /** What the client got: the status, or `fault:<kind>` details. */
  status: number | null;
  fault: Fault['kind'] | null;
  upgrade: boolean;
}

interface Rule {
  prefix: string;
  fault: Fault;
}

export class HttpFaultProxy {
  private server: Server | null = null;
  private rules: Rule[] = [];
  private readonly sockets = new Set<Socket | Duplex>();
  private readonly pending = new Set<NodeJS.Timeout>();
  private readonly tunnels = new Set<{ client: Duplex; upstream: Socket; halfOpen: boolean }>();
  readonly requests: SeenRequest[] = [];
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  static forBaseUrl(baseUrl: string): HttpFaultProxy {
    const url = new URL(baseUrl);
    return new HttpFaultProxy({ host: url.hostname, port: Number(url.port) });
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => this.onRequest(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
    server.on('connection', (socket) => this.track(socket));
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/ws`;
  }

  /** Adds a fault for every path starting with `prefix` ('' = every path). Returns its removal. */
  inject(prefix: string, fault: Fault): () => void {
    const rule = { prefix, fault };
    this.rules.push(rule);
    return () => {
      this.rules = this.rules.filter((r) => r !== rule);
    };
  }

  clear(): void {
    this.rules = [];
  }

  /** Requests seen whose path starts with `prefix`, optionally only since `sinceMs`. */
  count(prefix = '', sinceMs = 0, untilMs = Infinity): number {
    return this.requests.filter((r) => r.path.startsWith(prefix) && r.at >= sinceMs && r.at < untilMs).length;
  }

  /**
   * Every WebSocket open now stops carrying data in both directions, silently: bytes are read and dropped
   * on each side, both TCP connections stay up. Returns how many tunnels went quiet. New upgrades pass.
   */
  halfOpenWebSockets(): number {
    let count = 0;
    for (const tunnel of this.tunnels) {
      if (tunnel.halfOpen || tunnel.client.destroyed || tunnel.upstream.destroyed) continue;
      tunnel.halfOpen = true;
      tunnel.client.unpipe(tunnel.upstream);
      tunnel.upstream.unpipe(tunnel.client);
      tunnel.client.on('data', () => {});
      tunnel.upstream.on('data', () => {});
      tunnel.client.resume();
      tunnel.upstream.resume();
      count++;
    }
    return count;
  }

  /** Drops every open connection (REST keep-alive and WebSockets): a network blip. */
  cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  async close(): Promise<void> {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
    this.cutAll();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // ---- internals

  private track(socket: Socket | Duplex): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
  }

  /** The first live rule for a path; spent and expired rules are dropped. */
  private match(path: string): Fault | null {
    const now = Date.now();
    this.rules = this.rules.filter((rule) => {
      const fault = rule.fault;
      if (fault.kind === 'rate-limit') return fault.times > 0;
      return fault.untilMs > now;
    });
    const rule = this.rules.find((r) => path.startsWith(r.prefix));
    return rule ? rule.fault : null;
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      run();
    }, ms);
    this.pending.add(timer);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '/';
    const seen: SeenRequest = {
      at: Date.now(),
      method: req.method ?? 'GET',
      path,
      status: null,
      fault: null,
      upgrade: false,
    };
    this.requests.push(seen);
    const fault = this.match(path);
    seen.fault = fault?.kind ?? null;
    if (fault?.kind === 'rate-limit') {
      fault.times--;
      req.resume();
      seen.status = 429;
      this.answer(
        res,
        429,
        { error: 'rate_limited', message: 'Rate limit exceeded' },
        { 'retry-after': String(fault.retryAfterSeconds) },
      );
      return;
    }
    if (fault?.kind === 'maintenance') {
      req.resume();
      seen.status = 503;
      this.answer(
        res,
        503,
        { error: 'maintenance', message: 'System is under maintenance. Please try again later.' },
        { 'retry-after': String(fault.retryAfterSeconds) },
      );
      return;
    }
    if (fault?.kind === 'echo') {
      req.resume();
      seen.status = fault.status;
      const echoed = Object.entries(req.headers)
        .map(([name, value]) => `<li>${name}: ${String(value)}</li>`)
        .join('');
      const page = `<html><body><h1>${fault.status} Upstream error</h1><p>Your request:</p><ul>${echoed}</ul></body></html>`;
      res.writeHead(fault.status, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': String(Buffer.byteLength(page)),
      });
      res.end(page);
      return;
    }
    const headers = { ...req.headers, host: `${this.target.host}:${this.target.port}` };
    // A body we rewrite must arrive uncompressed.
    if (fault?.kind === 'schema') headers['accept-encoding'] = 'identity';
    const upstream = httpRequest(
      { host: this.target.host, port: this.target.port, method: req.method, path, headers },
      (answer) => {
        seen.status = answer.statusCode ?? 0;
        if (!fault) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body: Buffer = Buffer.concat(chunks);
          const outHeaders = { ...answer.headers };
          const status = answer.statusCode ?? 502;
          if (fault.kind === 'schema' && status >= 200 && status < 300) {
            body = Buffer.from(fault.body(body.toString('utf8')));
            delete outHeaders['content-encoding'];
            delete outHeaders['transfer-encoding'];
            outHeaders['content-type'] = 'application/json';
          }
          outHeaders['content-length'] = String(body.length);
          const send = () => {
            if (res.destroyed || res.writableEnded) return;
            res.writeHead(status, outHeaders);
            res.end(body);
          };
          if (fault.kind === 'delay') this.later(fault.delayMs, send);
          else send();
        });
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      seen.status = 502;
      if (!res.headersSent) this.answer(res, 502, { error: 'bad_gateway', message: 'upstream unreachable' });
      else res.destroy();
    });
    req.pipe(upstream);
  }

  private answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  }

  /** WebSocket upgrades pass through as raw TCP (only a maintenance fault refuses them, as the sandbox would). */
  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = req.url ?? '/';
    const seen: SeenRequest = {
      at: Date.now(),
      method: req.method ?? 'GET',
      path,
      status: null,
      fault: null,
      upgrade: true,
    };
    this.requests.push(seen);
    this.track(socket);
    const fault = this.match(path);
    if (fault?.kind === 'maintenance') {
      seen.fault = 'maintenance';
      seen.status = 503;
      const body = JSON.stringify({
        error: 'maintenance',
        message: 'System is under maintenance. Please try again later.',
      });
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: ${fault.retryAfterSeconds}\r\n` +
          `Connection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    this.track(upstream);
    upstream.on('connect', () => {
      seen.status = 101;
      let head0 = `${req.method} ${path} HTTP/${req.httpVersion}\r\n`;
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const name = req.rawHeaders[i] as string;
        const value =
          name.toLowerCase() === 'host' ? `${this.target.host}:${this.target.port}` : (req.rawHeaders[i + 1] as string);
        head0 += `${name}: ${value}\r\n`;
      }
      upstream.write(`${head0}\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    const tunnel = { client: socket, upstream, halfOpen: false };
    this.tunnels.add(tunnel);
    const cut = () => {
      this.tunnels.delete(tunnel);
      upstream.destroy();
      // A half-open tunnel carries nothing, not even the server's close: the client must notice the silence itself.
      if (!tunnel.halfOpen || socket.destroyed) socket.destroy();
    };
    upstream.on('error', cut);
    upstream.on('close', cut);
    socket.on('close', cut);
  }
}
