import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsSocket } from 'ws';
import type { EngineEventBatch, MerchantDeskApi } from '../../src/shared/ipc';
import { startWebHost, type WebHost } from '../../src/web/webHost';
import { EchoEngine, makeRendererDir } from './support';

/**
 * The browser bridge under Node: `ws` stands in for the browser's WebSocket and sends the
 * Origin a browser would; the token lives in a store in memory. The renderer is another TypeScript project (tsconfig.web.json),
 * so it is imported at run time and typed here by the part this test uses.
 */
type WebBridgeState = 'connecting' | 'open' | 'closed' | 'unauthorized';
interface TokenStore {
  read(): string | null;
  write(token: string): void;
  onChange(listener: () => void): () => void;
}
interface WebBridgeModule {
  connectWebBridge(
    page: string,
    options: {
      createSocket?: (url: string, protocols: string[]) => WebSocket;
      tokens?: TokenStore;
      launch?: { token: string } | { code: string } | null;
      queueTimeoutMs?: number;
      reconnectInitialMs?: number;
      reconnectMaxMs?: number;
      onStateChange?: (state: WebBridgeState) => void;
      signal?: AbortSignal;
    },
  ): MerchantDeskApi;
  memoryTokenStore(token?: string | null): TokenStore;
}
const WEB_BRIDGE = '../../src/renderer/src/platform/webBridge';
const { connectWebBridge, memoryTokenStore } = (await import(/* @vite-ignore */ WEB_BRIDGE)) as WebBridgeModule;

/** A store whose writes from "another tab" notify, like localStorage's storage event. */
function sharedStore(token: string | null): TokenStore & { otherTabWrites(token: string): void } {
  const inner = memoryTokenStore(token);
  const listeners = new Set<() => void>();
  return {
    ...inner,
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    otherTabWrites: (next) => {
      inner.write(next);
      for (const listener of listeners) listener();
    },
  };
}

const TOKEN = 'bridge-token-0123456789abcdef';

function socketFactory(origin: string, sockets: WsSocket[]) {
  return (url: string, protocols: string[]) => {
    const ws = new WsSocket(url, protocols, { origin });
    ws.on('error', () => {});
    sockets.push(ws);
    return ws as unknown as WebSocket;
  };
}

const batch = (seq: number): EngineEventBatch => ({ seq, at: '2026-01-01T00:00:00.000Z', activeTrades: seq });

describe('web bridge (browser side) against the web host', () => {
  const tree = makeRendererDir();
  const hosts: WebHost[] = [];
  const sockets: WsSocket[] = [];
  let controller = new AbortController();

  afterEach(async () => {
    controller.abort();
    controller = new AbortController();
    for (const ws of sockets.splice(0)) ws.terminate();
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });

  async function start(engine: EchoEngine, port = 0): Promise<WebHost> {
    const host = await startWebHost({ engine, rendererDir: tree.rendererDir, token: TOKEN, port });
    hosts.push(host);
    return host;
  }

  it('queues calls made before the socket opens, correlates answers by id, and delivers events', async () => {
    const engine = new EchoEngine();
    const host = await start(engine);
    const bridge = connectWebBridge(host.origin, {
      createSocket: socketFactory(host.origin, sockets),
      tokens: memoryTokenStore(TOKEN),
      signal: controller.signal,
    });
    expect(bridge.host).toBe('web');
    // Made synchronously, before the socket can be open.
    const [a, b, bad] = await Promise.all([
      bridge.catalog.item({ itemId: 1 }),
      bridge.trades.get({ tradeId: 'T-2' }),
      bridge.catalog.item({ itemId: -5 }),
    ]);
    expect(a).toEqual({ ok: true, value: { method: 'catalog.item', input: { itemId: 1 } } });
    expect(b).toEqual({ ok: true, value: { method: 'trades.get', input: { tradeId: 'T-2' } } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(engine.calls.map((c) => c.method)).toEqual(['catalog.item', 'trades.get']);

    const seen: number[] = [];
    const unsubscribe = bridge.events.subscribe((x) => seen.push(x.seq));
    engine.emit(batch(1));
    await expect.poll(() => seen).toEqual([1]);
    unsubscribe();
    engine.emit(batch(2));
    await bridge.app.snapshot({}); // a round trip later, batch 2 would have arrived
    expect(seen).toEqual([1]);
  });

  it('refuses an oversized input locally instead of losing the socket', async () => {
    const engine = new EchoEngine();
    const host = await start(engine);
    const bridge = connectWebBridge(host.origin, {
      createSocket: socketFactory(host.origin, sockets),
      tokens: memoryTokenStore(TOKEN),
      signal: controller.signal,
    });
    const big = await bridge.catalog.query({ search: 'x'.repeat(1024 * 1024) });
    expect(big).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await bridge.catalog.item({ itemId: 3 })).toMatchObject({ ok: true });
  });

  it('fails calls in flight when the socket drops, reconnects with backoff, and keeps delivering events', async () => {
    const engine = new EchoEngine();
    let release = () => {};
    engine.hold = new Promise<void>((resolve) => (release = resolve));
    const first = await start(engine);
    const states: WebBridgeState[] = [];
    const bridge = connectWebBridge(first.origin, {
      createSocket: socketFactory(first.origin, sockets),
      tokens: memoryTokenStore(TOKEN),
      signal: controller.signal,
      reconnectInitialMs: 20,
      reconnectMaxMs: 100,
      onStateChange: (s) => states.push(s),
    });
    const seen: number[] = [];
    bridge.events.subscribe((x) => seen.push(x.seq));
    expect(await bridge.app.snapshot({})).toMatchObject({ ok: true });

    const inFlight = bridge.catalog.refresh({});
    await expect.poll(() => engine.calls.at(-1)?.method).toBe('catalog.refresh');
    await first.close();
    expect(await inFlight).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'Connection to Merchant Desk lost' },
    });
    release();

    // While down: a call waits in the queue; it is sent once the host is back on the same port.
    const queued = bridge.catalog.item({ itemId: 9 });
    await new Promise((r) => setTimeout(r, 150));
    const second = await start(engine, first.port);
    expect(await queued).toEqual({ ok: true, value: { method: 'catalog.item', input: { itemId: 9 } } });
    expect(engine.calls.filter((c) => c.method === 'catalog.refresh')).toHaveLength(1); // never re-sent

    engine.emit(batch(7));
    await expect.poll(() => seen).toEqual([7]);
    expect(states[0]).toBe('connecting');
    expect(states).toContain('closed');
    expect(states.at(-1)).toBe('open');
    expect(second.stats().connections).toBe(1);
  });

  it('says "unauthorized" when the host is back with another token, and comes back once the token is good again', async () => {
    const engine = new EchoEngine();
    const first = await start(engine);
    const states: WebBridgeState[] = [];
    const bridge = connectWebBridge(first.origin, {
      createSocket: socketFactory(first.origin, sockets),
      tokens: memoryTokenStore(TOKEN),
      signal: controller.signal,
      queueTimeoutMs: 300,
      reconnectInitialMs: 10,
      reconnectMaxMs: 60,
      onStateChange: (s) => states.push(s),
    });
    expect(await bridge.app.snapshot({})).toMatchObject({ ok: true });
    await first.close();
    hosts.length = 0;
    // Back on the same port with another token: the host refuses our socket's token (4401).
    const other = await startWebHost({
      engine,
      rendererDir: tree.rendererDir,
      token: 'another-token-0123456789abcdef',
      port: first.port,
    });
    hosts.push(other);
    await expect.poll(() => states.at(-1)).toBe('unauthorized');
    expect(await bridge.catalog.item({ itemId: 5 }).then((e) => e.ok)).toBe(false);
    // The host runs with our token again: the page is back.
    await other.close();
    hosts.length = 0;
    await start(engine, first.port);
    await expect.poll(() => states.at(-1), { timeout: 5000 }).toBe('open');
    expect(await bridge.catalog.item({ itemId: 4 })).toMatchObject({ ok: true });
  });

  it('trades a one-time code for the token once, then reconnects with the token; a token stored by another tab is tried at once', async () => {
    const engine = new EchoEngine();
    const first = await start(engine);
    const tokens = sharedStore(null);
    const states: WebBridgeState[] = [];
    const bridge = connectWebBridge(first.origin, {
      createSocket: socketFactory(first.origin, sockets),
      tokens,
      launch: { code: new URL(first.openUrl()).searchParams.get('code') ?? '' },
      signal: controller.signal,
      reconnectInitialMs: 10,
      reconnectMaxMs: 60_000,
      onStateChange: (s) => states.push(s),
    });
    expect(await bridge.catalog.item({ itemId: 1 })).toMatchObject({ ok: true });
    expect(tokens.read()).toBe(TOKEN);
    // A restart with the same token: the spent code is not offered again, the token is.
    await first.close();
    hosts.length = 0;
    const second = await start(engine, first.port);
    expect(await bridge.catalog.item({ itemId: 2 })).toMatchObject({ ok: true });

    // Restarted with a new token: refused, and the next try is a minute away ...
    await second.close();
    hosts.length = 0;
    const renewed = 'renewed-token-0123456789abcdef';
    const third = await startWebHost({ engine, rendererDir: tree.rendererDir, token: renewed, port: first.port });
    hosts.push(third);
    await expect.poll(() => states.at(-1), { timeout: 5000 }).toBe('unauthorized');
    // ... but another tab that opened the new URL stored its token: this page is back now.
    tokens.otherTabWrites(renewed);
    await expect.poll(() => states.at(-1), { timeout: 5000 }).toBe('open');
    expect(await bridge.catalog.item({ itemId: 3 })).toMatchObject({ ok: true });
  });

  it('a page without any token says "unauthorized" and opens no socket', async () => {
    const engine = new EchoEngine();
    const host = await start(engine);
    const states: WebBridgeState[] = [];
    const bridge = connectWebBridge(host.origin, {
      createSocket: socketFactory(host.origin, sockets),
      tokens: memoryTokenStore(null),
      signal: controller.signal,
      queueTimeoutMs: 50,
      onStateChange: (s) => states.push(s),
    });
    expect(await bridge.app.snapshot({})).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(states).toEqual(['unauthorized']);
    expect(sockets).toHaveLength(0);
  });

  it('fails a queued call with unavailable when no connection comes within the queue timeout', async () => {
    const engine = new EchoEngine();
    const host = await start(engine);
    const port = host.port;
    await host.close();
    hosts.length = 0;
    const bridge = connectWebBridge(`http://127.0.0.1:${port}/`, {
      createSocket: socketFactory(`http://127.0.0.1:${port}`, sockets),
      tokens: memoryTokenStore(TOKEN),
      signal: controller.signal,
      queueTimeoutMs: 100,
      reconnectInitialMs: 1000,
    });
    expect(await bridge.app.snapshot({})).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'Connection to Merchant Desk lost' },
    });
    expect(engine.calls).toEqual([]);
  });

  it('stops for good when its signal aborts: pending and later calls fail, no reconnect', async () => {
    const engine = new EchoEngine();
    engine.hold = new Promise<void>(() => {});
    const host = await start(engine);
    const stop = new AbortController();
    const bridge = connectWebBridge(host.origin, {
      createSocket: socketFactory(host.origin, sockets),
      tokens: memoryTokenStore(TOKEN),
      signal: stop.signal,
      reconnectInitialMs: 10,
    });
    const pending = bridge.catalog.refresh({});
    await expect.poll(() => engine.calls.length).toBe(1);
    stop.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(await bridge.app.snapshot({})).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    await new Promise((r) => setTimeout(r, 100));
    expect(sockets).toHaveLength(1);
    expect(host.stats().connections).toBe(0);
  });
});
