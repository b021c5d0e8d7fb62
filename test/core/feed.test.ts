import { mkdtempSync, rmSync } from 'node:fs';
import { type Server as HttpServer, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { FeedProblem, FeedStatus } from '../../src/main/core/feed';
import { FeedConnection, backoffBase, backoffDelay, formatDelay, resolveBackoff } from '../../src/main/core/feed';
import { FeedServer } from '../../src/server/feed/feedServer';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { FeedFrame, Item } from '../../src/shared/api';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { TEST_TRADE_URL, adminApi, at, merchantApi } from '../support/sandboxHttp';
import { FaultProxy } from '../support/faultProxy';
import { waitFor } from '../support/waitFor';

/** Everything a FeedConnection reports, with the delay each scheduled retry announced. */
interface Recorded {
  conn: FeedConnection;
  states: (FeedStatus & { delayMs: number | null })[];
  frames: FeedFrame[];
  problems: FeedProblem[];
  connects: number;
  logs: string[];
}

const connections: FeedConnection[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

function feed(
  endpoint: ConstructorParameters<typeof FeedConnection>[0],
  options: ConstructorParameters<typeof FeedConnection>[1] = {},
): Recorded {
  const logs: string[] = [];
  const conn = new FeedConnection(endpoint, { log: (level, message) => logs.push(`${level} ${message}`), ...options });
  const recorded: Recorded = { conn, states: [], frames: [], problems: [], connects: 0, logs };
  conn.onState((status) =>
    recorded.states.push({
      ...status,
      delayMs: status.nextAttemptAt === null ? null : Date.parse(status.nextAttemptAt) - Date.now(),
    }),
  );
  conn.onFrame((frame) => recorded.frames.push(frame));
  conn.onProblem((problem) => recorded.problems.push(problem));
  conn.onConnected(() => recorded.connects++);
  connections.push(conn);
  return recorded;
}

/**
 * A delay announced in nextAttemptAt, read back in the state listener: the same, less the few ms a loaded machine
 * may spend between scheduling and the listener (a GC pause), never more.
 */
const near = (measured: number, expected: number) => measured <= expected + 1 && measured >= expected - 15;
const inState = (r: Recorded, state: FeedStatus['state']) => () => r.conn.state.state === state;
const scheduled = (r: Recorded) => r.states.filter((s) => s.delayMs !== null);

afterEach(async () => {
  await Promise.all(connections.splice(0).map((conn) => conn.stop()));
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// ---------------------------------------------------------------------------

describe('backoff', () => {
  const options = { initialMs: 1000, maxMs: 60_000, jitter: 0.5 };

  it('doubles from initialMs and caps at maxMs', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50, 5000].map((n) => backoffBase(n, options))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000,
    ]);
    // No jitter drawn (random = 0): the delay is the base.
    expect([1, 2, 3, 7].map((n) => backoffDelay(n, options, () => 0))).toEqual([1000, 2000, 4000, 60_000]);
  });

  it('keeps jitter within [base·(1 − jitter), base] and never above the cap', () => {
    for (const jitter of [0, 0.25, 0.5, 1]) {
      for (let attempt = 1; attempt <= 12; attempt++) {
        const base = backoffBase(attempt, options);
        for (const r of [0, 0.1, 0.5, 0.9, 0.999_999]) {
          const delay = backoffDelay(attempt, { ...options, jitter }, () => r);
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitter)));
          expect(delay).toBeLessThanOrEqual(base);
          expect(delay).toBeLessThanOrEqual(options.maxMs);
        }
      }
    }
    expect(backoffDelay(3, options, () => 0.5)).toBe(3000);
    expect(backoffDelay(1, { ...options, jitter: 1 }, () => 0.75)).toBe(250);
    // Out-of-range randoms are clamped, not trusted.
    expect(backoffDelay(1, options, () => 7)).toBe(500);
    expect(backoffDelay(1, options, () => -1)).toBe(1000);
  });

  it('rejects options that would make a reconnect storm', () => {
    expect(() => resolveBackoff({ initialMs: 0 })).toThrow(RangeError);
    expect(() => resolveBackoff({ initialMs: 100, maxMs: 50 })).toThrow(RangeError);
    expect(() => resolveBackoff({ jitter: 1.5 })).toThrow(RangeError);
    expect(resolveBackoff()).toEqual({ initialMs: 1000, maxMs: 60_000, jitter: 0.5 });
    expect(
      () =>
        new FeedConnection(
          { wsUrl: 'ws://x', merchantId: 'm', apiKey: 'k' },
          { heartbeatIntervalMs: 500, deadAfterMs: 400 },
        ),
    ).toThrow(RangeError);
  });

  it('formats delays for the status bar', () => {
    expect([400, 1000, 8000, 59_500, 60_000, 90_000, 300_000, 3_600_000].map(formatDelay)).toEqual([
      '1 s',
      '1 s',
      '8 s',
      '1 min',
      '1 min',
      '1 min 30 s',
      '5 min',
      '1 h',
    ]);
  });
});

// ---------------------------------------------------------------------------

describe('FeedConnection against a scripted ws server', () => {
  let wss: WebSocketServer;
  let url: string;

  beforeEach(async () => {
    wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`;
    cleanups.push(async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise((resolve) => wss.close(resolve));
    });
  });

  it('reports malformed frames via onProblem, delivers the valid ones and keeps the connection', async () => {
    const sockets: WebSocket[] = [];
    let headers: Record<string, string | string[] | undefined> = {};
    wss.on('connection', (ws, request) => {
      headers = request.headers;
      sockets.push(ws);
      ws.send('{"type":"bogus"}');
      ws.send('this is not json');
      ws.send(JSON.stringify({ type: 'connected', merchantId: 'm-1' }));
    });
    const r = feed({ wsUrl: url, merchantId: 'm-1', apiKey: 'secret-key-0123456789' });
    r.conn.start();
    await waitFor(() => r.frames.length === 1 && r.problems.length === 2, 5000, 'the frames');
    expect(headers['x-api-key']).toBe('secret-key-0123456789');
    expect(headers['x-merchant-id']).toBe('m-1');
    expect(r.problems.map((p) => p.kind)).toEqual(['malformed-frame', 'malformed-frame']);
    expect(r.problems[0]?.message).toContain('"bogus"');
    expect(r.problems[1]?.message).toContain('not JSON');
    expect(r.frames).toEqual([{ type: 'connected', merchantId: 'm-1' }]);
    expect(r.conn.state).toMatchObject({ state: 'connected', detail: 'Live feed connected', nextAttemptAt: null });
    expect(r.connects).toBe(1);

    // Still the same connection: later frames arrive, a throwing listener is reported, not fatal.
    r.conn.onFrame((frame) => {
      if (frame.type === 'item_removed') throw new Error('listener bug');
    });
    const [socket] = sockets as [WebSocket];
    socket.send(JSON.stringify({ type: 'item_removed', itemIds: [7] }));
    socket.send(JSON.stringify({ type: 'price_changed', items: [{ itemId: 7, price: 120 }] }));
    await waitFor(() => r.frames.length === 3, 5000, 'the later frames');
    expect(r.problems.map((p) => p.kind)).toEqual(['malformed-frame', 'malformed-frame', 'listener-error']);
    expect(r.conn.stats).toMatchObject({
      upgradeAttempts: 1,
      connects: 1,
      frames: 3,
      malformedFrames: 2,
      listenerErrors: 1,
    });
    expect(sockets).toHaveLength(1);
    expect(socket.readyState).toBe(WebSocket.OPEN);
    expect(r.conn.state.state).toBe('connected');
  });

  it('backs off with the injected jitter, one attempt at a time and never early; resets after a healthy connection', async () => {
    let mode: 'flap' | 'hold' = 'flap';
    const arrivals: number[] = [];
    let open = 0;
    let maxOpen = 0;
    const held: WebSocket[] = [];
    wss.on('connection', (ws) => {
      arrivals.push(Date.now());
      open++;
      maxOpen = Math.max(maxOpen, open);
      ws.on('close', () => open--);
      ws.send(JSON.stringify({ type: 'connected', merchantId: 'm' }));
      // Accepted and dropped at once: that must not count as healthy.
      if (mode === 'flap') ws.close(1011, 'flap');
      else held.push(ws);
    });
    const r = feed(
      { wsUrl: url, merchantId: 'm', apiKey: 'k'.repeat(20) },
      { backoff: { initialMs: 40, maxMs: 160, jitter: 0.5 }, random: () => 0.5, healthyAfterMs: 150 },
    );
    r.conn.start();
    await waitFor(() => scheduled(r).length >= 4 && arrivals.length >= 5, 5000, '4 retries');
    mode = 'hold';
    const retries = scheduled(r).slice(0, 4);
    // base 40, 80, 160, 160 (cap), each × (1 − 0.5 × 0.5).
    expect(retries.map((s) => s.attempt)).toEqual([1, 2, 3, 4]);
    expect(retries.map((s) => s.state)).toEqual(['reconnecting', 'reconnecting', 'reconnecting', 'reconnecting']);
    const expected = [30, 60, 120, 120];
    const delays = retries.map((s) => s.delayMs ?? 0);
    expect(
      delays.map((delay, i) => near(delay, at(expected, i))),
      `delays ${delays.join(', ')}`,
    ).toEqual([true, true, true, true]);
    expect(retries[2]?.detail).toBe('Reconnecting in 1 s (attempt 3)');
    expect(retries[0]?.cause).toBe('close 1011');
    // No attempt before its time: each upgrade came at least the announced delay after the previous one.
    for (let i = 1; i <= 4; i++)
      expect(at(arrivals, i) - at(arrivals, i - 1)).toBeGreaterThanOrEqual(at(expected, i - 1) - 1);
    expect(maxOpen).toBe(1);

    // The 5th (or 6th) connection is held: after healthyAfterMs the counter resets, so the next drop starts over.
    await waitFor(() => held.length === 1, 5000, 'a held connection');
    await waitFor(
      () => r.conn.state.state === 'connected' && r.conn.state.attempt === 0,
      2000,
      'the attempt counter to reset',
    );
    const before = scheduled(r).length;
    held[0]?.close(1001, 'going away');
    await waitFor(() => scheduled(r).length > before, 5000, 'the next retry');
    expect(scheduled(r).at(-1)).toMatchObject({ state: 'reconnecting', attempt: 1, cause: 'close 1001' });
    expect(near(scheduled(r).at(-1)?.delayMs ?? 0, 30)).toBe(true);
    await waitFor(() => r.connects >= 6 && r.conn.state.state === 'connected', 5000, 'the reconnect');
  });

  it('a 403 that is not ip_not_allowed, or a 429, at the upgrade: polling, retried from a few seconds backing off to the slow period (only a 401 halts)', async () => {
    const server: HttpServer = createServer((_request, response) => response.writeHead(404).end());
    const answers: { status: number; body: string; headers?: string }[] = [
      { status: 403, body: JSON.stringify({ error: 'forbidden', message: 'Blocked by the corporate proxy' }) },
      { status: 403, body: '<html>Forbidden</html>' },
      {
        status: 429,
        body: JSON.stringify({ error: 'rate_limited', message: 'Rate limit exceeded' }),
        headers: 'Retry-After: 1\r\n',
      },
      { status: 429, body: JSON.stringify({ error: 'rate_limited', message: 'Rate limit exceeded' }) },
    ];
    let upgrades = 0;
    let refuse = true;
    server.on('upgrade', (_request, socket) => {
      if (!refuse) {
        socket.destroy();
        return;
      }
      const answer = answers[Math.min(upgrades, answers.length - 1)] as (typeof answers)[number];
      upgrades++;
      socket.end(
        `HTTP/1.1 ${answer.status} Refused\r\nContent-Type: application/json\r\n${answer.headers ?? ''}Content-Length: ${Buffer.byteLength(answer.body)}\r\nConnection: close\r\n\r\n${answer.body}`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const wsUrl = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;

    // With the defaults: the first retry comes within seconds (jittered from 5 s), not after the 5-minute slow period.
    const defaults = feed({ wsUrl, merchantId: 'm', apiKey: 'k'.repeat(20) }, { pollIntervalMs: 15_000 });
    defaults.conn.start();
    await waitFor(() => scheduled(defaults).length === 1, 5000, 'the first refusal');
    const first = at(scheduled(defaults));
    expect(first).toMatchObject({ state: 'polling', cause: 'http 403 forbidden' });
    expect(first.delayMs).toBeGreaterThanOrEqual(2_500 - 15);
    expect(first.delayMs).toBeLessThanOrEqual(5_000);
    expect(first.detail).toMatch(
      /^Feed refused \(http 403 forbidden\); polling every 15 s, retrying the feed in [2-5] s$/,
    );
    await defaults.conn.stop();

    // Scaled down: from 40 ms, doubling, jittered (× 0.75 here), capped at limitRetryMs; a longer Retry-After wins.
    upgrades = 0;
    const r = feed(
      { wsUrl, merchantId: 'm', apiKey: 'k'.repeat(20) },
      {
        refusedRetryMs: 40,
        limitRetryMs: 300,
        pollIntervalMs: 15_000,
        random: () => 0.5,
        backoff: { initialMs: 10, maxMs: 20, jitter: 0.5 },
      },
    );
    r.conn.start();
    await waitFor(() => scheduled(r).length >= 6, 5000, 'six refusals');
    refuse = false;
    const refusals = scheduled(r).slice(0, 6);
    expect(refusals.map((s) => [s.state, s.cause])).toEqual([
      ['polling', 'http 403 forbidden'],
      ['polling', 'http 403'],
      ['polling', 'http 429 rate_limited'],
      ['polling', 'http 429 rate_limited'],
      ['polling', 'http 429 rate_limited'],
      ['polling', 'http 429 rate_limited'],
    ]);
    const expected = [30, 60, 1000, 225, 225, 225]; // bases 40, 80, (160: Retry-After 1 s), 300 (cap), 300, 300
    const delays = refusals.map((s) => s.delayMs ?? 0);
    expect(
      delays.map((delay, i) => near(delay, at(expected, i))),
      `delays ${delays.join(', ')}`,
    ).toEqual(expected.map(() => true));
    expect(r.states.some((s) => s.state === 'unauthorized')).toBe(false);
  });

  it('restart() closes the old socket before it opens the new one', async () => {
    const events: string[] = [];
    let n = 0;
    let open = 0;
    let most = 0;
    wss.on('connection', (ws) => {
      const id = ++n;
      open++;
      most = Math.max(most, open);
      events.push(`open ${id}`);
      ws.on('close', () => {
        open--;
        events.push(`close ${id}`);
      });
      ws.send(JSON.stringify({ type: 'connected', merchantId: 'm' }));
    });
    const r = feed({ wsUrl: url, merchantId: 'm', apiKey: 'k'.repeat(20) });
    r.conn.start();
    await waitFor(inState(r, 'connected'), 5000, 'connected');
    await r.conn.restart({ apiKey: 'n'.repeat(20) });
    await waitFor(() => r.connects === 2, 5000, 'reconnected');
    expect(events).toEqual(['open 1', 'close 1', 'open 2']);
    expect(most).toBe(1);
    // A stop() while a restart waits for the old socket wins: nothing opens afterwards.
    const restarting = r.conn.restart();
    await r.conn.stop();
    await restarting;
    expect(r.conn.hasPendingAttempt).toBe(false); // no socket and no retry: nothing can open later
    expect(events).toEqual(['open 1', 'close 1', 'open 2', 'close 2']);
    expect(r.conn.state.state).toBe('offline');
  });

  it('stop() closes with 1000 and cancels a pending retry', async () => {
    const closes: number[] = [];
    wss.on('connection', (ws) => {
      ws.on('close', (code) => closes.push(code));
      ws.send(JSON.stringify({ type: 'connected', merchantId: 'm' }));
    });
    const r = feed({ wsUrl: url, merchantId: 'm', apiKey: 'k'.repeat(20) }, { backoff: { initialMs: 30, maxMs: 30 } });
    r.conn.start();
    await waitFor(inState(r, 'connected'), 5000, 'connected');
    await r.conn.stop();
    await waitFor(() => closes.length === 1, 5000, 'the server to see the close');
    expect(closes).toEqual([1000]);
    expect(r.conn.state).toMatchObject({ state: 'offline', detail: 'Live feed stopped', nextAttemptAt: null });
    expect(r.conn.hasPendingAttempt).toBe(false);
    expect(r.conn.stats.upgradeAttempts).toBe(1);
  });
});

// ---------------------------------------------------------------------------

describe('FeedConnection against the sandbox feed', () => {
  let sb: Sandbox;
  let dbDir: string;
  let dbFile: string;
  let admin: ReturnType<typeof adminApi>;
  let merchant: MerchantCredentials;
  let upgrades: number;

  function countUpgrades(sandbox: Sandbox): void {
    sandbox.app.server.prependListener('upgrade', () => upgrades++);
  }

  const endpoint = (credentials: MerchantCredentials = merchant, wsUrl = sb.wsUrl) => ({ wsUrl, ...credentials });

  beforeEach(async () => {
    dbDir = mkdtempSync(join(tmpdir(), 'feed-test-'));
    dbFile = join(dbDir, 'sandbox.db');
    sb = await startSandbox({ items: 200, seed: 5, dbFile });
    const current = sb;
    cleanups.push(async () => {
      await current.close();
      rmSync(dbDir, { recursive: true, force: true });
    });
    admin = adminApi(sb);
    merchant = await admin.createMerchant({ balance: 10_000_000 });
    upgrades = 0;
    countUpgrades(sb);
  });

  it('connects, gets `connected`, then a trade_updated after a buy over REST', async () => {
    const r = feed(endpoint());
    expect(r.conn.state).toMatchObject({ state: 'offline', detail: 'Live feed not started' });
    r.conn.start();
    expect(r.conn.state.state).toBe('connecting');
    await waitFor(inState(r, 'connected'), 5000, 'connected');
    expect(r.frames).toEqual([{ type: 'connected', merchantId: merchant.merchantId }]);
    expect(r.connects).toBe(1);
    expect(r.conn.state).toMatchObject({ detail: 'Live feed connected', nextAttemptAt: null, attempt: 0 });
    expect(r.states.map((s) => s.state)).toEqual(['connecting', 'connected']);

    const api = merchantApi(sb, merchant);
    const [itemId] = (
      sb.core.db.prepare('SELECT item_id FROM items WHERE on_sale = 1 ORDER BY price LIMIT 1').all() as {
        item_id: number;
      }[]
    ).map((row) => row.item_id);
    const search = await api.post<{ items: Item[] }>('/Items/SearchItems', { itemId: [itemId] });
    const item = search.body.items[0] as Item;
    const buy = await api.post<{ tradeId: string }>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: TEST_TRADE_URL,
    });
    expect(buy.status).toBe(200);
    await waitFor(() => r.frames.some((f) => f.type === 'trade_updated'), 5000, 'trade_updated');
    expect(r.frames.find((f) => f.type === 'trade_updated')).toMatchObject({
      tradeId: buy.body.tradeId,
      status: 'PENDING',
    });
    expect(r.frames.find((f) => f.type === 'item_removed')).toEqual({ type: 'item_removed', itemIds: [item.itemId] });

    await admin.transition(buy.body.tradeId, { status: 'SENT' });
    await waitFor(() => r.frames.filter((f) => f.type === 'trade_updated').length === 2, 5000, 'the SENT update');
    expect(r.problems).toEqual([]);
    expect(upgrades).toBe(1);
  });

  it('bad key: unauthorized at once, no retries until restart(), and the key is never logged', async () => {
    const badKey = 'wrong-key-ABCDEFGHIJKLMNOP';
    const r = feed(endpoint({ merchantId: merchant.merchantId, apiKey: badKey }), {
      backoff: { initialMs: 20, maxMs: 40 },
    });
    r.conn.start();
    await waitFor(inState(r, 'unauthorized'), 5000, 'unauthorized');
    expect(r.conn.state).toMatchObject({ nextAttemptAt: null, cause: 'http 401 unauthorized' });
    expect(r.conn.state.detail).toMatch(/invalid API key or merchant ID/);
    expect(r.conn.hasPendingAttempt).toBe(false); // halted: no retry scheduled
    expect(upgrades).toBe(1);
    expect(r.conn.stats.upgradeAttempts).toBe(1);

    r.conn.restart();
    await waitFor(
      () => r.conn.stats.upgradeAttempts === 2 && r.conn.state.state === 'unauthorized',
      5000,
      'the second refusal',
    );
    expect(r.conn.hasPendingAttempt).toBe(false);
    expect(upgrades).toBe(2);

    r.conn.restart({ apiKey: merchant.apiKey });
    await waitFor(inState(r, 'connected'), 5000, 'connected with the right key');
    expect(upgrades).toBe(3);

    const everything = JSON.stringify([r.states, r.problems, r.logs, r.conn.state]) + inspect(r.conn, { depth: 5 });
    expect(everything).not.toContain(badKey);
    expect(everything).not.toContain(merchant.apiKey);
  });

  it('credentials changed (close 4001): unauthorized, no retries; restart() with the new key reconnects', async () => {
    const r = feed(endpoint(), { backoff: { initialMs: 20, maxMs: 40 } });
    r.conn.start();
    await waitFor(inState(r, 'connected'), 5000, 'connected');
    const newKey = 'renewed-key-0123456789abcdef';
    expect((await admin.patch(`/admin/merchants/${merchant.merchantId}`, { apiKey: newKey })).status).toBe(200);
    await waitFor(inState(r, 'unauthorized'), 5000, 'unauthorized');
    expect(r.conn.state).toMatchObject({ cause: 'close 4001', nextAttemptAt: null });
    expect(r.conn.state.detail).toMatch(/API key was changed/);
    expect(r.conn.hasPendingAttempt).toBe(false);
    expect(upgrades).toBe(1);
    r.conn.restart({ apiKey: newKey });
    await waitFor(inState(r, 'connected'), 5000, 'reconnected');
    expect(r.connects).toBe(2);
  });

  it('connection limit (4008): polling, retries backing off from refusedRetryMs, and it connects once a slot frees up', async () => {
    const headers = { 'x-api-key': merchant.apiKey, 'x-merchant-id': merchant.merchantId };
    const others = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<WebSocket>((resolve, reject) => {
            const ws = new WebSocket(sb.wsUrl, { headers });
            ws.once('message', () => resolve(ws));
            ws.once('error', reject);
          }),
      ),
    );
    cleanups.push(() => others.forEach((ws) => ws.terminate()));
    expect(sb.feed.connectionCount(merchant.merchantId)).toBe(3);
    upgrades = 0;

    const r = feed(endpoint(), {
      refusedRetryMs: 100,
      limitRetryMs: 400,
      random: () => 0,
      pollIntervalMs: 15_000,
      backoff: { initialMs: 10, maxMs: 20 },
    });
    r.conn.start();
    await waitFor(inState(r, 'polling'), 5000, 'polling');
    expect(r.conn.state).toMatchObject({
      detail:
        'Feed refused: 3 connections already open for this merchant; polling every 15 s, retrying the feed in 1 s',
      cause: 'close 4008',
    });
    expect(r.connects).toBe(0);

    // Backing off, not a storm: retries after 100, 200, 400, 400 ms.
    await waitFor(() => scheduled(r).length >= 4, 3000, 'four refusals');
    const delays = scheduled(r)
      .slice(0, 4)
      .map((s) => s.delayMs ?? 0);
    expect(
      delays.map((delay, i) => near(delay, at([100, 200, 400, 400], i))),
      `delays ${delays.join(', ')}`,
    ).toEqual([true, true, true, true]);
    expect(r.conn.state.state).toBe('polling');

    others[0]?.close();
    await waitFor(inState(r, 'connected'), 3000, 'connected after a slot freed up');
    expect(r.connects).toBe(1);
    expect(sb.feed.connectionCount(merchant.merchantId)).toBe(3);
  });

  it('server gone: reconnecting, then offline with growing delays; reconnects to a new sandbox on the same port and db', async () => {
    const port = Number(new URL(sb.baseUrl).port);
    const r = feed(endpoint(), { backoff: { initialMs: 40, maxMs: 320, jitter: 0.5 }, random: () => 0 });
    r.conn.start();
    await waitFor(inState(r, 'connected'), 5000, 'connected');

    await sb.close();
    await waitFor(() => scheduled(r).length >= 4, 5000, '4 scheduled retries');
    const retries = scheduled(r);
    expect(retries[0]).toMatchObject({ state: 'reconnecting', cause: 'close 1001', attempt: 1 });
    expect(retries[0]?.detail).toBe('Reconnecting in 1 s (attempt 1)');
    expect(retries[1]).toMatchObject({ state: 'offline', cause: 'ECONNREFUSED', attempt: 2 });
    expect(retries[1]?.detail).toBe('Cannot reach the server (connection refused); retrying in 1 s (attempt 2)');
    const delays = retries.slice(0, 4).map((s) => s.delayMs ?? 0);
    expect(
      delays.map((delay, i) => near(delay, at([40, 80, 160, 320], i))),
      `delays ${delays.join(', ')}`,
    ).toEqual([true, true, true, true]);

    sb = await startSandbox({ port, dbFile, items: 200, seed: 5 });
    const restarted = sb;
    cleanups.push(() => restarted.close());
    await waitFor(() => r.connects === 2, 3000, 'the reconnect');
    expect(r.conn.state).toMatchObject({ state: 'connected', detail: 'Live feed connected' });
    expect(r.frames.filter((f) => f.type === 'connected')).toHaveLength(2);
  });

  it('maintenance (HTTP 503 at upgrade): maintenance state with backoff from maintenanceRetryMs, then connects', async () => {
    await admin.post('/admin/maintenance', { on: true });
    const r = feed(endpoint(), {
      maintenanceRetryMs: 150,
      serverLabel: 'Sandbox',
      backoff: { jitter: 0.5 },
      random: () => 0,
    });
    r.conn.start();
    await waitFor(inState(r, 'maintenance'), 5000, 'maintenance');
    expect(r.conn.state).toMatchObject({
      cause: 'http 503 maintenance',
      detail: 'Sandbox under maintenance; retrying in 1 s',
    });
    await waitFor(() => scheduled(r).length >= 2, 5000, 'a second maintenance retry');
    expect(
      scheduled(r)
        .map((s) => Math.round((s.delayMs ?? 0) / 50) * 50)
        .slice(0, 2),
    ).toEqual([150, 300]);
    await admin.post('/admin/maintenance', { on: false });
    await waitFor(inState(r, 'connected'), 3000, 'connected after maintenance');
  });

  it('IP not on the allowlist (HTTP 403): refused, retried slowly, connects once the allowlist admits it', async () => {
    const restricted = await admin.createMerchant({ ipAllowlist: ['203.0.113.7'] });
    const r = feed(endpoint(restricted), { limitRetryMs: 200, backoff: { initialMs: 10, maxMs: 20 } });
    r.conn.start();
    await waitFor(inState(r, 'unauthorized'), 5000, 'refused');
    expect(r.conn.state).toMatchObject({ cause: 'http 403 ip_not_allowed' });
    expect(r.conn.state.detail).toMatch(/IP address is not on the merchant's allowlist; retrying in 1 s$/);
    expect(r.conn.state.nextAttemptAt).not.toBeNull();
    await admin.patch(`/admin/merchants/${restricted.merchantId}`, { ipAllowlist: ['127.0.0.1'] });
    await waitFor(inState(r, 'connected'), 3000, 'connected');
    expect(upgrades).toBeLessThanOrEqual(4);
  });

  it('maintenance while connected (close 4503) on a feed with short ping ticks', async () => {
    const server: HttpServer = createServer((_request, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const feedServer = new FeedServer(sb.core, server, { pingIntervalMs: 100 });
    cleanups.push(async () => {
      await feedServer.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;
    const r = feed(endpoint(merchant, url), { maintenanceRetryMs: 100, random: () => 0 });
    r.conn.start();
    await waitFor(inState(r, 'connected'), 5000, 'connected');
    await admin.post('/admin/maintenance', { on: true });
    await waitFor(inState(r, 'maintenance'), 5000, 'maintenance');
    expect(r.states.find((s) => s.state === 'maintenance')?.cause).toBe('close 4503');
    expect(r.conn.state.detail).toMatch(/^Server under maintenance; /);
    await admin.post('/admin/maintenance', { on: false });
    await waitFor(() => r.connects === 2, 3000, 'reconnected');
  });

  it('half-open connection (no FIN): noticed within deadAfterMs, terminated and reconnected', async () => {
    const proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    cleanups.push(() => proxy.close());
    const r = feed(endpoint(merchant, proxy.wsUrl), {
      heartbeatIntervalMs: 100,
      deadAfterMs: 400,
      backoff: { initialMs: 20, maxMs: 40 },
    });
    r.conn.start();
    await waitFor(inState(r, 'connected'), 5000, 'connected');
    // Pings and pongs flow while healthy: six pings (600 ms, past deadAfterMs) and nothing is declared dead.
    const chunksBefore = proxy.tunnelChunks;
    await waitFor(() => proxy.tunnelChunks >= chunksBefore + 6, 5000, 'six pings');
    expect(r.conn.state.state).toBe('connected');
    expect(r.states.some((s) => s.state === 'reconnecting')).toBe(false);

    proxy.halfOpenWebSockets();
    const frozenAt = Date.now();
    await waitFor(() => r.states.some((s) => s.state === 'reconnecting'), 3000, 'the dead connection to be noticed');
    const noticedAfter = Date.now() - frozenAt;
    // Dead = nothing for deadAfterMs since the last pong, which came at most one heartbeat before the freeze.
    expect(noticedAfter).toBeGreaterThanOrEqual(400 - 100 - 20);
    expect(noticedAfter).toBeLessThan(400 + 250);
    expect(r.states.find((s) => s.state === 'reconnecting')?.cause).toMatch(/^no data for/);
    await waitFor(() => r.connects === 2, 5000, 'the reconnect through a fresh proxied connection');
    expect(r.conn.state.state).toBe('connected');
  });

  it('network errors (nothing listening) → offline, retrying with backoff', async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const r = feed(endpoint(merchant, `ws://127.0.0.1:${port}/ws`), { backoff: { initialMs: 30, maxMs: 60 } });
    r.conn.start();
    await waitFor(() => scheduled(r).length >= 2, 5000, 'two retries');
    expect(scheduled(r).map((s) => [s.state, s.cause, s.attempt])).toEqual([
      ['offline', 'ECONNREFUSED', 1],
      ['offline', 'ECONNREFUSED', 2],
    ]);
    expect(r.conn.state.since).toBe(r.states.find((s) => s.state === 'offline')?.since);
  });
});
