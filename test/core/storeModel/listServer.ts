/**
 * The on-sale list a catalog sync downloads, from a loopback HTTP server: whole, cut short (the connection
 * closes mid-body: the sync must fail and change nothing), or held mid-body until the test kills the store.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Item } from '../../../src/shared/api';

/** whole; cut (closed mid-body); held (half, then nothing); paused (half, then the rest once released). */
export type ListDelivery = 'whole' | 'cut' | 'held' | 'paused';

export class ListServer {
  private body = Buffer.alloc(0);
  private delivery: ListDelivery = 'whole';
  private onHeld: (() => void) | null = null;
  private paused: (() => void) | null = null;
  private readonly open = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ListServer> {
    let self: ListServer | null = null;
    const server = createServer((_request, response) => self?.answer(response));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    self = new ListServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/Items/GetAllItemsOnSale`);
    return self;
  }

  /** The next download's list; `held` and `paused` resolve `whenHeld` once half the body is out. */
  serve(items: Item[], lastUpdate: string, delivery: ListDelivery): { whenHeld: Promise<void> } {
    const totalValue = items.reduce((sum, item) => sum + item.price, 0);
    this.body = Buffer.from(JSON.stringify({ totalItems: items.length, totalValue, items, lastUpdate }));
    this.delivery = delivery;
    return { whenHeld: new Promise((done) => (this.onHeld = done)) };
  }

  private answer(response: ServerResponse): void {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(this.body.length) });
    if (this.delivery === 'whole') {
      response.end(this.body);
      return;
    }
    const half = this.body.subarray(0, Math.max(1, this.body.length >> 1));
    response.write(half, () => {
      if (this.delivery === 'cut') response.destroy();
      else if (this.delivery === 'paused') {
        this.open.add(response);
        this.paused = () => {
          this.open.delete(response);
          response.end(this.body.subarray(half.length));
        };
        this.onHeld?.();
      } else {
        this.open.add(response);
        this.onHeld?.();
      }
    });
  }

  /** The rest of a paused body. */
  release(): void {
    this.paused?.();
    this.paused = null;
  }

  async close(): Promise<void> {
    for (const response of this.open) response.destroy();
    await new Promise((done) => this.server.close(done));
  }
}
