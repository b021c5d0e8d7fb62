import type { ClientRequest, IncomingMessage } from 'node:http';
import { type ClientOptions, type RawData, WebSocket } from 'ws';
import type { FeedFrame } from '../../../shared/api';
import { FEED_CLOSE_CODES, WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT, feedFrameSchema } from '../../../shared/api';
import type { ConnectionState, ConnectionStatus } from '../../../shared/ipc/models';
import { toUtcIso } from '../../../shared/time';
import { type BackoffOptions, backoffDelay, resolveBackoff } from './backoff';
import { DETAIL, describeNetworkError, formatDelay } from './detail';
import { parseHotFrame } from './hotFrames';
import { warmFrameValidationOnce } from './warmUp';

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

type Listener<A extends unknown[]> = (...args: A) => void;

interface Refusal {
  status: number;
  error: string | null;
  retryAfterMs: number | null;
}

/** Why one connection (or connection attempt) ended. */
type EndCause =
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'network'; code: string | null; message: string }
  | { kind: 'closed'; code: number; reason: string }
  | { kind: 'dead'; silentMs: number };

/** One WebSocket, from the upgrade request to its end. */
interface Attempt {
  readonly ws: WebSocket;
  opened: boolean;
  ended: boolean;
  refusal: Refusal | null;
  error: { code: string | null; message: string } | null;
  lastSeen: number;
  pingTimer: NodeJS.Timeout | null;
  watchdog: NodeJS.Timeout | null;
  healthyTimer: NodeJS.Timeout | null;
}

const DEFAULTS = {
  heartbeatIntervalMs: 10_000,
  deadAfterMs: 25_000,
  limitRetryMs: 5 * 60_000,
  refusedRetryMs: 5_000,
  maintenanceRetryMs: 30_000,
  healthyAfterMs: 30_000,
  pollIntervalMs: 15_000,
  serverLabel: 'Server',
} as const;

/** Largest refusal body read (the API's `{error, message}` envelope is tiny). */
const REFUSAL_BODY_MAX_BYTES = 8 * 1024;
const REFUSAL_BODY_TIMEOUT_MS = 2000;
/** A server's Retry-After is honoured up to this. */
const MAX_RETRY_AFTER_MS = 10 * 60_000;
/** stop() waits this long for the close handshake, then cuts the socket. */
const CLOSE_GRACE_MS = 1000;
const NORMAL_CLOSURE = 1000;

const noop = () => {};

/**
 * The one live WebSocket feed of an account.
 *
 * Connects with the account's `x-api-key` / `x-merchant-id`, validates every frame
 * against the shared schema, keeps the connection honest with pings and a silence
 * watchdog, and reconnects with exponential backoff and jitter. At most one
 * connection attempt is ever in flight, and none starts before its time.
 *
 * States: `connecting` → `connected` (after the server's `connected` frame, when
 * `onConnected` fires so the engine can reconcile what it missed); after a drop
 * `reconnecting`; `offline` while the server cannot be reached; `maintenance` on 503
 * or close 4503; `polling` while the server refuses the feed for the connection limit (4008), with any other
 * 403 or a 429 at the upgrade (the engine polls REST; the feed is retried from `refusedRetryMs` backing off
 * to `limitRetryMs`); `unauthorized` on 401 or close 4001, where it stops until `restart()`; `unauthorized`
 * with slow retries (`limitRetryMs`) on 403 ip_not_allowed.
 */
export class FeedConnection {
  private wsUrlValue: string;
  private merchantIdValue: string;
  /** A true private field: not shown by util.inspect or JSON.stringify. */
  #apiKey: string;

  private readonly heartbeatIntervalMs: number;
  private readonly deadAfterMs: number;
  private readonly backoff: BackoffOptions;
  private readonly limitRetryMs: number;
  private readonly refusedRetryMs: number;
  private readonly maintenanceRetryMs: number;
  private readonly healthyAfterMs: number;
  private readonly pollIntervalMs: number;
  private readonly serverLabel: string;
  private readonly random: () => number;
  private readonly WebSocketImpl: WebSocketConstructor;
  private readonly log: (level: 'info' | 'warn', message: string) => void;

  private running = false;
  /** Bumped by restart() and stop(), so a restart that waited for the old socket does not start after a later stop(). */
  private generation = 0;
  private current: Attempt | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Consecutive failed attempts; drives the backoff. */
  private attempt = 0;
  /** Consecutive maintenance answers; drives the maintenance backoff. */
  private maintenanceCount = 0;
  /** Consecutive refusals of the feed (4008, 403, 429); drives their backoff. */
  private refusedCount = 0;
  private status: FeedStatus;
  private readonly statsValue: FeedStats = {
    upgradeAttempts: 0,
    connects: 0,
    frames: 0,
    malformedFrames: 0,
    listenerErrors: 0,
  };

  private readonly frameListeners = new Set<Listener<[FeedFrame]>>();
  private readonly stateListeners = new Set<Listener<[FeedStatus]>>();
  private readonly connectedListeners = new Set<Listener<[]>>();
  private readonly problemListeners = new Set<Listener<[FeedProblem]>>();

  constructor(endpoint: FeedEndpoint, options: FeedConnectionOptions = {}) {
    this.wsUrlValue = endpoint.wsUrl;
    this.merchantIdValue = endpoint.merchantId;
    this.#apiKey = endpoint.apiKey;
    this.heartbeatIntervalMs = positive(
      'heartbeatIntervalMs',
      options.heartbeatIntervalMs ?? DEFAULTS.heartbeatIntervalMs,
    );
    this.deadAfterMs = positive('deadAfterMs', options.deadAfterMs ?? DEFAULTS.deadAfterMs);
    if (this.deadAfterMs <= this.heartbeatIntervalMs) {
      // The server must get a chance to answer at least one ping before the connection is declared dead.
      throw new RangeError('deadAfterMs must be longer than heartbeatIntervalMs');
    }
    this.backoff = resolveBackoff(options.backoff);
    this.limitRetryMs = positive('limitRetryMs', options.limitRetryMs ?? DEFAULTS.limitRetryMs);
    this.refusedRetryMs = Math.min(
      this.limitRetryMs,
      positive('refusedRetryMs', options.refusedRetryMs ?? DEFAULTS.refusedRetryMs),
    );
    this.maintenanceRetryMs = positive('maintenanceRetryMs', options.maintenanceRetryMs ?? DEFAULTS.maintenanceRetryMs);
    this.healthyAfterMs = positive('healthyAfterMs', options.healthyAfterMs ?? DEFAULTS.healthyAfterMs);
    this.pollIntervalMs = positive('pollIntervalMs', options.pollIntervalMs ?? DEFAULTS.pollIntervalMs);
    this.serverLabel = options.serverLabel ?? DEFAULTS.serverLabel;
    this.random = options.random ?? Math.random;
    this.WebSocketImpl = options.WebSocketImpl ?? WebSocket;
    this.log = options.log ?? noop;
    this.status = Object.freeze({
      state: 'offline',
      detail: DETAIL.notStarted,
      nextAttemptAt: null,
      since: toUtcIso(Date.now()),
      attempt: 0,
      cause: null,
    });
  }

  // ---- Public API

  get wsUrl(): string {
    return this.wsUrlValue;
  }

  get merchantId(): string {
    return this.merchantIdValue;
  }

  /** The current status (an immutable snapshot). */
  get state(): FeedStatus {
    return this.status;
  }

  /** Counters for diagnostics and tests (a copy). */
  get stats(): FeedStats {
    return { ...this.statsValue };
  }

  /** Whether a socket is open or opening, or a retry is scheduled: false once the feed waits for nothing but restart(). */
  get hasPendingAttempt(): boolean {
    return this.current !== null || this.retryTimer !== null;
  }

  /** Whether start() was called and stop() was not. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Connects; no-op when already running. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.attempt = 0;
    this.maintenanceCount = 0;
    this.refusedCount = 0;
    this.setStatus('connecting', DETAIL.connecting, null, null);
    this.connect();
    // While the upgrade is on its way, not when the first frame arrives.
    warmFrameValidationOnce();
  }

  /**
   * Starts over now: drops the current connection or pending retry, resets the
   * backoff and connects, with new credentials when given. The way out of
   * `unauthorized`, and the "retry now" button of any other state.
   */
  async restart(update: Partial<FeedEndpoint> = {}): Promise<void> {
    if (update.wsUrl !== undefined) this.wsUrlValue = update.wsUrl;
    if (update.merchantId !== undefined) this.merchantIdValue = update.merchantId;
    if (update.apiKey !== undefined) this.#apiKey = update.apiKey;
    const generation = ++this.generation;
    this.clearRetryTimer();
    const previous = this.current;
    this.current = null;
    this.running = false;
    this.setStatus('connecting', DETAIL.connecting, null, null);
    // The old socket is gone before the new one is opened: never two connections of ours at once
    // (the API allows 3 per merchant, and the merchant's own systems may hold the others).
    if (previous) await this.dispose(previous);
    if (generation !== this.generation) return; // stop() or another restart() came meanwhile
    this.start();
  }

  /** Closes the connection (1000) and stops retrying; resolves once the socket is gone. */
  async stop(): Promise<void> {
    this.generation++;
    this.running = false;
    this.clearRetryTimer();
    const previous = this.current;
    this.current = null;
    this.setStatus('offline', DETAIL.stopped, null, null);
    if (previous) await this.dispose(previous);
  }

  /** Every valid frame, in order (the `connected` frame included). Returns an unsubscribe function. */
  onFrame(listener: (frame: FeedFrame) => void): () => void {
    return subscribe(this.frameListeners, listener);
  }

  /** Every status change. */
  onState(listener: (status: FeedStatus) => void): () => void {
    return subscribe(this.stateListeners, listener);
  }

  /** After each `connected` frame: reconcile what may have happened while disconnected. */
  onConnected(listener: () => void): () => void {
    return subscribe(this.connectedListeners, listener);
  }

  /** Malformed frames and throwing listeners; never fatal to the connection. */
  onProblem(listener: (problem: FeedProblem) => void): () => void {
    return subscribe(this.problemListeners, listener);
  }

  // ---- Connecting

  private connect(): void {
    if (!this.running || this.current !== null) return;
    let ws: WebSocket;
    try {
      ws = new this.WebSocketImpl(this.wsUrlValue, {
        headers: { 'x-api-key': this.#apiKey, 'x-merchant-id': this.merchantIdValue },
        handshakeTimeout: this.deadAfterMs,
        followRedirects: false,
      });
    } catch {
      // An invalid address will not fix itself: wait for restart() with another one.
      this.setStatus('offline', DETAIL.badAddress, null, 'invalid url');
      return;
    }
    this.statsValue.upgradeAttempts++;
    const attempt: Attempt = {
      ws,
      opened: false,
      ended: false,
      refusal: null,
      error: null,
      lastSeen: Date.now(),
      pingTimer: null,
      watchdog: null,
      healthyTimer: null,
    };
    this.current = attempt;
    ws.on('error', (error: Error & { code?: unknown; errors?: unknown }) => {
      attempt.error ??= { code: errorCode(error), message: error.message };
    });
    ws.on('unexpected-response', (_request: ClientRequest, response: IncomingMessage) =>
      this.onRefused(attempt, response),
    );
    ws.on('open', () => this.onOpen(attempt));
    ws.on('message', (data: RawData, isBinary: boolean) => this.onMessage(attempt, data, isBinary));
    ws.on('ping', () => this.markAlive(attempt));
    ws.on('pong', () => this.markAlive(attempt));
    ws.on('close', (code: number, reason: Buffer) => this.onClose(attempt, code, reason.toString()));
  }

  /** The upgrade was answered with a plain HTTP status: read the `{error}` of the body, then drop the socket. */
  private onRefused(attempt: Attempt, response: IncomingMessage): void {
    const refusal: Refusal = {
      status: response.statusCode ?? 0,
      error: null,
      retryAfterMs: parseRetryAfter(response.headers['retry-after']),
    };
    attempt.refusal = refusal;
    void readBody(response).then((text) => {
      refusal.error = errorField(text);
      attempt.ws.terminate();
    });
  }

  private onOpen(attempt: Attempt): void {
    if (attempt.ended) return;
    attempt.opened = true;
    attempt.lastSeen = Date.now();
    attempt.pingTimer = setInterval(() => {
      if (attempt.ws.readyState !== WebSocket.OPEN) return;
      try {
        attempt.ws.ping();
      } catch {
        // The socket is closing; 'close' follows.
      }
    }, this.heartbeatIntervalMs);
    this.armWatchdog(attempt, this.deadAfterMs);
  }

  private onClose(attempt: Attempt, code: number, reason: string): void {
    if (attempt.refusal) this.end(attempt, { kind: 'refused', refusal: attempt.refusal });
    else if (!attempt.opened) {
      this.end(attempt, {
        kind: 'network',
        code: attempt.error?.code ?? null,
        message: attempt.error?.message ?? 'connection failed',
      });
    } else this.end(attempt, { kind: 'closed', code, reason });
  }

  // ---- Liveness

  private markAlive(attempt: Attempt): void {
    attempt.lastSeen = Date.now();
  }

  /**
   * One timer per connection, re-armed lazily: a busy feed costs a Date.now() per
   * message, not a timer reset. Fires at most deadAfterMs after the last sign of life.
   */
  private armWatchdog(attempt: Attempt, delayMs: number): void {
    attempt.watchdog = setTimeout(() => {
      attempt.watchdog = null;
      if (attempt.ended) return;
      const silentMs = Date.now() - attempt.lastSeen;
      if (silentMs >= this.deadAfterMs) {
        // Half-open TCP: no FIN will ever come. Cut it and move on without waiting for 'close'.
        attempt.ws.terminate();
        this.end(attempt, { kind: 'dead', silentMs });
        return;
      }
      this.armWatchdog(attempt, this.deadAfterMs - silentMs);
    }, delayMs);
  }

  // ---- Frames

  private onMessage(attempt: Attempt, data: RawData, isBinary: boolean): void {
    if (attempt.ended) return;
    this.markAlive(attempt);
    const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) {
      this.malformed(`Binary feed frame ignored (${buffer.length} bytes)`);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(buffer.toString('utf8'));
    } catch {
      this.malformed(`Feed frame is not JSON (${buffer.length} bytes)`);
      return;
    }
    const hot = parseHotFrame(json);
    const parsed = hot ? ({ success: true, data: hot } as const) : feedFrameSchema.safeParse(json);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'frame'}: ${issue.message}`)
        .join('; ');
      this.malformed(`Invalid feed frame${typeLabel(json)}: ${issues}`.slice(0, 300));
      return;
    }
    const frame = parsed.data;
    this.statsValue.frames++;
    if (frame.type === 'connected') {
      this.onConnectedFrame(attempt, frame);
      return;
    }
    this.emit(this.frameListeners, 'frame', frame);
  }

  private onConnectedFrame(attempt: Attempt, frame: Extract<FeedFrame, { type: 'connected' }>): void {
    if (frame.merchantId !== this.merchantIdValue) {
      this.problem('unexpected-merchant', `The feed says it is connected as another merchant (${frame.merchantId})`);
    }
    this.statsValue.connects++;
    this.maintenanceCount = 0;
    this.refusedCount = 0;
    if (attempt.healthyTimer) clearTimeout(attempt.healthyTimer);
    attempt.healthyTimer = setTimeout(() => {
      attempt.healthyTimer = null;
      if (attempt.ended || this.current !== attempt) return;
      this.attempt = 0;
      this.setStatus('connected', DETAIL.connected, null, null);
    }, this.healthyAfterMs);
    this.setStatus('connected', DETAIL.connected, null, null);
    this.emit(this.frameListeners, 'frame', frame);
    if (this.current === attempt) this.emit(this.connectedListeners, 'connected');
  }

  private malformed(message: string): void {
    this.statsValue.malformedFrames++;
    this.problem('malformed-frame', message);
  }

  // ---- After a connection ends

  /** Idempotent: the first cause wins; later events of that socket are ignored. */
  private end(attempt: Attempt, cause: EndCause): void {
    if (attempt.ended) return;
    attempt.ended = true;
    clearAttemptTimers(attempt);
    if (this.current !== attempt) return;
    this.current = null;
    if (!this.running) return;
    this.decide(cause);
  }

  private decide(cause: EndCause): void {
    switch (cause.kind) {
      case 'refused': {
        const { status, error, retryAfterMs } = cause.refusal;
        const tag = `http ${status}${error ? ` ${error}` : ''}`;
        if (status === 401) {
          this.halt(DETAIL.unauthorized, tag);
          return;
        }
        if (status === 403 && error === 'ip_not_allowed') {
          // The IP allowlist: the merchant fixes it in the portal, not in this app; retry slowly.
          this.maintenanceCount = 0;
          this.schedule('unauthorized', this.limitRetryMs, DETAIL.ipNotAllowedIn, () => DETAIL.ipNotAllowedNow, tag);
          return;
        }
        if (status === 403 || status === 429) {
          // Any other refusal of the feed alone (a proxy, a limit we cannot classify): the REST API may
          // still answer, so the engine polls trades while the feed is retried. Only a 401 halts.
          this.retryRefused(
            retryAfterMs,
            (ms) => DETAIL.feedRefusedIn(tag, this.pollIntervalMs, ms),
            () => DETAIL.feedRefusedNow(tag, this.pollIntervalMs),
            tag,
          );
          return;
        }
        if (status === 503 && (error === 'maintenance' || error === null)) {
          this.retryMaintenance(tag);
          return;
        }
        this.retryWithBackoff('reconnecting', tag, retryAfterMs);
        return;
      }
      case 'network':
        this.retryWithBackoff(
          'offline',
          cause.code ?? describeNetworkError(null, cause.message),
          null,
          describeNetworkError(cause.code, cause.message),
        );
        return;
      case 'closed': {
        const tag = `close ${cause.code}`;
        if (cause.code === FEED_CLOSE_CODES.credentialsChanged) {
          this.halt(DETAIL.credentialsChanged, tag);
          return;
        }
        if (cause.code === FEED_CLOSE_CODES.maintenance) {
          this.retryMaintenance(tag);
          return;
        }
        if (cause.code === FEED_CLOSE_CODES.connectionLimit) {
          // Often our own connection that just dropped, still counted by the server for a moment.
          this.retryRefused(
            null,
            (ms) => DETAIL.connectionLimitIn(WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT, this.pollIntervalMs, ms),
            () => DETAIL.connectionLimitNow(WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT, this.pollIntervalMs),
            tag,
          );
          return;
        }
        this.retryWithBackoff('reconnecting', tag, null);
        return;
      }
      case 'dead':
        this.retryWithBackoff('reconnecting', `no data for ${formatDelay(cause.silentMs)}`, null);
        return;
    }
  }

  /** Stops retrying: credentials must change first (restart()). */
  private halt(detail: string, cause: string): void {
    this.log('warn', `feed: ${detail}`);
    this.setStatus('unauthorized', detail, null, cause);
  }

  private retryMaintenance(cause: string): void {
    this.maintenanceCount++;
    // Doubling from maintenanceRetryMs, never sooner: jitter spreads the later retries over [maintenanceRetryMs, base].
    const delay = Math.max(
      this.maintenanceRetryMs,
      backoffDelay(
        this.maintenanceCount,
        {
          ...this.backoff,
          initialMs: this.maintenanceRetryMs,
          maxMs: Math.max(this.backoff.maxMs, this.maintenanceRetryMs),
        },
        this.random,
      ),
    );
    this.schedule(
      'maintenance',
      delay,
      (ms) => DETAIL.maintenanceIn(this.serverLabel, ms),
      () => DETAIL.maintenanceNow(this.serverLabel),
      cause,
    );
  }

  /**
   * A refusal of the feed is often over in seconds: retry from `refusedRetryMs`, doubling up to `limitRetryMs`,
   * jittered, never before a Retry-After. The state is `polling`: the engine keeps trades current over REST.
   */
  private retryRefused(
    retryAfterMs: number | null,
    detailLater: (ms: number) => string,
    detailNow: () => string,
    cause: string,
  ): void {
    this.maintenanceCount = 0;
    this.refusedCount++;
    let delay = backoffDelay(
      this.refusedCount,
      { ...this.backoff, initialMs: this.refusedRetryMs, maxMs: this.limitRetryMs },
      this.random,
    );
    if (retryAfterMs !== null) delay = Math.max(delay, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
    this.schedule('polling', delay, detailLater, detailNow, cause);
  }

  private retryWithBackoff(
    state: 'reconnecting' | 'offline',
    cause: string,
    retryAfterMs: number | null,
    words = cause,
  ): void {
    this.maintenanceCount = 0;
    this.attempt++;
    const attempt = this.attempt;
    let delay = backoffDelay(attempt, this.backoff, this.random);
    if (retryAfterMs !== null) delay = Math.max(delay, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
    if (state === 'offline') {
      this.schedule(
        state,
        delay,
        (ms) => DETAIL.offlineIn(words, ms, attempt),
        () => DETAIL.offlineNow(words, attempt),
        cause,
      );
    } else {
      this.schedule(
        state,
        delay,
        (ms) => DETAIL.reconnectingIn(ms, attempt),
        () => DETAIL.reconnectingNow(attempt),
        cause,
      );
    }
  }

  /** The one place a retry is scheduled: a single timer, never two, and never an attempt while one is in flight. */
  private schedule(
    state: ConnectionState,
    delayMs: number,
    detailLater: (ms: number) => string,
    detailNow: () => string,
    cause: string,
  ): void {
    this.clearRetryTimer();
    const dueAt = Date.now() + delayMs;
    this.setStatus(state, detailLater(delayMs), dueAt, cause);
    this.log('info', `feed: ${this.status.detail} [${cause}]`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.running || this.current !== null) return;
      this.setStatus(state, detailNow(), null, cause);
      this.connect();
    }, delayMs);
  }

  private clearRetryTimer(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Closes a socket we no longer want; resolves once it is gone. */
  private dispose(attempt: Attempt): Promise<void> {
    attempt.ended = true;
    clearAttemptTimers(attempt);
    const { ws } = attempt;
    if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const cut = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
      const giveUp = setTimeout(resolve, CLOSE_GRACE_MS * 2);
      ws.once('close', () => {
        clearTimeout(cut);
        clearTimeout(giveUp);
        resolve();
      });
      if (ws.readyState === WebSocket.OPEN) ws.close(NORMAL_CLOSURE, 'client stopping');
      else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    });
  }

  // ---- Status and listeners

  private setStatus(
    state: ConnectionState,
    detail: string,
    nextAttemptAtMs: number | null,
    cause: string | null,
  ): void {
    const previous = this.status;
    const nextAttemptAt = nextAttemptAtMs === null ? null : toUtcIso(nextAttemptAtMs);
    if (
      previous.state === state &&
      previous.detail === detail &&
      previous.nextAttemptAt === nextAttemptAt &&
      previous.cause === cause &&
      previous.attempt === this.attempt
    ) {
      return;
    }
    this.status = Object.freeze({
      state,
      detail,
      nextAttemptAt,
      since: previous.state === state ? previous.since : toUtcIso(Date.now()),
      attempt: this.attempt,
      cause,
    });
    this.emit(this.stateListeners, 'state', this.status);
  }

  private problem(kind: FeedProblem['kind'], message: string): void {
    this.log('warn', `feed: ${message}`);
    const problem: FeedProblem = { kind, message, at: toUtcIso(Date.now()) };
    for (const listener of [...this.problemListeners]) {
      try {
        listener(problem);
      } catch {
        // A throwing problem listener has nowhere left to report to.
      }
    }
  }

  private emit<A extends unknown[]>(listeners: Set<Listener<A>>, name: string, ...args: A): void {
    for (const listener of [...listeners]) {
      try {
        listener(...args);
      } catch (error) {
        this.statsValue.listenerErrors++;
        this.problem(
          'listener-error',
          `A ${name} listener threw: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
}

// ---- Helpers

function subscribe<T>(set: Set<T>, listener: T): () => void {
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}

function clearAttemptTimers(attempt: Attempt): void {
  if (attempt.pingTimer) clearInterval(attempt.pingTimer);
  if (attempt.watchdog) clearTimeout(attempt.watchdog);
  if (attempt.healthyTimer) clearTimeout(attempt.healthyTimer);
  attempt.pingTimer = null;
  attempt.watchdog = null;
  attempt.healthyTimer = null;
}

function positive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value))
    throw new RangeError(`${name} must be a positive number of milliseconds`);
  return value;
}

/** `code` of a network error; Node's happy-eyeballs connect reports an AggregateError whose parts carry it. */
function errorCode(error: { code?: unknown; errors?: unknown }): string | null {
  if (typeof error.code === 'string') return error.code;
  if (Array.isArray(error.errors)) {
    for (const inner of error.errors as { code?: unknown }[]) if (typeof inner?.code === 'string') return inner.code;
  }
  return null;
}

/** Seconds or an HTTP date, as milliseconds from now. */
function parseRetryAfter(value: string | string[] | undefined): number | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** The refusal body, bounded in size and time; never throws. */
function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(finish, REFUSAL_BODY_TIMEOUT_MS);
    response.on('data', (chunk: Buffer) => {
      if (size >= REFUSAL_BODY_MAX_BYTES) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size >= REFUSAL_BODY_MAX_BYTES) finish();
    });
    response.on('end', finish);
    response.on('error', finish);
    response.on('close', finish);
  });
}

/** The `error` code of the API's `{error, message}` envelope, when the body is one. */
function errorField(text: string): string | null {
  try {
    const body: unknown = JSON.parse(text);
    if (body && typeof body === 'object' && 'error' in body && typeof body.error === 'string')
      return body.error.slice(0, 64);
  } catch {
    // Not JSON: the status alone decides.
  }
  return null;
}

/** ` (type "bogus")` when the invalid frame names a type, for the problem report. */
function typeLabel(json: unknown): string {
  if (json && typeof json === 'object' && 'type' in json && typeof json.type === 'string') {
    return ` (type ${JSON.stringify(json.type.slice(0, 40))})`;
  }
  return '';
}
