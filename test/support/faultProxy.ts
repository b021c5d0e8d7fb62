import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Transform, type Duplex, type TransformCallback } from 'node:stream';

/**
 * The tests' one fault proxy: an HTTP-level proxy in front of the sandbox (REST and the WebSocket upgrade share its
 * port) that sees and breaks the network. It records every request (method, path, headers, what the client got and its
 * answer's bytes) and every order id (`"externalId":"…"`) clients sent, so tests count on the wire what the server
 * received.
 *
 * Per request (a path prefix, or a test of method and path) it can answer 429 with `Retry-After`, answer 503
 * maintenance (WebSocket upgrades refused too), hold the answer (for a time, or until the test releases it), send it slowly, rewrite a 2xx body, alter the request (a tampering relay), echo the request's headers in
 * an error page (a hostile middlebox), lose the answer (the request reaches the server, the client's connection
 * dies before any answer), drop the request (its connection dies before it leaves), or never answer (the
 * connection stays open, as with a slow server). Everything else passes through untouched, upgrades included.
 *
 * For the whole network: `cut()` drops every connection and refuses new ones until `restore()`;
 * `dropConnections()` is a blip (new connections pass); `holdRequests()` keeps requests at the proxy (counted, not
 * sent on) until `releaseRequests()`; `halfOpenWebSockets()` turns the open WebSocket tunnels into black holes:
 * nothing passes either way and nothing is closed (no FIN, no RST), as a dead NAT entry would; `dropFeedFrames()`
 * loses the server's text frames a test picks on every tunnel (the server sent them, the client never sees them).
 */

/** How long a fault lasts: `times` requests, until `untilMs` (Date.now() clock), or both; unset: until removed. */
export interface FaultLimits {
  times?: number;
  untilMs?: number;
}

/** What happens to a request a fault applies to. */
export type FaultKind =
  /** Answer 429 `rate_limited` with `Retry-After: retryAfterSeconds`. */
  | { kind: 'rate-limit'; retryAfterSeconds: number }
  /** Answer 503 `maintenance` with `Retry-After`; WebSocket upgrades are refused the same way. */
  | { kind: 'maintenance'; retryAfterSeconds: number }
  /** Forward the request, hold the answer `delayMs` before sending it. */
  | { kind: 'delay'; delayMs: number }
  /** Forward the request, hold the answer until `release` settles: a slow answer that ends when the test says. */
  | { kind: 'hold'; release: Promise<unknown> }
  /**
   * Forward the request; send the answer on at `bytesPerSecond`. What the server wrote beyond that waits at the
   * proxy (about 1 MB, then the server is held back) and is lost if the server dies: a slow link.
   */
  | { kind: 'throttle'; bytesPerSecond: number }
  /** Forward the request; replace a 2xx body with `body(original)`. */
  | { kind: 'schema'; body: (original: string) => string }
  /** Forward the request altered (a tampering relay): `request` may change its headers in place and returns its body. */
  | { kind: 'tamper'; request: (body: Buffer, headers: IncomingHttpHeaders) => Buffer }
  /** A hostile or broken middlebox: answer `status` with an HTML page that echoes every request header (credentials included). */
  | { kind: 'echo'; status: number }
  /** The request reaches the server; the client's connection dies before any answer (a lost answer). */
  | { kind: 'swallow' }
  /** The client's connection dies before the request leaves (nothing reaches the server). WebSocket upgrades too. */
  | { kind: 'drop' }
  /** The request reaches the server and is never answered; the connection stays open. */
  | { kind: 'mute' };

export type Fault = FaultLimits & FaultKind;

/** Which requests a fault applies to: a path prefix ('' = every path), or a test of method and path. */
export type RequestMatch = string | ((method: string, path: string) => boolean);

export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  /** What the client got: the status, or null (no answer: dropped, swallowed before the server answered, muted). */
  status: number | null;
  fault: Fault['kind'] | null;
  upgrade: boolean;
  /** The request's headers as the client sent them. */
  headers: IncomingHttpHeaders;
  /** The server's answer's `content-encoding`, once it has answered. */
  encoding?: string;
  /** Bytes of the server's answer body passed on to the client, as on the wire (compressed when it was). */
  bytes: number;
}

interface Rule {
  matches: (method: string, path: string) => boolean;
  fault: Fault;
}

const MAINTENANCE_BODY = JSON.stringify({
  error: 'maintenance',
  message: 'System is under maintenance. Please try again later.',
});

export class FaultProxy {
  private server: Server | null = null;
  /** Its own sockets to the server, so that close() leaves none behind. */
  private readonly agent = new Agent({ keepAlive: true });
  private rules: Rule[] = [];
  private down = false;
  /** While set, requests wait here (in order) instead of going on. */
  private held: (() => void)[] | null = null;
  private readonly sockets = new Set<Socket | Duplex>();
  /** Timers of held answers and throttled ones: cleared at close. */
  private readonly pending = new Set<NodeJS.Timeout>();
  private readonly tunnels = new Set<{ client: Duplex; upstream: Socket; fromServer: Transform; halfOpen: boolean }>();
  /** Tests of the server's text frames to lose (dropFeedFrames). */
  private frameDrops: ((text: string) => boolean)[] = [];
  /** Every request seen, in order, whatever became of it. */
  readonly requests: SeenRequest[] = [];
  /** Every `"externalId":"…"` (a buy's order id) clients sent, in order. */
  readonly externalIds: string[] = [];
  /** Chunks clients sent through WebSocket tunnels (their frames, pings included), half-open ones too. */
  tunnelChunks = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  static forBaseUrl(baseUrl: string): FaultProxy {
    const url = new URL(baseUrl);
    return new FaultProxy({ host: url.hostname, port: Number(url.port) });
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => this.onRequest(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head));
    server.on('connection', (socket) => {
      if (this.down) socket.destroy();
      else this.track(socket);
    });
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

  /** Adds a fault for the requests `where` matches (the first live fault that matches applies). Returns its removal. */
  inject(where: RequestMatch, fault: Fault): () => void {
    const matches = typeof where === 'string' ? (_method: string, path: string) => path.startsWith(where) : where;
    const rule = { matches, fault };
    this.rules.push(rule);
    return () => {
      this.rules = this.rules.filter((r) => r !== rule);
    };
  }

  clear(): void {
    this.rules = [];
  }

  /** Requests seen whose path starts with `prefix`, optionally only from `sinceMs` to `untilMs`. */
  count(prefix = '', sinceMs = 0, untilMs = Infinity): number {
    return this.requests.filter((r) => r.path.startsWith(prefix) && r.at >= sinceMs && r.at < untilMs).length;
  }

  /** `METHOD path` of every request seen, in order: `GET /Trades/History?isActive=true`. */
  lines(): string[] {
    return this.requests.map((r) => `${r.method} ${r.path}`);
  }

  /** Drops every open connection (REST keep-alive and WebSockets): a network blip; new connections pass. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  /** The network is gone: every connection dropped, new ones refused until `restore()`. */
  cut(): void {
    this.down = true;
    this.dropConnections();
  }

  restore(): void {
    this.down = false;
  }

  /**
   * Requests reach the proxy (and are counted) but not the server until `releaseRequests()`: the client's sockets
   * stay busy, as behind a slow link or a server that takes seconds to read. WebSocket upgrades still pass.
   */
  holdRequests(): void {
    this.held ??= [];
  }

  releaseRequests(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const send of held) send();
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
      tunnel.fromServer.unpipe(tunnel.client);
      tunnel.client.on('data', () => {});
      tunnel.fromServer.on('data', () => {});
      tunnel.client.resume();
      tunnel.fromServer.resume();
      count++;
    }
    return count;
  }

  /**
   * The server's text frames that `match` accepts are lost on their way to the client, on every WebSocket (open now
   * or later); every other frame passes as it was sent. Returns its removal.
   */
  dropFeedFrames(match: (text: string) => boolean): () => void {
    this.frameDrops.push(match);
    return () => {
      this.frameDrops = this.frameDrops.filter((drop) => drop !== match);
    };
  }

  async close(): Promise<void> {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
    this.held = null;
    this.dropConnections();
    this.agent.destroy();
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

  /** The fault for a request, if any; spent and expired ones are dropped. An upgrade meets only maintenance and drop. */
  private take(method: string, path: string, upgrade: boolean): Fault | null {
    const now = Date.now();
    this.rules = this.rules.filter(({ fault }) => (fault.times ?? 1) > 0 && (fault.untilMs ?? Infinity) > now);
    const fault = this.rules.find((rule) => rule.matches(method, path))?.fault;
    if (!fault || (upgrade && fault.kind !== 'maintenance' && fault.kind !== 'drop')) return null;
    if (fault.times !== undefined) fault.times--;
    return fault;
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      run();
    }, ms);
    this.pending.add(timer);
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const seen: SeenRequest = {
      at: Date.now(),
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      status: null,
      fault: null,
      upgrade: false,
      headers: req.headers,
      bytes: 0,
    };
    this.requests.push(seen);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      for (const match of body.toString('latin1').matchAll(/"externalId":"([^"]*)"/g))
        this.externalIds.push(match[1] as string);
      const go = () => this.handle(req, res, seen, body);
      if (this.held) this.held.push(go);
      else go();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse, seen: SeenRequest, body: Buffer): void {
    if (res.destroyed) return;
    const fault = this.take(seen.method, seen.path, false);
    seen.fault = fault?.kind ?? null;
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'rate-limit' || fault?.kind === 'maintenance') {
      seen.status = fault.kind === 'rate-limit' ? 429 : 503;
      const answer =
        fault.kind === 'rate-limit' ? { error: 'rate_limited', message: 'Rate limit exceeded' } : MAINTENANCE_BODY;
      this.answer(res, seen.status, answer, { 'retry-after': String(fault.retryAfterSeconds) });
      return;
    }
    if (fault?.kind === 'echo') {
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
    let sent = body;
    if (fault?.kind === 'tamper') {
      sent = fault.request(body, headers);
      headers['content-length'] = String(sent.length);
    }
    const upstream = httpRequest(
      {
        host: this.target.host,
        port: this.target.port,
        method: seen.method,
        path: seen.path,
        headers,
        agent: this.agent,
      },
      (answer) => {
        if (fault?.kind === 'swallow') {
          answer.resume();
          req.socket.destroy();
          return;
        }
        if (fault?.kind === 'mute') {
          answer.resume();
          return;
        }
        seen.status = answer.statusCode ?? 0;
        seen.encoding = answer.headers['content-encoding'];
        if (fault?.kind === 'throttle') {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          this.throttle(answer, res, fault.bytesPerSecond, seen);
          return;
        }
        if (fault?.kind !== 'delay' && fault?.kind !== 'hold' && fault?.kind !== 'schema') {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.on('data', (chunk: Buffer) => (seen.bytes += chunk.length));
          answer.pipe(res);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let out: Buffer = Buffer.concat(chunks);
          const outHeaders = { ...answer.headers };
          const status = answer.statusCode ?? 502;
          if (fault.kind === 'schema' && status >= 200 && status < 300) {
            out = Buffer.from(fault.body(out.toString('utf8')));
            delete outHeaders['content-encoding'];
            outHeaders['content-type'] = 'application/json';
          }
          // Sent whole: a streamed (chunked) answer gets its length instead.
          delete outHeaders['transfer-encoding'];
          outHeaders['content-length'] = String(out.length);
          const send = () => {
            if (res.destroyed || res.writableEnded) return;
            seen.bytes += out.length;
            res.writeHead(status, outHeaders);
            res.end(out);
          };
          if (fault.kind === 'delay') this.later(fault.delayMs, send);
          else if (fault.kind === 'hold') void fault.release.then(send, send);
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
    upstream.end(sent);
  }

  /** Sends `answer` on at `bytesPerSecond`, in twentieths of a second; what is still queued dies with the server. */
  private throttle(answer: IncomingMessage, res: ServerResponse, bytesPerSecond: number, seen: SeenRequest): void {
    const queue: Buffer[] = [];
    let queued = 0;
    let ended = false;
    const stop = () => {
      clearInterval(pump);
      this.pending.delete(pump);
      queue.length = 0;
    };
    const pump = setInterval(() => {
      if (res.destroyed) return stop();
      let budget = Math.ceil(bytesPerSecond / 20);
      while (queue.length > 0 && budget > 0) {
        const chunk = queue[0] as Buffer;
        const part = chunk.length <= budget ? chunk : chunk.subarray(0, budget);
        if (part.length === chunk.length) queue.shift();
        else queue[0] = chunk.subarray(part.length);
        queued -= part.length;
        budget -= part.length;
        seen.bytes += part.length;
        res.write(part);
      }
      if (queued < 256 * 1024 && answer.isPaused()) answer.resume();
      if (ended && queue.length === 0) {
        stop();
        res.end();
      }
    }, 50);
    this.pending.add(pump);
    answer.on('data', (chunk: Buffer) => {
      queue.push(chunk);
      queued += chunk.length;
      if (queued > 1024 * 1024) answer.pause();
    });
    answer.on('end', () => (ended = true));
    // A dead server: what was not delivered yet is lost with it, as on a network.
    answer.on('close', () => {
      if (answer.complete) return;
      stop();
      res.destroy();
    });
  }

  private answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  }

  /** WebSocket upgrades pass through as raw TCP (a maintenance fault refuses them, as the sandbox would; a drop cuts them). */
  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = req.url ?? '/';
    const seen: SeenRequest = {
      at: Date.now(),
      method: req.method ?? 'GET',
      path,
      status: null,
      fault: null,
      upgrade: true,
      headers: req.headers,
      bytes: 0,
    };
    this.requests.push(seen);
    this.track(socket);
    const fault = this.take(seen.method, path, true);
    seen.fault = fault?.kind ?? null;
    if (fault?.kind === 'drop') {
      socket.destroy();
      return;
    }
    if (fault?.kind === 'maintenance') {
      seen.status = 503;
      socket.end(
        `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: ${fault.retryAfterSeconds}\r\n` +
          `Connection: close\r\nContent-Length: ${Buffer.byteLength(MAINTENANCE_BODY)}\r\n\r\n${MAINTENANCE_BODY}`,
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
      socket.on('data', () => this.tunnelChunks++);
      socket.pipe(upstream);
      upstream.pipe(fromServer).pipe(socket);
    });
    const fromServer = new ServerFrames((text) => this.frameDrops.some((drop) => drop(text)));
    const tunnel = { client: socket, upstream, fromServer, halfOpen: false };
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

/** A WebSocket frame's header length and whole length, once `buffer` holds all of it (RFC 6455, section 5.2). */
function frameAt(buffer: Buffer): { headerLength: number; length: number } | null {
  if (buffer.length < 2) return null;
  let payload = (buffer[1] as number) & 0x7f;
  let headerLength = 2;
  if (payload === 126) {
    if (buffer.length < 4) return null;
    payload = buffer.readUInt16BE(2);
    headerLength = 4;
  } else if (payload === 127) {
    if (buffer.length < 10) return null;
    payload = Number(buffer.readBigUInt64BE(2));
    headerLength = 10;
  }
  if ((buffer[1] as number) & 0x80) headerLength += 4;
  const length = headerLength + payload;
  return buffer.length < length ? null : { headerLength, length };
}

/**
 * The server's side of a tunnel: its answer to the upgrade as it came, then (after a 101) whole frames, each passed
 * on unless it is a complete unmasked text frame that `lose` accepts. Any other answer passes untouched.
 */
class ServerFrames extends Transform {
  private pending: Buffer = Buffer.alloc(0);
  private state: 'head' | 'frames' | 'raw' = 'head';

  constructor(private readonly lose: (text: string) => boolean) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.state === 'raw') {
      done(null, chunk);
      return;
    }
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    if (this.state === 'head') {
      const end = this.pending.indexOf('\r\n\r\n');
      if (end < 0) {
        done();
        return;
      }
      const head = this.pending.subarray(0, end + 4);
      this.push(head);
      this.pending = this.pending.subarray(end + 4);
      this.state = head.toString('latin1').startsWith('HTTP/1.1 101') ? 'frames' : 'raw';
      if (this.state === 'raw') {
        if (this.pending.length > 0) this.push(this.pending);
        this.pending = Buffer.alloc(0);
        done();
        return;
      }
    }
    for (let frame = frameAt(this.pending); frame; frame = frameAt(this.pending)) {
      const bytes = this.pending.subarray(0, frame.length);
      this.pending = this.pending.subarray(frame.length);
      const finalText = (bytes[0] as number) === 0x81 && ((bytes[1] as number) & 0x80) === 0;
      if (finalText && this.lose(bytes.subarray(frame.headerLength).toString('utf8'))) continue;
      this.push(bytes);
    }
    done();
  }
}
