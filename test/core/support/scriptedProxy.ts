import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';

/** What happens to one HTTP request: forwarded, forwarded with its answer lost, or its connection dropped unsent. */
export type Verdict = 'pass' | 'swallow' | 'drop';

/**
 * A loopback TCP proxy in front of the sandbox (REST and the feed share its port) whose test decides, request
 * by request, what the network does: `swallow` lets the request reach the server and loses its answer (the
 * client sees the connection die), `drop` kills the connection before the request leaves (a look-up that
 * fails). Counts request lines as the server would see them.
 */
export class ScriptedProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  /** Decides each request; everything passes by default. */
  rule: (method: string, path: string) => Verdict = () => 'pass';
  /** How long to hold each request's answer (ms); 0 by default. */
  answerDelay: (method: string, path: string) => number = () => 0;
  /** `METHOD path` of every request seen, whatever its verdict, in order. */
  readonly requests: string[] = [];
  port = 0;

  constructor(private readonly targetPort: number) {}

  static forBaseUrl(baseUrl: string): ScriptedProxy {
    return new ScriptedProxy(Number(new URL(baseUrl).port));
  }

  async start(): Promise<void> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
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

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    const upstream = connect(this.targetPort, '127.0.0.1');
    this.sockets.add(client);
    this.sockets.add(upstream);
    let swallowing = false;
    let delayMs = 0;
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      for (const match of chunk.toString('latin1').matchAll(/^(GET|POST|PUT|PATCH|DELETE) (\S+) HTTP\/1\.1$/gm)) {
        const [, method = '', path = ''] = match;
        this.requests.push(`${method} ${path}`);
        const verdict = this.rule(method, path);
        if (verdict === 'drop') {
          close();
          return;
        }
        if (verdict === 'swallow') swallowing = true;
        delayMs = this.answerDelay(method, path);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (swallowing) {
        close();
        return;
      }
      // Equal delays keep the chunks in order.
      if (delayMs > 0) setTimeout(() => client.write(chunk), delayMs);
      else client.write(chunk);
    });
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  }
}
