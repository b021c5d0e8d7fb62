// The browser side of the web host's bridge: the IPC contract over one WebSocket to `/bridge`.
// The page holds the host's token itself: it arrives in the page's URL (`?token=`, or a one-time
// `?code=` the host trades for it), is taken out of the address bar at once, and once the host
// accepts it is kept in this origin's localStorage (no other port or site can read it; no cookie,
// which every port of the host would receive). The credential goes with the socket's upgrade, as
// subprotocols: `merchant-desk.bridge` and `merchant-desk.token.<token>` (or `merchant-desk.code.<code>`),
// so the host judges it before the socket exists. Then JSON text frames:
//   ← {type:'welcome', token?}          the first frame: accepted (the token when a code was traded)
//   → {type:'call', id, method, input}
//   ← {type:'result', id, envelope}     envelope = {ok:true, value} | {ok:false, error:{code, message}}
//   ← {type:'events', batch}            one EngineEventBatch
// A refused credential closes the socket with 4401 and a reason.
import { buildBridge, type IpcCall, type MerchantDeskApi } from '../../../shared/ipc/bridge';
import type { IpcEnvelope } from '../../../shared/ipc/contract';
import type { EngineEventBatch } from '../../../shared/ipc/events';

/**
 * `unauthorized`: the host is up but refuses our token (it restarted with a new one), or the
 * page has none. Reconnects go on (slowly), and a token stored by another tab of this origin
 * (the new URL opened there) is tried at once.
 */
export type WebBridgeState = 'connecting' | 'open' | 'closed' | 'unauthorized';

/** Where the page keeps the web host's token between sockets and reloads. */
export interface TokenStore {
  read(): string | null;
  write(token: string): void;
  /** Calls back when another tab stores a new token; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

export interface WebBridgeOptions {
  /** Opens the socket offering `protocols` (tests under Node pass one that sends an Origin). */
  createSocket?: (url: string, protocols: string[]) => WebSocket;
  /** The token store; in a page, this origin's localStorage (see `pageCredentials`). */
  tokens?: TokenStore;
  /**
   * A credential from the page's URL, offered before the stored token and stored only once the
   * host accepts it (a link to this address with someone else's `?token=` cannot replace ours).
   */
  launch?: LaunchCredential | null;
  /** How long a call made while disconnected waits for a connection before failing. */
  queueTimeoutMs?: number;
  /** Reconnect backoff: first delay, doubling up to the max, with jitter. */
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  /** Connection state changes, for a "connection lost" banner. */
  onStateChange?: (state: WebBridgeState) => void;
  /** Aborting closes the socket for good: no reconnects; pending and later calls fail with `unavailable`. */
  signal?: AbortSignal;
}

type Listener = (batch: EngineEventBatch) => void;
type Settle = (envelope: IpcEnvelope<unknown>) => void;

const OPEN = 1; // WebSocket.OPEN, without relying on a global WebSocket class
/** The host closes the socket on bigger messages; refuse them here so one call cannot drop every other. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** The close code of a credential the host refused. */
const UNAUTHORIZED_CLOSE = 4401;
/** As the host's bridgeAuth.ts names them. */
const BRIDGE_PROTOCOL = 'merchant-desk.bridge';
const TOKEN_PROTOCOL_PREFIX = 'merchant-desk.token.';
const CODE_PROTOCOL_PREFIX = 'merchant-desk.code.';
export const TOKEN_STORAGE_KEY = 'merchant-desk.web-token';

const lost = (): IpcEnvelope<never> => ({
  ok: false,
  error: { code: 'unavailable', message: 'Connection to Merchant Desk lost' },
});

function reportListenerError(error: unknown): void {
  if (typeof reportError === 'function') reportError(error);
  else console.error(error);
}

export type LaunchCredential = { token: string } | { code: string };

/** The subprotocol that carries a credential in the socket's upgrade. */
function credentialProtocol(credential: LaunchCredential): string {
  return 'token' in credential
    ? `${TOKEN_PROTOCOL_PREFIX}${credential.token}`
    : `${CODE_PROTOCOL_PREFIX}${credential.code}`;
}

/** A token held in memory only (Node callers; a page whose storage is unavailable). */
export function memoryTokenStore(token: string | null = null): TokenStore {
  let held = token;
  return {
    read: () => held,
    write: (next) => {
      held = next;
    },
    onChange: () => () => {},
  };
}

/** This origin's localStorage; other tabs' writes arrive as `storage` events. */
export function storageTokenStore(
  storage: Storage,
  events: Pick<Window, 'addEventListener' | 'removeEventListener'>,
): TokenStore {
  // Storage can refuse (disabled, quota): the page then keeps its token in memory for its lifetime.
  const fallback = memoryTokenStore();
  return {
    read: () => {
      try {
        return storage.getItem(TOKEN_STORAGE_KEY) ?? fallback.read();
      } catch {
        return fallback.read();
      }
    },
    write: (token) => {
      fallback.write(token);
      try {
        storage.setItem(TOKEN_STORAGE_KEY, token);
      } catch {
        // kept in memory
      }
    },
    onChange: (listener) => {
      const onStorage = (event: StorageEvent) => {
        if (event.key === TOKEN_STORAGE_KEY && event.newValue) listener();
      };
      events.addEventListener('storage', onStorage);
      return () => events.removeEventListener('storage', onStorage);
    },
  };
}

/** Takes `?token=` and `?code=` out of the page's URL (address bar and this history entry) and returns them. */
export function takeLaunchCredential(
  page: Pick<Location, 'href'>,
  history: Pick<History, 'replaceState' | 'state'>,
): LaunchCredential | null {
  const url = new URL(page.href);
  const token = url.searchParams.get('token');
  const code = url.searchParams.get('code');
  if (token === null && code === null) return null;
  url.searchParams.delete('token');
  url.searchParams.delete('code');
  try {
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
  } catch {
    // an opaque page: nothing to clean
  }
  return code ? { code } : token ? { token } : null;
}

/** The credentials of the page this script runs in. */
export function pageCredentials(): { tokens: TokenStore; launch: LaunchCredential | null } {
  let tokens: TokenStore;
  try {
    tokens = storageTokenStore(window.localStorage, window);
  } catch {
    tokens = memoryTokenStore();
  }
  return { tokens, launch: takeLaunchCredential(location, history) };
}

/** The bridge URL for a page served by the web host. */
export function bridgeUrl(page: Pick<URL, 'protocol' | 'host'>): string {
  return `${page.protocol === 'https:' ? 'wss:' : 'ws:'}//${page.host}/bridge`;
}

/**
 * Connects to the web host's bridge and returns the same `MerchantDeskApi` the Electron
 * preload exposes. Calls made before the host welcomes the socket are queued; a call already sent
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
    createSocket = (url: string, protocols: string[]) => new WebSocket(url, protocols),
    queueTimeoutMs = 15_000,
    reconnectInitialMs = 250,
    reconnectMaxMs = 10_000,
    onStateChange = () => {},
    signal,
  } = options;
  const pageUrl = typeof page === 'string' ? new URL(page) : page;
  const url = bridgeUrl(pageUrl);
  const inPage = options.tokens === undefined && typeof window !== 'undefined' ? pageCredentials() : null;
  const tokens = options.tokens ?? inPage?.tokens ?? memoryTokenStore();
  let launch = options.launch ?? inPage?.launch ?? null;
  /** Set while the host refuses our token: retries slow to the max delay. */
  let refused = false;

  let socket: WebSocket | null = null;
  /** The host welcomed `socket`: calls may go. */
  let ready = false;
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
      if (!ready || socket?.readyState !== OPEN) return;
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

  /** The host's first frame: a welcome, or nothing usable (the close that follows says why). */
  function welcome(ws: WebSocket, data: unknown, offered: LaunchCredential | null): void {
    let message: unknown;
    try {
      message = typeof data === 'string' ? JSON.parse(data) : null;
    } catch {
      message = null;
    }
    if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== 'welcome') {
      ws.close(1002, 'expected a welcome');
      return;
    }
    // The launch credential proved good: keep the token it stands for (a code is spent now).
    const traded = (message as { token?: unknown }).token;
    if (offered !== null) {
      if ('token' in offered) tokens.write(offered.token);
      else if (typeof traded === 'string' && traded !== '') tokens.write(traded);
      launch = null;
    }
    ready = true;
    attempt = 0;
    refused = false;
    onStateChange('open');
    flush();
  }

  function open(): void {
    if (signal?.aborted) return;
    const offered = launch;
    const stored = tokens.read();
    const credential = offered ?? (stored !== null ? { token: stored } : null);
    if (credential === null) {
      // Nothing to offer: wait for another tab of this origin to store a token.
      refused = true;
      onStateChange('unauthorized');
      return;
    }
    onStateChange('connecting');
    let ws: WebSocket;
    try {
      ws = createSocket(url, [BRIDGE_PROTOCOL, credentialProtocol(credential)]);
    } catch {
      onStateChange('closed');
      scheduleReconnect();
      return;
    }
    socket = ws;
    ready = false;
    ws.onmessage = (event: MessageEvent) => {
      if (socket !== ws) return;
      if (ready) receive(event.data);
      else welcome(ws, event.data, offered);
    };
    ws.onerror = () => {
      // A close event always follows.
    };
    ws.onclose = (event: CloseEvent) => {
      if (socket !== ws) return;
      socket = null;
      ready = false;
      const pending = [...sent.values()];
      sent.clear();
      for (const settle of pending) settle(lost());
      if (event.code !== UNAUTHORIZED_CLOSE) {
        onStateChange('closed');
        scheduleReconnect();
        return;
      }
      if (offered !== null) {
        // A used, expired or foreign link: the token this origin already holds may still be good.
        launch = null;
        if (tokens.read() !== null) {
          onStateChange('closed');
          scheduleReconnect();
          return;
        }
      }
      refused = true;
      onStateChange('unauthorized');
      scheduleReconnect();
    };
  }

  const stopWatchingTokens = tokens.onChange(() => {
    // A fresh token from another tab: try it now, unless a socket is already on its way.
    if (signal?.aborted || socket !== null) return;
    clearTimeout(reconnectTimer);
    attempt = 0;
    open();
  });

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
      if (ready && socket?.readyState === OPEN) {
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
      stopWatchingTokens();
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
