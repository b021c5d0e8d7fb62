import { type AddressInfo, type Server, type Socket, createServer, connect } from 'node:net';

/**
 * A loopback TCP proxy in front of the sandbox (HTTP and WebSocket share its
 * port) that tests use to see and break the network: it counts HTTP requests
 * by path as the server would receive them, can cut every connection (as a
 * network outage would), and can swallow the response to one request (the
 * request reaches the server, its answer never reaches the client), to every
 * request of some paths while set, or mute them (the answer never comes, the
 * connection stays open: the client waits as for a slow server).
 */
export class FaultProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private down = false;
  private dropNext: string | null = null;
  private swallowing: readonly string[] = [];
  private muting: readonly string[] = [];
  /** While set, what clients send waits here (in order) instead of going on to the server. */
  private held: (() => void)[] | null = null;
  /** Request lines seen, in order: `GET /Trades/History?isActive=true`. */
  readonly requests: string[] = [];
  /** Every `"externalId":"…"` seen in what clients sent (a buy's order id), in order. */
  readonly externalIds: string[] = [];
  port = 0;

  constructor(private readonly targetPort: number) {}

  async start(port = 0): Promise<number> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}/ws`;
  }

  count(pathPrefix: string): number {
    return this.requests.filter((line) => line.split(' ')[1]?.startsWith(pathPrefix)).length;
  }

  /** Drops every connection and refuses new ones until `restore()`. */
  cut(): void {
    this.down = true;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  restore(): void {
    this.down = false;
  }

  /**
   * Requests reach the proxy (and are counted) but not the server until `releaseRequests()`: the client's
   * sockets stay busy, as behind a slow link or a server that takes seconds to read.
   */
  holdRequests(): void {
    this.held ??= [];
  }

  releaseRequests(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const send of held) send();
  }

  /** The next request whose path starts with `pathPrefix` reaches the server, but its client connection dies before any answer. */
  swallowNextResponse(pathPrefix: string): void {
    this.dropNext = pathPrefix;
  }

  /**
   * Until called again (with no prefix: never), every request whose path starts with one of `prefixes` reaches
   * the server, and its client connection dies before any answer: a lost answer each time.
   */
  swallowResponses(...prefixes: string[]): void {
    this.swallowing = prefixes;
  }

  /** Until called again, requests whose path starts with one of `prefixes` reach the server and are never answered; their connection stays open. */
  muteResponses(...prefixes: string[]): void {
    this.muting = prefixes;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    if (this.down) {
      client.destroy();
      return;
    }
    const upstream = connect(this.targetPort, '127.0.0.1');
    this.sockets.add(client);
    this.sockets.add(upstream);
    let swallowing = false;
    let muted = false;
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      for (const match of text.matchAll(/^(GET|POST|PUT|PATCH|DELETE) (\S+) HTTP\/1\.1$/gm)) {
        const line = `${match[1]} ${match[2]}`;
        this.requests.push(line);
        const path = match[2] as string;
        if (this.dropNext && path.startsWith(this.dropNext)) {
          this.dropNext = null;
          swallowing = true;
        }
        if (this.swallowing.some((prefix) => path.startsWith(prefix))) swallowing = true;
        if (this.muting.some((prefix) => path.startsWith(prefix))) muted = true;
      }
      for (const match of text.matchAll(/"externalId":"([^"]*)"/g)) this.externalIds.push(match[1] as string);
      if (this.held) this.held.push(() => upstream.write(chunk));
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (swallowing) {
        close();
        return;
      }
      if (!muted) client.write(chunk);
    });
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  }
}
