import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket, WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuyResult, Item, Trade, TradeHistoryPage } from '../../src/shared/api';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { seededRandom } from '../support/random';
import { adminApi, merchantApi, tradeUrlFor, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * A WebSocket server of our own stands in for the marketplace feed in front of
 * the ENGINE (its REST calls go to the real sandbox). It speaks the protocol
 * (`connected` first) and replays the trade_updated frames the real sandbox
 * sent for real trades: duplicated, reversed (COMPLETED before SENT), shuffled
 * and interleaved with garbage. The engine must end with the server's trade
 * states and notify each status of a trade at most once.
 */

/** A feed server that replays whatever the test hands it. */
class ReplayFeed {
  readonly server: WebSocketServer;
  readonly sockets = new Set<WebSocket>();
  connections = 0;
  refusedAuth = 0;

  constructor(private readonly merchant: MerchantCredentials) {
    this.server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    this.server.on('connection', (ws, request) => {
      if (
        request.headers['x-api-key'] !== merchant.apiKey ||
        request.headers['x-merchant-id'] !== merchant.merchantId
      ) {
        this.refusedAuth++;
        ws.close(4001, 'credentials changed');
        return;
      }
      this.connections++;
      this.sockets.add(ws);
      ws.on('close', () => this.sockets.delete(ws));
      ws.send(JSON.stringify({ type: 'connected', merchantId: this.merchant.merchantId }));
    });
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/ws`;
  }

  /** Sends every frame, in order, to every connected engine, in one go. */
  send(frames: (string | Buffer)[]): void {
    for (const ws of this.sockets) for (const frame of frames) ws.send(frame, { binary: Buffer.isBuffer(frame) });
  }

  /** Drops every connection without a close frame (the engine reconnects and reconciles). */
  cutAll(): void {
    for (const ws of this.sockets) ws.terminate();
  }

  close(): Promise<void> {
    this.cutAll();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const GARBAGE: (string | Buffer)[] = [
  'not json at all',
  '{"type":"trade_updated"',
  '{"type":"trade_updated"}',
  '{"type":"trade_updated","tradeId":42,"status":"COMPLETED","externalId":null,"offerId":null,"failReason":null,"errorCode":null}',
  '{"type":"trade_updated","tradeId":"00000000-0000-4000-8000-000000000000","status":"TELEPORTED","externalId":null,"offerId":null,"failReason":null,"errorCode":null}',
  '{"type":"mystery","payload":1}',
  '[]',
  'null',
  '"trade_updated"',
  '{"type":"price_changed","items":[{"itemId":"x","price":-1}]}',
  '{"type":"item_removed","itemIds":"all"}',
  `{"type":"trade_updated","padding":"${'x'.repeat(20_000)}"}`,
  Buffer.from([0xde, 0xad, 0xbe, 0xef]),
];

describe('feed faults reach the engine: duplicated, reordered and malformed frames', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let feed: ReplayFeed;
  let dataDir: string;
  let app: EngineHarness;
  let recorder: WebSocket;
  const recorded: string[] = [];

  beforeAll(async () => {
    sb = await startSandbox({ items: 500, seed: 23 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    feed = new ReplayFeed(merchant);
    await new Promise<void>((resolve) => feed.server.once('listening', () => resolve()));
    // The real feed, recorded: the frames we replay are the sandbox's own.
    recorder = new WebSocket(sb.wsUrl, {
      headers: { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId },
    });
    recorder.on('message', (data) => {
      const text = String(data);
      if (text.includes('"type":"trade_updated"')) recorded.push(text);
    });
    await new Promise<void>((resolve, reject) => {
      recorder.once('message', () => resolve());
      recorder.once('error', reject);
    });
    dataDir = mkdtempSync(join(tmpdir(), 'feed-faults-'));
    app = await startEngine(dataDir, {
      baseUrl: sb.baseUrl,
      wsUrl: feed.url,
      merchantId: merchant.merchantId,
      apiKey: merchant.apiKey,
    });
    await waitFor(() => app.session().connection.state === 'connected', 15_000, 'engine connected to the replay feed');
    // The start-up's back-fill too: one still paging would read the trades this test buys over REST before any frame.
    await app.session().startupSettled();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    recorder?.terminate();
    await feed?.close();
    await sb?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let markers = 0;
  /**
   * A marker after everything sent so far: a trade of the engine's own, moved to COMPLETED on the sandbox, its real frames
   * sent last. Frames are applied in order; once the marker is announced, its full record fetched and no request of the
   * engine is left unanswered, the frames before it (and the fetches they started) have been handled.
   */
  async function sendMarker(): Promise<string> {
    const [item] = (await adminApi(sb).post<{ items: Item[] }>('/admin/items', { items: [{ price: 900 + markers }] }))
      .body.items as [Item];
    const outcome = await app.call('buy.byId', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      recipient: { tradeUrl: tradeUrlFor(41_000_000 + markers++) },
    });
    if (!outcome.ok) throw new Error(outcome.failure.message);
    const tradeId = outcome.trade.tradeId;
    await adminApi(sb).transition(tradeId, { status: 'SENT' });
    await adminApi(sb).transition(tradeId, { status: 'COMPLETED' });
    await waitFor(
      () => recorded.some((frame) => frame.includes(tradeId) && frame.includes('"COMPLETED"')),
      10_000,
      'the marker frames recorded',
    );
    feed.send(recorded.filter((frame) => frame.includes(tradeId)));
    const announced = () =>
      app.batches.some((batch) => (batch.notifications ?? []).some((n) => n.id === `trade:${tradeId}:COMPLETED`));
    const limiter = app.session().limiter;
    await waitFor(
      async () =>
        announced() &&
        (await app.call('trades.get', { tradeId }))?.trade.completedAt != null &&
        limiter.queued('default') === 0 &&
        limiter.unanswered('default') === 0,
      10_000,
      'the marker handled',
    );
    return tradeId;
  }

  it('ends with the server trade states and one notification per status, whatever the feed sends', async () => {
    const items = (
      await adminApi(sb).post<{ items: Item[] }>('/admin/items', {
        items: Array.from({ length: 8 }, (_, i) => ({ price: 500 + i })),
      })
    ).body.items;
    expect(items).toHaveLength(8);
    // Half bought through the engine (it holds them PENDING), half straight over REST (unknown to it until a frame names them).
    const tradeIds: string[] = [];
    for (const [index, item] of items.entries()) {
      const tradeUrl = tradeUrlFor(40_000_000 + index);
      if (index % 2 === 0) {
        const outcome = await app.call('buy.byId', {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          recipient: { tradeUrl },
        });
        if (!outcome.ok) throw new Error(outcome.failure.message);
        tradeIds.push(outcome.trade.tradeId);
      } else {
        const answer = await merchantApi(sb, merchant).post<BuyResult>('/Items/Buy', {
          itemId: item.itemId,
          assetId: item.assetId,
          price: item.price,
          tradeUrl,
          externalId: `rest-${index}`,
        });
        expect(answer.status).toBe(200);
        tradeIds.push(answer.body.tradeId);
      }
    }
    // Real lifecycles on the sandbox: every outcome kind, so the frames carry offerIds, error codes and reasons.
    const paths: Record<string, unknown>[][] = [
      [{ status: 'SENT' }, { status: 'COMPLETED' }],
      [{ status: 'SENT' }, { status: 'COMPLETED' }, { status: 'REVERSED' }],
      [{ status: 'SENT' }, { status: 'CANCELLED', errorCode: 504 }],
      [{ status: 'FAILED' }],
      [{ status: 'SENT' }, { status: 'CANCELLED', errorCode: 506 }],
      [{ status: 'SENT' }, { status: 'EXPIRED' }],
      [{ status: 'REJECTED' }],
      [{ status: 'SENT' }, { status: 'COMPLETED' }],
    ];
    for (const [index, tradeId] of tradeIds.entries()) {
      for (const step of paths[index] as Record<string, unknown>[]) await adminApi(sb).transition(tradeId, step);
    }
    const expectedFrames = tradeIds.length + paths.reduce((sum, path) => sum + path.length, 0);
    await waitFor(() => recorded.length >= expectedFrames, 10_000, 'every real trade_updated frame recorded');

    // The replay: per trade reversed, tripled or shuffled, trades interleaved, garbage between every two frames.
    const random = seededRandom(7);
    const byTrade = new Map<string, string[]>(
      tradeIds.map((id) => [id, recorded.filter((frame) => frame.includes(id))]),
    );
    const sequences = tradeIds.map((id, index) => {
      const frames = byTrade.get(id) as string[];
      if (index % 3 === 0) return [...[...frames].reverse(), ...frames];
      if (index % 3 === 1) return frames.flatMap((frame) => [frame, frame, frame]);
      const shuffled = [...frames, ...frames].sort(() => random() - 0.5);
      return shuffled;
    });
    const script: (string | Buffer)[] = [];
    let garbage = 0;
    while (sequences.some((sequence) => sequence.length > 0)) {
      for (const sequence of sequences) {
        const frame = sequence.shift();
        if (frame === undefined) continue;
        script.push(frame, GARBAGE[garbage++ % GARBAGE.length] as string | Buffer);
      }
    }
    // Before the replay the engine knows only its own four buys, all PENDING: whatever changes next came through the feed.
    const before = (await app.call('trades.query', { limit: 100 })).rows;
    expect(before.map((t) => t.status)).toEqual(['PENDING', 'PENDING', 'PENDING', 'PENDING']);
    const problemsBefore = app.logs.filter((line) => line.startsWith('feed: malformed-frame')).length;
    feed.send(script);

    const server = async (): Promise<Trade[]> => {
      const page = await merchantApi(sb, merchant).get<TradeHistoryPage>('/Trades/History?limit=500');
      return page.body.trades;
    };
    const fields = (t: Trade) => ({
      tradeId: t.tradeId,
      status: t.status,
      offerId: t.offerId,
      errorCode: t.errorCode,
      failReason: t.failReason,
      externalId: t.externalId,
    });
    const serverTrades = await server();
    expect(serverTrades).toHaveLength(tradeIds.length);
    const wanted = serverTrades.map(fields).sort((a, b) => a.tradeId.localeCompare(b.tradeId));
    const local = async () =>
      (await app.call('trades.query', { limit: 100 })).rows
        .map(fields)
        .sort((a, b) => a.tradeId.localeCompare(b.tradeId));
    await waitFor(
      async () => JSON.stringify(await local()) === JSON.stringify(wanted),
      15_000,
      'engine trades equal to the server',
    ).catch(async (error: unknown) => {
      expect(await local()).toEqual(wanted);
      throw error;
    });

    // Garbage is reported, never fatal: the feed stayed up the whole time on one connection.
    const malformed = app.logs.filter((line) => line.startsWith('feed: malformed-frame')).length - problemsBefore;
    expect(malformed).toBeGreaterThanOrEqual(script.length / 2 - 2);
    expect(app.session().connection.state).toBe('connected');
    expect(feed.connections).toBe(1);

    // At most one notification per trade and status; the final status of each trade announced exactly once.
    const marker = await sendMarker();
    const notified = app.batches
      .flatMap((batch) => batch.notifications ?? [])
      .filter((n) => n.kind === 'trade' && !n.id.includes(marker));
    const counts = new Map<string, number>();
    for (const n of notified) counts.set(n.id, (counts.get(n.id) ?? 0) + 1);
    expect([...counts].filter(([, count]) => count > 1)).toEqual([]);
    for (const trade of serverTrades)
      expect(counts.get(`trade:${trade.tradeId}:${trade.status}`), `${trade.tradeId} ${trade.status}`).toBe(1);
    process.stdout.write(
      `feed-faults: ${recorded.length} real frames replayed as ${script.length - script.length / 2} trade frames + ${script.length / 2} garbage frames; ` +
        `${malformed} reported malformed; ${notified.length} notifications for ${counts.size} trade statuses\n`,
    );

    // The wallet followed the replayed frames to the server's balance.
    const balance = (await merchantApi(sb, merchant).get<{ balance: number }>('/Wallet/GetBalance')).body.balance;
    await waitFor(() => app.session().balance?.balance === balance, 10_000, 'balance equal to the server');

    // A reconnect reconciles: then every field of every trade is the server's (timestamps included).
    feed.cutAll();
    await waitFor(
      () => feed.connections === 2 && app.session().connection.state === 'connected',
      15_000,
      'reconnected',
    );
    const full = (t: Trade[]) => [...t].sort((a, b) => a.tradeId.localeCompare(b.tradeId));
    await waitFor(
      async () =>
        JSON.stringify(full((await app.call('trades.query', { limit: 100 })).rows)) ===
        JSON.stringify(full(await server())),
      15_000,
      'full trade records equal after the reconcile',
    ).catch(async (error: unknown) => {
      expect(full((await app.call('trades.query', { limit: 100 })).rows)).toEqual(full(await server()));
      throw error;
    });
    // Replaying everything once more after the reconcile changes nothing and notifies nothing.
    const notificationsBefore = app.batches.flatMap((batch) => batch.notifications ?? []).length;
    feed.send(recorded.flatMap((frame) => [frame, frame]));
    const secondMarker = await sendMarker();
    expect(
      app.batches.flatMap((batch) => batch.notifications ?? []).filter((n) => !n.id.includes(secondMarker)).length,
    ).toBe(notificationsBefore);
    // The marker trade's final status came from a frame: its record (completedAt, endProtection) follows it.
    const serverAfter = full(await server());
    await waitFor(
      async () =>
        JSON.stringify(full((await app.call('trades.query', { limit: 100 })).rows)) === JSON.stringify(serverAfter),
      15_000,
      'full trade records equal after the second replay',
    ).catch(async (error: unknown) => {
      expect(full((await app.call('trades.query', { limit: 100 })).rows)).toEqual(serverAfter);
      throw error;
    });
    // Timelines record each status once, in lifecycle order.
    for (const tradeId of tradeIds) {
      const detail = await app.call('trades.get', { tradeId });
      const statuses = detail?.timeline.map((entry) => entry.status) ?? [];
      expect(new Set(statuses).size, `${tradeId}: ${statuses.join(',')}`).toBe(statuses.length);
    }
  }, 80_000);
});
