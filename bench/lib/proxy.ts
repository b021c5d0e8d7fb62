import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of the sandbox's HTTP port that timestamps request
 * lines as they arrive on the wire (performance.now() of this process), in the
 * manner of test/support/faultProxy.ts. `onRequest` sees `POST /Items/Buy` the
 * moment its first bytes reach the proxy.
 */
export class TimestampProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly targetPort: number,
    private readonly onRequest: (line: string, at: number) => void,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private accept(client: Socket): void {
    client.setNoDelay(true);
    const upstream = connect(this.targetPort, '127.0.0.1');
    upstream.setNoDelay(true);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      const at = performance.now();
      const text = chunk.toString('latin1', 0, Math.min(chunk.length, 4096));
      for (const match of text.matchAll(/^(GET|POST|PUT|PATCH|DELETE) (\S+) HTTP\/1\.1$/gm))
        this.onRequest(`${match[1]} ${match[2]}`, at);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  }
}
