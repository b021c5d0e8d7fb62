import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { PriceChange, TradeUpdatedWebhook } from '../../shared/api';
import { FEED_CLOSE_CODES, WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT } from '../../shared/api';
import { SANDBOX_CHOICES } from '../config';
import { IP_NOT_ALLOWED_MESSAGE, MAINTENANCE_MESSAGE, UNAUTHORIZED_MESSAGE } from '../domain/apiError';
import type { SandboxCore } from '../domain/core';
import type { ItemRecord, Reveal } from '../domain/itemRecord';
import type { Merchant } from '../domain/merchants';
import { IpAllowlist } from '../http/ipAllowlist';
import type { PendingFrame } from './frames';
import {
  FrameQueue,
  chunked,
  connectedFrame,
  itemRemovedFrame,
  itemUpsertedFrame,
  priceChangedFrame,
  revealKey,
  tradeUpdatedFrame,
} from './frames';
import { refuseUpgrade, singleHeader } from './upgrade';

export const FEED_PATH = '/ws';
/** Largest message a client may send (the feed reads nothing from clients; ws closes with 1009 above it). */
export const FEED_MAX_PAYLOAD_BYTES = 64 * 1024;
/** A socket with more unsent data than this is closed with 1013 `client too slow`. */
export const FEED_MAX_BUFFERED_BYTES = 32 * 1024 * 1024;
/** `close()` waits this long for clients to answer the 1001 close frame, then cuts them off. */
const CLOSE_GRACE_MS = 1000;
const MAINTENANCE_RETRY_AFTER_SECONDS = 60;

/** Close codes besides those of the shared contract (FEED_CLOSE_CODES). */
export const FEED_STANDARD_CLOSES = {
  goingAway: { code: 1001, reason: 'going away' },
  tooSlow: { code: 1013, reason: 'client too slow' },
} as const;
export const FEED_CLOSE_REASONS = {
  connectionLimit: `connection limit: ${WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT} per merchant`,
  maintenance: 'maintenance',
  credentialsChanged: 'credentials changed',
} as const;

export interface FeedServerOptions {
  /** Protocol ping period; a connection that has not answered the previous ping by the next one is dropped. */
  pingIntervalMs?: number;
  /** Unsent bytes above which a connection is closed as too slow. */
  maxBufferedBytes?: number;
}

interface CorkableSocket {
  cork(): void;
  uncork(): void;
}

interface MerchantFeeds {
  readonly merchantId: string;
  /** The key the connections were opened with; another key in the database closes them (4001). */
  readonly apiKey: string;
  reveal: Reveal;
  revealKey: number;
  readonly connections: Set<Connection>;
}

interface Connection {
  readonly ws: WebSocket;
  readonly feeds: MerchantFeeds;
  /** Answered (pong) since the last ping. */
  alive: boolean;
}

const SEND_OPTIONS = { binary: false } as const;
const noop = () => {};

/**
 * The WebSocket feed on `{ws_url}` = `/ws` of the REST port: authenticates the
 * upgrade like a REST request, then pushes trade and catalog events as JSON frames.
 * Events of one event-loop turn are batched (see FrameQueue) and each frame is
 * serialized once per distinct reveal setting, then written to every socket.
 */
export class FeedServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: FEED_MAX_PAYLOAD_BYTES });
  private readonly feeds = new Map<string, MerchantFeeds>();
  private readonly allowlist = new IpAllowlist();
  private readonly queue = new FrameQueue();
  private readonly pingIntervalMs: number;
  private readonly maxBufferedBytes: number;
  private readonly pingTimer: NodeJS.Timeout;
  private readonly unsubscribeMerchants: () => void;
  private flushHandle: NodeJS.Immediate | null = null;
  private closing: Promise<void> | null = null;
  private openCount = 0;

  constructor(
    private readonly core: SandboxCore,
    private readonly server: Server,
    options: FeedServerOptions = {},
  ) {
    this.pingIntervalMs = options.pingIntervalMs ?? SANDBOX_CHOICES.feedPingIntervalMs;
    this.maxBufferedBytes = options.maxBufferedBytes ?? FEED_MAX_BUFFERED_BYTES;
    server.on('upgrade', this.onUpgrade);
    core.events.on('tradeUpdated', this.onTradeUpdated);
    core.events.on('itemsRemoved', this.onItemsRemoved);
    core.events.on('itemsUpserted', this.onItemsUpserted);
    core.events.on('pricesChanged', this.onPricesChanged);
    this.unsubscribeMerchants = core.merchants.onChange(this.onMerchantChange);
    this.pingTimer = setInterval(this.tick, this.pingIntervalMs);
    this.pingTimer.unref();
  }

  /** Open feed connections of a merchant (those refused by the limit or being closed do not count). */
  connectionCount(merchantId: string): number {
    return this.feeds.get(merchantId)?.connections.size ?? 0;
  }

  /** All open feed connections. */
  get totalConnections(): number {
    return this.openCount;
  }

  /** Stops accepting, sends what is queued, closes every connection with 1001 and resolves once they are gone. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  // ---- Upgrade

  private readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Errors of a socket being refused must not crash the server; ws installs its own once it takes over.
    socket.on('error', noop);
    this.admit(request, socket, head).catch(() => socket.destroy());
  };

  /** Same order as the REST guard: maintenance (503), credentials (401), IP allowlist (403); then the connection limit. */
  private async admit(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = (request.url ?? '').split('?')[0];
    if (path !== FEED_PATH) {
      refuseUpgrade(socket, 404, { error: 'not_found', message: `No endpoint ${request.method ?? 'GET'} ${path}` });
      return;
    }
    if (this.closing) {
      refuseUpgrade(socket, 503, { error: 'unavailable', message: 'The feed is shutting down' });
      return;
    }
    if (this.core.maintenance) {
      refuseUpgrade(
        socket,
        503,
        { error: 'maintenance', message: MAINTENANCE_MESSAGE },
        { 'Retry-After': String(MAINTENANCE_RETRY_AFTER_SECONDS) },
      );
      return;
    }
    const merchant = this.core.merchants.authenticate(
      singleHeader(request.headers, 'x-merchant-id'),
      singleHeader(request.headers, 'x-api-key'),
    );
    if (!merchant) {
      refuseUpgrade(socket, 401, { error: 'unauthorized', message: UNAUTHORIZED_MESSAGE });
      return;
    }
    if (
      merchant.ipAllowlist.length > 0 &&
      !(await this.allowlist.allows(merchant.ipAllowlist, request.socket.remoteAddress ?? ''))
    ) {
      refuseUpgrade(socket, 403, { error: 'ip_not_allowed', message: IP_NOT_ALLOWED_MESSAGE });
      return;
    }
    if (this.closing || socket.destroyed) {
      socket.destroy();
      return;
    }
    socket.off('error', noop);
    this.wss.handleUpgrade(request, socket, head, (ws) => this.accept(ws, merchant));
  }

  private accept(ws: WebSocket, merchant: Merchant): void {
    ws.on('error', noop);
    if (this.closing) {
      ws.close(FEED_STANDARD_CLOSES.goingAway.code, FEED_STANDARD_CLOSES.goingAway.reason);
      return;
    }
    let feeds = this.feeds.get(merchant.merchantId);
    if (feeds && feeds.apiKey !== merchant.apiKey) {
      // The key changed between the other connections' upgrade and this one: those are stale.
      this.closeMerchant(feeds, FEED_CLOSE_CODES.credentialsChanged, FEED_CLOSE_REASONS.credentialsChanged);
      feeds = undefined;
    }
    if (feeds && feeds.connections.size >= WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT) {
      // Accepted, then closed: a browser cannot read the status of a refused upgrade, but it can read a close code.
      ws.close(FEED_CLOSE_CODES.connectionLimit, FEED_CLOSE_REASONS.connectionLimit);
      return;
    }
    if (!feeds) {
      feeds = {
        merchantId: merchant.merchantId,
        apiKey: merchant.apiKey,
        reveal: { ...merchant.reveal },
        revealKey: revealKey(merchant.reveal),
        connections: new Set(),
      };
      this.feeds.set(merchant.merchantId, feeds);
    }
    const connection: Connection = { ws, feeds, alive: true };
    feeds.connections.add(connection);
    this.openCount++;
    ws.on('pong', () => {
      connection.alive = true;
    });
    ws.on('close', () => this.detach(connection));
    // Sent before any event: events of this turn are flushed later, in a setImmediate.
    ws.send(connectedFrame(merchant.merchantId));
  }

  /** Stops delivering to a connection; idempotent. */
  private detach(connection: Connection): void {
    const { feeds } = connection;
    if (!feeds.connections.delete(connection)) return;
    this.openCount--;
    if (feeds.connections.size === 0 && this.feeds.get(feeds.merchantId) === feeds) this.feeds.delete(feeds.merchantId);
  }

  /** Server-side close: the connection stops counting (and receiving) at once; ws cuts it off if the peer never answers. */
  private closeConnection(connection: Connection, code: number, reason: string): void {
    this.detach(connection);
    if (connection.ws.readyState === WebSocket.OPEN || connection.ws.readyState === WebSocket.CONNECTING) {
      connection.ws.close(code, reason);
    }
  }

  private closeMerchant(feeds: MerchantFeeds, code: number, reason: string): void {
    for (const connection of [...feeds.connections]) this.closeConnection(connection, code, reason);
    if (this.feeds.get(feeds.merchantId) === feeds) this.feeds.delete(feeds.merchantId);
  }

  private closeAll(code: number, reason: string): void {
    for (const feeds of [...this.feeds.values()]) this.closeMerchant(feeds, code, reason);
  }

  // ---- Merchant changes and keep-alive

  private readonly onMerchantChange = (merchant: Merchant, change: 'created' | 'updated'): void => {
    if (change !== 'updated') return;
    const feeds = this.feeds.get(merchant.merchantId);
    if (!feeds) return;
    if (merchant.apiKey !== feeds.apiKey) {
      this.closeMerchant(feeds, FEED_CLOSE_CODES.credentialsChanged, FEED_CLOSE_REASONS.credentialsChanged);
      return;
    }
    feeds.reveal = { ...merchant.reveal };
    feeds.revealKey = revealKey(merchant.reveal);
  };

  private readonly tick = (): void => {
    try {
      if (this.core.maintenance) {
        this.closeAll(FEED_CLOSE_CODES.maintenance, FEED_CLOSE_REASONS.maintenance);
        return;
      }
      // Merchants deleted (admin reset) or re-keyed without an update event lose their feeds here.
      for (const feeds of [...this.feeds.values()]) {
        if (this.core.merchants.find(feeds.merchantId)?.apiKey !== feeds.apiKey) {
          this.closeMerchant(feeds, FEED_CLOSE_CODES.credentialsChanged, FEED_CLOSE_REASONS.credentialsChanged);
        }
      }
    } catch {
      // The database is closing; the feed closes right after.
      return;
    }
    for (const feeds of this.feeds.values()) {
      for (const connection of [...feeds.connections]) {
        if (!connection.alive) {
          // No pong since the previous ping: the peer is gone or stuck.
          this.detach(connection);
          connection.ws.terminate();
          continue;
        }
        connection.alive = false;
        connection.ws.ping();
      }
    }
  };

  // ---- Events

  private readonly onTradeUpdated = (merchantId: string, update: TradeUpdatedWebhook): void => {
    if (!this.feeds.has(merchantId)) return;
    this.queue.addTrade(merchantId, update);
    this.scheduleFlush();
  };

  private readonly onItemsRemoved = (itemIds: number[]): void => {
    if (this.openCount === 0) return;
    this.queue.addItems('item_removed', itemIds);
    this.scheduleFlush();
  };

  private readonly onItemsUpserted = (records: ItemRecord[]): void => {
    if (this.openCount === 0) return;
    this.queue.addItems('item_upserted', records);
    this.scheduleFlush();
  };

  private readonly onPricesChanged = (changes: PriceChange[]): void => {
    if (this.openCount === 0) return;
    // Copied: the change objects are the caller's, who may reuse them before the flush.
    this.queue.addItems(
      'price_changed',
      changes.map((change) => ({ itemId: change.itemId, price: change.price })),
    );
    this.scheduleFlush();
  };

  private scheduleFlush(): void {
    this.flushHandle ??= setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.flushHandle = null;
    // A turn's frames leave each socket in one write: corked while they are sent (ws corks each frame's
    // header and payload the same way), uncorked after. One writev a frame cost ~20 µs of this thread each.
    const corked = this.corkOpenSockets();
    try {
      for (const frame of this.queue.take()) this.deliver(frame);
    } finally {
      for (const socket of corked) socket.uncork();
    }
  };

  private corkOpenSockets(): CorkableSocket[] {
    const sockets: CorkableSocket[] = [];
    for (const feeds of this.feeds.values()) {
      for (const { ws } of feeds.connections) {
        // ws keeps its socket in a private field; without one (another ws version) frames are written one by one.
        const socket = (ws as unknown as { _socket?: Partial<CorkableSocket> })._socket;
        if (
          ws.readyState !== WebSocket.OPEN ||
          typeof socket?.cork !== 'function' ||
          typeof socket.uncork !== 'function'
        )
          continue;
        socket.cork();
        sockets.push(socket as CorkableSocket);
      }
    }
    return sockets;
  }

  private deliver(frame: PendingFrame): void {
    switch (frame.type) {
      case 'trade_updated': {
        const feeds = this.feeds.get(frame.merchantId);
        if (feeds) this.sendTo(feeds, Buffer.from(tradeUpdatedFrame(frame.update)));
        return;
      }
      case 'item_removed':
        for (const ids of chunked(frame.parts, frame.count)) this.broadcast(Buffer.from(itemRemovedFrame(ids)));
        return;
      case 'price_changed':
        for (const changes of chunked(frame.parts, frame.count))
          this.broadcast(Buffer.from(priceChangedFrame(changes)));
        return;
      case 'item_upserted':
        for (const records of chunked(frame.parts, frame.count)) {
          // One serialization per reveal combination in use, not per connection.
          const variants = new Map<number, Buffer>();
          for (const feeds of [...this.feeds.values()]) {
            let data = variants.get(feeds.revealKey);
            if (!data) {
              data = Buffer.from(itemUpsertedFrame(records, feeds.reveal));
              variants.set(feeds.revealKey, data);
            }
            this.sendTo(feeds, data);
          }
        }
        return;
    }
  }

  private broadcast(data: Buffer): void {
    for (const feeds of [...this.feeds.values()]) this.sendTo(feeds, data);
  }

  private sendTo(feeds: MerchantFeeds, data: Buffer): void {
    for (const connection of [...feeds.connections]) {
      const { ws } = connection;
      if (ws.readyState !== WebSocket.OPEN) continue;
      ws.send(data, SEND_OPTIONS);
      if (ws.bufferedAmount > this.maxBufferedBytes) {
        // The close frame queues behind the unsent data; ws destroys the socket if the close handshake never ends.
        this.closeConnection(connection, FEED_STANDARD_CLOSES.tooSlow.code, FEED_STANDARD_CLOSES.tooSlow.reason);
      }
    }
  }

  // ---- Shutdown

  private async shutdown(): Promise<void> {
    this.server.off('upgrade', this.onUpgrade);
    this.core.events.off('tradeUpdated', this.onTradeUpdated);
    this.core.events.off('itemsRemoved', this.onItemsRemoved);
    this.core.events.off('itemsUpserted', this.onItemsUpserted);
    this.core.events.off('pricesChanged', this.onPricesChanged);
    this.unsubscribeMerchants();
    clearInterval(this.pingTimer);
    if (this.flushHandle) {
      clearImmediate(this.flushHandle);
      // What already happened still reaches the clients, before the close frame.
      this.flush();
    }
    this.closeAll(FEED_STANDARD_CLOSES.goingAway.code, FEED_STANDARD_CLOSES.goingAway.reason);
    // wss.clients also holds sockets refused by the limit and those still closing.
    const sockets = [...this.wss.clients];
    await Promise.all(
      sockets.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === WebSocket.CLOSED) {
              resolve();
              return;
            }
            const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
            ws.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            if (ws.readyState === WebSocket.OPEN) {
              ws.close(FEED_STANDARD_CLOSES.goingAway.code, FEED_STANDARD_CLOSES.goingAway.reason);
            }
          }),
      ),
    );
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}
