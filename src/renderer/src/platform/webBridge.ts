// The browser side of the web host's bridge: the IPC contract over one WebSocket to
// `/bridge` (authenticated by the host's HttpOnly token cookie, sent by the browser).
// Protocol, JSON text frames:
//   → {type:'call', id, method, input}
//   ← {type:'result', id, envelope}     envelope = {ok:true, value} | {ok:false, error:{code, message}}
//   ← {type:'events', batch}            one EngineEventBatch
import { buildBridge, type IpcCall, type MerchantDeskApi } from '../../../shared/ipc/bridge';
import type { IpcEnvelope } from '../../../shared/ipc/contract';
import type { EngineEventBatch } from '../../../shared/ipc/events';

/**
 * `unauthorized`: the host is up but refuses our cookie (it restarted with a new token);
 * reconnects go on (slowly), so opening the new URL in any tab brings this page back.
 */
export type WebBridgeState = 'connecting' | 'open' | 'closed' | 'unauthorized';

/** What a failed connection attempt found out about the host. */
export type ProbeResult = 'unauthorized' | 'unknown';

export interface WebBridgeOptions {
  /** Opens the socket (tests under Node pass one that carries the cookie). */
  createSocket?: (url: string) => WebSocket;
  /** How long a call made while disconnected waits for a connection before failing. */
  queueTimeoutMs?: number;
  /** Reconnect backoff: first delay, doubling up to the max, with jitter. */
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  /** Connection state changes, for a "connection lost" banner. */
  onStateChange?: (state: WebBridgeState) => void;
  /**
   * Asks the host why a socket could not open (a browser cannot see the refused upgrade's
   * status). Default in a page: a HEAD of `/` with the page's cookie; 401 means the token
   * was refused. Elsewhere (Node tests): none.
   */
  probe?: ((httpUrl: string) => Promise<ProbeResult>) | null;
  /** Aborting closes the socket for good: no reconnects; pending and later calls fail with `unavailable`. */
  signal?: AbortSignal;
}

type Listener = (batch: EngineEventBatch) => void;
type Settle = (envelope: IpcEnvelope<unknown>) => void;

const OPEN = 1; // WebSocket.OPEN, without relying on a global WebSocket class
/** The host closes the socket on bigger messages; refuse them here so one call cannot drop every other. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

const lost = (): IpcEnvelope<never> => ({
  ok: false,
  error: { code: 'unavailable', message: 'Connection to Merchant Desk lost' },
});

function reportListenerError(error: unknown): void {
  if (typeof reportError === 'function') reportError(error);
  else console.error(error);
}

/** A HEAD of the host's root with the page's own cookie: 401 means our token is no longer the host's. */
export async function probeWithFetch(httpUrl: string): Promise<ProbeResult> {
  try {
    const answer = await fetch(httpUrl, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin', redirect: 'manual' });
    return answer.status === 401 ? 'unauthorized' : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The bridge URL for a page served by the web host. */
export function bridgeUrl(page: Pick<URL, 'protocol' | 'host'>): string {
  return `${page.protocol === 'https:' ? 'wss:' : 'ws:'}//${page.host}/bridge`;
}

/**
 * Connects to the web host's bridge and returns the same `MerchantDeskApi` the Electron
 * preload exposes. Calls made before the socket opens are queued; a call already sent
 * when the socket drops fails with `unavailable` (it may have run: never retried, so a
 * buy is never sent twice); the socket reconnects with backoff and event subscribers
 * keep receiving batches on the new socket. Batches sent while disconnected are lost:
 * a gap in `batch.seq` means "re-read the snapshot".
 */
export function connectWebBridge(
  page: Pick<URL, 'protocol' | 'host'> | string = location,
  options: WebBridgeOptions = {},
): MerchantDeskApi {
  const {
    createSocket = (url: string) => new WebSocket(url),
    queueTimeoutMs = 15_000,
    reconnectInitialMs = 250,
    reconnectMaxMs = 10_000,
    onStateChange = () => {},
    signal,
  } = options;
  const pageUrl = typeof page === 'string' ? new URL(page) : page;
  const url = bridgeUrl(pageUrl);
  const httpUrl = `${pageUrl.protocol === 'https:' ? 'https:' : 'http:'}//${pageUrl.host}/`;
  const probe =
    options.probe !== undefined ? options.probe : typeof document !== 'undefined' && typeof fetch === 'function' ? probeWithFetch : null;
  /** Set while the host refuses our token: retries slow to the max delay. */
  let refused = false;

  let socket: WebSocket | null = null;
  let attempt = 0;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  let nextId = 1;
  /** Sent on the current socket, awaiting a result. */
  const sent = new Map<number, Settle>();
  /** Waiting for an open socket, in call order. */
  const queued = new Map<number, { message: string; settle: Settle; timer: ReturnType<typeof setTimeout> }>();
  const listeners = new Set<Listener>();

  function transmit(id: number, message: string, settle: Settle): void {
    try {
      socket?.send(message);
      sent.set(id, settle);
    } catch {
      settle(lost());
    }
  }

  function flush(): void {
    for (const [id, entry] of queued) {
      if (socket?.readyState !== OPEN) return;
      queued.delete(id);
      clearTimeout(entry.timer);
      transmit(id, entry.message, entry.settle);
    }
  }

  function receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const m = message as { type?: unknown; id?: unknown; envelope?: unknown; batch?: unknown };
    if (m.type === 'result' && typeof m.id === 'number') {
      const settle = sent.get(m.id);
      if (!settle) return;
      sent.delete(m.id);
      settle(m.envelope as IpcEnvelope<unknown>);
    } else if (m.type === 'events' && typeof m.batch === 'object' && m.batch !== null) {
      for (const listener of [...listeners]) {
        try {
          listener(m.batch as EngineEventBatch);
        } catch (error) {
          reportListenerError(error);
        }
      }
    }
  }

  function scheduleReconnect(): void {
    if (signal?.aborted) return;
    const base = refused ? reconnectMaxMs : Math.min(reconnectMaxMs, reconnectInitialMs * 2 ** attempt);
    const delay = base * (0.5 + Math.random() / 2);
    attempt = Math.min(attempt + 1, 30);
    reconnectTimer = setTimeout(open, delay);
  }

  function open(): void {
    if (signal?.aborted) return;
    onStateChange('connecting');
    let ws: WebSocket;
    try {
      ws = createSocket(url);
    } catch {
      onStateChange('closed');
      scheduleReconnect();
      return;
    }
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      attempt = 0;
      refused = false;
      onStateChange('open');
      flush();
    };
    ws.onmessage = (event: MessageEvent) => receive(event.data);
    ws.onerror = () => {
      // A close event always follows.
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      const pending = [...sent.values()];
      sent.clear();
      for (const settle of pending) settle(lost());
      if (opened || !probe) {
        onStateChange('closed');
        scheduleReconnect();
        return;
      }
      // Never opened: ask whether the host is there and refusing us, or simply not there.
      void probe(httpUrl).then((result) => {
        if (signal?.aborted) return;
        refused = result === 'unauthorized';
        onStateChange(refused ? 'unauthorized' : 'closed');
        scheduleReconnect();
      });
    };
  }

  const call = ((method: string, input: unknown) =>
    new Promise<IpcEnvelope<unknown>>((resolve) => {
      const id = nextId++;
      let message: string;
      try {
        message = JSON.stringify({ type: 'call', id, method, input });
      } catch {
        resolve({ ok: false, error: { code: 'invalid_input', message: `${method}: input is not serializable` } });
        return;
      }
      // UTF-8 takes at most 3 bytes per UTF-16 unit: only long messages need measuring.
      if (message.length * 3 > MAX_MESSAGE_BYTES && new TextEncoder().encode(message).byteLength > MAX_MESSAGE_BYTES) {
        resolve({ ok: false, error: { code: 'invalid_input', message: `${method}: input too large` } });
        return;
      }
      if (signal?.aborted) {
        resolve(lost());
        return;
      }
      if (socket?.readyState === OPEN) {
        transmit(id, message, resolve);
        return;
      }
      const timer = setTimeout(() => {
        if (queued.delete(id)) resolve(lost());
      }, queueTimeoutMs);
      queued.set(id, { message, settle: resolve, timer });
    })) as IpcCall;

  const subscribe = (listener: Listener): (() => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };

  signal?.addEventListener(
    'abort',
    () => {
      clearTimeout(reconnectTimer);
      for (const [id, entry] of queued) {
        queued.delete(id);
        clearTimeout(entry.timer);
        entry.settle(lost());
      }
      // onclose fails what was sent.
      socket?.close(1000, 'closed by the page');
    },
    { once: true },
  );

  open();
  return buildBridge(call, subscribe, 'web');
}
