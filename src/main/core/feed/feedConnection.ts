import type { ClientRequest, IncomingMessage } from 'node:http';
import { type RawData, WebSocket } from 'ws';
import type { FeedFrame } from '../../../shared/api';
import { feedFrameSchema } from '../../../shared/api';
import type { ConnectionState } from '../../../shared/ipc/models';
import { toUtcIso } from '../../../shared/time';
import { resolveBackoff } from './backoff';
import { DETAIL } from './detail';
import {
  FEED_DEFAULTS,
  type FeedConnectionOptions,
  type FeedEndpoint,
  type FeedProblem,
  type FeedStats,
  type FeedStatus,
  type WebSocketConstructor,
} from './feedOptions';
import { readRefusal } from './refusal';
import { type EndCause, planRetry, type Refusal, type RetryCounters, type RetryPolicy } from './retryPlan';
import { parseHotFrame } from './hotFrames';
import { warmFrameValidationOnce } from './warmUp';

type Listener<A extends unknown[]> = (...args: A) => void;

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
  private readonly healthyAfterMs: number;
  private readonly retryPolicy: RetryPolicy;
  private readonly WebSocketImpl: WebSocketConstructor;
  private readonly log: (level: 'info' | 'warn', message: string) => void;

  private running = false;
  /** Bumped by restart() and stop(), so a restart that waited for the old socket does not start after a later stop(). */
  private generation = 0;
  private current: Attempt | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Consecutive failures of each kind, driving the backoffs (see retryPlan.ts). */
  private counters: RetryCounters = { attempt: 0, maintenance: 0, refused: 0 };
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
      options.heartbeatIntervalMs ?? FEED_DEFAULTS.heartbeatIntervalMs,
    );
    this.deadAfterMs = positive('deadAfterMs', options.deadAfterMs ?? FEED_DEFAULTS.deadAfterMs);
    if (this.deadAfterMs <= this.heartbeatIntervalMs) {
      // The server must get a chance to answer at least one ping before the connection is declared dead.
      throw new RangeError('deadAfterMs must be longer than heartbeatIntervalMs');
    }
    const limitRetryMs = positive('limitRetryMs', options.limitRetryMs ?? FEED_DEFAULTS.limitRetryMs);
    this.retryPolicy = {
      backoff: resolveBackoff(options.backoff),
      limitRetryMs,
      refusedRetryMs: Math.min(
        limitRetryMs,
        positive('refusedRetryMs', options.refusedRetryMs ?? FEED_DEFAULTS.refusedRetryMs),
      ),
      maintenanceRetryMs: positive(
        'maintenanceRetryMs',
        options.maintenanceRetryMs ?? FEED_DEFAULTS.maintenanceRetryMs,
      ),
      pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs ?? FEED_DEFAULTS.pollIntervalMs),
      serverLabel: options.serverLabel ?? FEED_DEFAULTS.serverLabel,
      random: options.random ?? Math.random,
    };
    this.healthyAfterMs = positive('healthyAfterMs', options.healthyAfterMs ?? FEED_DEFAULTS.healthyAfterMs);
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
    this.counters = { attempt: 0, maintenance: 0, refused: 0 };
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
    const { refusal, bodyRead } = readRefusal(response);
    attempt.refusal = refusal;
    void bodyRead.then(() => attempt.ws.terminate());
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
    this.counters = { ...this.counters, maintenance: 0, refused: 0 };
    if (attempt.healthyTimer) clearTimeout(attempt.healthyTimer);
    attempt.healthyTimer = setTimeout(() => {
      attempt.healthyTimer = null;
      if (attempt.ended || this.current !== attempt) return;
      this.counters = { ...this.counters, attempt: 0 };
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
    const plan = planRetry(cause, this.counters, this.retryPolicy);
    this.counters = plan.counters;
    if (plan.kind === 'halt') {
      // Stops retrying: credentials must change first (restart()).
      this.log('warn', `feed: ${plan.detail}`);
      this.setStatus('unauthorized', plan.detail, null, plan.cause);
      return;
    }
    this.schedule(plan.state, plan.delayMs, plan.detailLater, plan.detailNow, plan.cause);
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
      previous.attempt === this.counters.attempt
    ) {
      return;
    }
    this.status = Object.freeze({
      state,
      detail,
      nextAttemptAt,
      since: previous.state === state ? previous.since : toUtcIso(Date.now()),
      attempt: this.counters.attempt,
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

/** ` (type "bogus")` when the invalid frame names a type, for the problem report. */
function typeLabel(json: unknown): string {
  if (json && typeof json === 'object' && 'type' in json && typeof json.type === 'string') {
    return ` (type ${JSON.stringify(json.type.slice(0, 40))})`;
  }
  return '';
}
