import { FEED_CLOSE_CODES, WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT } from '../../../shared/api';
import type { ConnectionState } from '../../../shared/ipc/models';
import { type BackoffOptions, backoffDelay } from './backoff';
import { DETAIL, describeNetworkError, formatDelay } from './detail';

/** The server's plain-HTTP answer to an upgrade. */
export interface Refusal {
  status: number;
  error: string | null;
  retryAfterMs: number | null;
}

/** Why one connection (or connection attempt) ended. */
export type EndCause =
  | { kind: 'refused'; refusal: Refusal }
  | { kind: 'network'; code: string | null; message: string }
  | { kind: 'closed'; code: number; reason: string }
  | { kind: 'dead'; silentMs: number };

/** Consecutive failures of each kind; each drives its own backoff. */
export interface RetryCounters {
  /** Failed attempts (drops, network errors). */
  attempt: number;
  /** Maintenance answers. */
  maintenance: number;
  /** Refusals of the feed (4008, 403, 429). */
  refused: number;
}

export interface RetryPolicy {
  backoff: BackoffOptions;
  limitRetryMs: number;
  refusedRetryMs: number;
  maintenanceRetryMs: number;
  pollIntervalMs: number;
  serverLabel: string;
  random: () => number;
}

/** What to do after a connection ended: stop until the credentials change, or try again after a delay. */
export type RetryPlan =
  | { kind: 'halt'; detail: string; cause: string; counters: RetryCounters }
  | {
      kind: 'retry';
      state: ConnectionState;
      delayMs: number;
      /** The status's words while waiting, and once the attempt starts. */
      detailLater: (ms: number) => string;
      detailNow: () => string;
      cause: string;
      counters: RetryCounters;
    };

/** A server's Retry-After is honoured up to this. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The reconnect decision, a function of why the connection ended and the failures before it: a 401 or changed
 * credentials halt; the IP allowlist retries slowly; any other refusal of the feed is retried backing off while
 * the engine polls REST (only a 401 halts); maintenance backs off from its own base; the rest reconnect with
 * exponential backoff and jitter, never before a Retry-After.
 */
export function planRetry(cause: EndCause, counters: RetryCounters, policy: RetryPolicy): RetryPlan {
  switch (cause.kind) {
    case 'refused': {
      const { status, error, retryAfterMs } = cause.refusal;
      const tag = `http ${status}${error ? ` ${error}` : ''}`;
      if (status === 401) return { kind: 'halt', detail: DETAIL.unauthorized, cause: tag, counters };
      if (status === 403 && error === 'ip_not_allowed') {
        // The IP allowlist: the merchant fixes it in the portal, not in this app; retry slowly.
        return {
          kind: 'retry',
          state: 'unauthorized',
          delayMs: policy.limitRetryMs,
          detailLater: DETAIL.ipNotAllowedIn,
          detailNow: () => DETAIL.ipNotAllowedNow,
          cause: tag,
          counters: { ...counters, maintenance: 0 },
        };
      }
      if (status === 403 || status === 429) {
        // Any other refusal of the feed alone (a proxy, a limit we cannot classify): the REST API may
        // still answer, so the engine polls trades while the feed is retried.
        return refused(
          counters,
          policy,
          tag,
          retryAfterMs,
          (ms) => DETAIL.feedRefusedIn(tag, policy.pollIntervalMs, ms),
          () => DETAIL.feedRefusedNow(tag, policy.pollIntervalMs),
        );
      }
      if (status === 503 && (error === 'maintenance' || error === null)) return maintenance(counters, policy, tag);
      return withBackoff(counters, policy, 'reconnecting', tag, retryAfterMs);
    }
    case 'network':
      return withBackoff(
        counters,
        policy,
        'offline',
        cause.code ?? describeNetworkError(null, cause.message),
        null,
        describeNetworkError(cause.code, cause.message),
      );
    case 'closed': {
      const tag = `close ${cause.code}`;
      if (cause.code === FEED_CLOSE_CODES.credentialsChanged) {
        return { kind: 'halt', detail: DETAIL.credentialsChanged, cause: tag, counters };
      }
      if (cause.code === FEED_CLOSE_CODES.maintenance) return maintenance(counters, policy, tag);
      if (cause.code === FEED_CLOSE_CODES.connectionLimit) {
        // Often our own connection that just dropped, still counted by the server for a moment.
        const limit = WEBSOCKET_MAX_CONNECTIONS_PER_MERCHANT;
        return refused(
          counters,
          policy,
          tag,
          null,
          (ms) => DETAIL.connectionLimitIn(limit, policy.pollIntervalMs, ms),
          () => DETAIL.connectionLimitNow(limit, policy.pollIntervalMs),
        );
      }
      return withBackoff(counters, policy, 'reconnecting', tag, null);
    }
    case 'dead':
      return withBackoff(counters, policy, 'reconnecting', `no data for ${formatDelay(cause.silentMs)}`, null);
  }
}

/** Doubling from maintenanceRetryMs, never sooner: jitter spreads the later retries over [maintenanceRetryMs, base]. */
function maintenance(counters: RetryCounters, policy: RetryPolicy, cause: string): RetryPlan {
  const next = { ...counters, maintenance: counters.maintenance + 1 };
  const base = policy.maintenanceRetryMs;
  const backoff = { ...policy.backoff, initialMs: base, maxMs: Math.max(policy.backoff.maxMs, base) };
  return {
    kind: 'retry',
    state: 'maintenance',
    delayMs: Math.max(base, backoffDelay(next.maintenance, backoff, policy.random)),
    detailLater: (ms) => DETAIL.maintenanceIn(policy.serverLabel, ms),
    detailNow: () => DETAIL.maintenanceNow(policy.serverLabel),
    cause,
    counters: next,
  };
}

/**
 * A refusal of the feed is often over in seconds: retry from `refusedRetryMs`, doubling up to `limitRetryMs`,
 * jittered, never before a Retry-After. The state is `polling`: the engine keeps trades current over REST.
 */
function refused(
  counters: RetryCounters,
  policy: RetryPolicy,
  cause: string,
  retryAfterMs: number | null,
  detailLater: (ms: number) => string,
  detailNow: () => string,
): RetryPlan {
  const next = { ...counters, maintenance: 0, refused: counters.refused + 1 };
  const backoff = { ...policy.backoff, initialMs: policy.refusedRetryMs, maxMs: policy.limitRetryMs };
  const delayMs = notBefore(backoffDelay(next.refused, backoff, policy.random), retryAfterMs);
  return { kind: 'retry', state: 'polling', delayMs, detailLater, detailNow, cause, counters: next };
}

function withBackoff(
  counters: RetryCounters,
  policy: RetryPolicy,
  state: 'reconnecting' | 'offline',
  cause: string,
  retryAfterMs: number | null,
  words = cause,
): RetryPlan {
  const next = { ...counters, maintenance: 0, attempt: counters.attempt + 1 };
  const attempt = next.attempt;
  const delayMs = notBefore(backoffDelay(attempt, policy.backoff, policy.random), retryAfterMs);
  const offline = state === 'offline';
  return {
    kind: 'retry',
    state,
    delayMs,
    detailLater: offline ? (ms) => DETAIL.offlineIn(words, ms, attempt) : (ms) => DETAIL.reconnectingIn(ms, attempt),
    detailNow: offline ? () => DETAIL.offlineNow(words, attempt) : () => DETAIL.reconnectingNow(attempt),
    cause,
    counters: next,
  };
}

function notBefore(delayMs: number, retryAfterMs: number | null): number {
  return retryAfterMs === null ? delayMs : Math.max(delayMs, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}
