import type { ClientOptions, WebSocket } from 'ws';
import type { ConnectionStatus } from '../../../shared/ipc/models';
import type { BackoffOptions } from './backoff';

/** Where and as whom the feed connects. */
export interface FeedEndpoint {
  wsUrl: string;
  merchantId: string;
  apiKey: string;
}

/** The `ws` client class, or a subclass of it (tests count or wrap connections this way). */
export type WebSocketConstructor = new (address: string, options: ClientOptions) => WebSocket;

export interface FeedConnectionOptions {
  /** A protocol ping is sent this often while connected. */
  heartbeatIntervalMs?: number;
  /** Nothing received (frame, ping or pong) for this long: the connection is dead (half-open TCP); terminate and reconnect. */
  deadAfterMs?: number;
  /** Reconnect delays after a drop or a network error. */
  backoff?: Partial<BackoffOptions>;
  /**
   * Slowest retry of the feed while the server refuses it: the connection limit (4008), any 403 or 429. The IP
   * allowlist (403 ip_not_allowed) is retried at this period; the others back off up to it from `refusedRetryMs`.
   */
  limitRetryMs?: number;
  /** First retry after a refusal that is often short-lived (4008, a 403 other than the allowlist, a 429); doubles per refusal, jittered. */
  refusedRetryMs?: number;
  /** Base delay of the first retry during maintenance (503 / 4503); doubles per retry up to the backoff cap. */
  maintenanceRetryMs?: number;
  /** A connection that stayed up this long resets the attempt counter. */
  healthyAfterMs?: number;
  /** How often the engine polls REST while the feed is refused (only used in the status text). */
  pollIntervalMs?: number;
  /** Name of the server in status texts: `Sandbox` in demo mode. */
  serverLabel?: string;
  /** In [0, 1), for the jitter; Math.random by default. */
  random?: () => number;
  WebSocketImpl?: WebSocketConstructor;
  /** Diagnostics. Messages never contain the API key. */
  log?: (level: 'info' | 'warn', message: string) => void;
}

/** A ConnectionStatus with two fields for diagnostics. */
export interface FeedStatus extends ConnectionStatus {
  /** Consecutive failed attempts (reset after a connection stayed healthy for `healthyAfterMs`). */
  attempt: number;
  /** Short technical cause of the current state: `http 401`, `close 4008`, `ECONNREFUSED`, `no data for 25 s`… */
  cause: string | null;
}

export interface FeedProblem {
  kind: 'malformed-frame' | 'listener-error' | 'unexpected-merchant';
  message: string;
  at: string;
}

export interface FeedStats {
  /** WebSocket upgrade requests sent. */
  upgradeAttempts: number;
  /** `connected` frames received. */
  connects: number;
  /** Valid frames received (the `connected` frames included). */
  frames: number;
  malformedFrames: number;
  listenerErrors: number;
}

export const FEED_DEFAULTS = {
  heartbeatIntervalMs: 10_000,
  deadAfterMs: 25_000,
  limitRetryMs: 5 * 60_000,
  refusedRetryMs: 5_000,
  maintenanceRetryMs: 30_000,
  healthyAfterMs: 30_000,
  pollIntervalMs: 15_000,
  serverLabel: 'Server',
} as const;
