import { describe, expect, it } from 'vitest';
import {
  type EndCause,
  MAX_RETRY_AFTER_MS,
  planRetry,
  type RetryCounters,
  type RetryPolicy,
} from '../../src/main/core/feed/retryPlan';

// random() = 0: no jitter, so each delay is its backoff's base.
const policy: RetryPolicy = {
  backoff: { initialMs: 1000, maxMs: 60_000, jitter: 0.5 },
  limitRetryMs: 300_000,
  refusedRetryMs: 5_000,
  maintenanceRetryMs: 30_000,
  pollIntervalMs: 15_000,
  serverLabel: 'Server',
  random: () => 0,
};
const fresh: RetryCounters = { attempt: 0, maintenance: 0, refused: 0 };
const refused = (status: number, error: string | null = null, retryAfterMs: number | null = null): EndCause => ({
  kind: 'refused',
  refusal: { status, error, retryAfterMs },
});
const closed = (code: number): EndCause => ({ kind: 'closed', code, reason: '' });

type Row = [
  what: string,
  cause: EndCause,
  counters: RetryCounters,
  plan: { kind: string; state?: string; delayMs?: number; cause: string },
];

const table: Row[] = [
  ['a 401 halts', refused(401, 'unauthorized'), fresh, { kind: 'halt', cause: 'http 401 unauthorized' }],
  ['changed credentials (4001) halt', closed(4001), fresh, { kind: 'halt', cause: 'close 4001' }],
  [
    'the IP allowlist is retried slowly',
    refused(403, 'ip_not_allowed'),
    fresh,
    { kind: 'retry', state: 'unauthorized', delayMs: 300_000, cause: 'http 403 ip_not_allowed' },
  ],
  [
    'another 403 is polled, retried from 5 s',
    refused(403),
    fresh,
    { kind: 'retry', state: 'polling', delayMs: 5_000, cause: 'http 403' },
  ],
  [
    'a 429 doubles with each refusal',
    refused(429),
    { ...fresh, refused: 2 },
    { kind: 'retry', state: 'polling', delayMs: 20_000, cause: 'http 429' },
  ],
  [
    'never before a Retry-After',
    refused(429, null, 90_000),
    fresh,
    { kind: 'retry', state: 'polling', delayMs: 90_000, cause: 'http 429' },
  ],
  [
    'a Retry-After is honoured up to its cap',
    refused(429, null, 3_600_000),
    fresh,
    { kind: 'retry', delayMs: MAX_RETRY_AFTER_MS, cause: 'http 429' },
  ],
  [
    'the connection limit (4008) is polled',
    closed(4008),
    fresh,
    { kind: 'retry', state: 'polling', delayMs: 5_000, cause: 'close 4008' },
  ],
  [
    'maintenance (503) from its own base',
    refused(503, 'maintenance'),
    fresh,
    { kind: 'retry', state: 'maintenance', delayMs: 30_000, cause: 'http 503 maintenance' },
  ],
  [
    'maintenance (4503), the third time',
    closed(4503),
    { ...fresh, maintenance: 2 },
    { kind: 'retry', state: 'maintenance', delayMs: 60_000, cause: 'close 4503' },
  ],
  [
    'a network error is offline with backoff',
    { kind: 'network', code: 'ECONNREFUSED', message: 'refused' },
    fresh,
    { kind: 'retry', state: 'offline', delayMs: 1_000, cause: 'ECONNREFUSED' },
  ],
  [
    'a drop reconnects, doubling',
    closed(1006),
    { ...fresh, attempt: 3 },
    { kind: 'retry', state: 'reconnecting', delayMs: 8_000, cause: 'close 1006' },
  ],
  [
    'a silent connection is dead',
    { kind: 'dead', silentMs: 25_000 },
    fresh,
    { kind: 'retry', state: 'reconnecting', delayMs: 1_000, cause: 'no data for 25 s' },
  ],
  [
    'another 5xx reconnects, after its Retry-After',
    refused(502, null, 7_000),
    fresh,
    { kind: 'retry', state: 'reconnecting', delayMs: 7_000, cause: 'http 502' },
  ],
];

describe('the feed reconnect plan: what follows from why a connection ended', () => {
  it.each(table)('%s', (_what, cause, counters, plan) => {
    expect(planRetry(cause, counters, policy)).toMatchObject(plan);
  });

  it('counts each kind of failure on its own, and resets the maintenance count on anything else', () => {
    const busy: RetryCounters = { attempt: 2, maintenance: 3, refused: 4 };
    expect(planRetry(closed(4503), busy, policy).counters).toEqual({ attempt: 2, maintenance: 4, refused: 4 });
    expect(planRetry(closed(4008), busy, policy).counters).toEqual({ attempt: 2, maintenance: 0, refused: 5 });
    expect(planRetry(closed(1006), busy, policy).counters).toEqual({ attempt: 3, maintenance: 0, refused: 4 });
    expect(planRetry(refused(401), busy, policy).counters).toBe(busy);
  });

  it('words the wait and the attempt', () => {
    const plan = planRetry(closed(1006), fresh, policy);
    if (plan.kind !== 'retry') throw new Error('expected a retry');
    expect(plan.detailLater(3_000)).toMatch(/3 s/);
    expect(plan.detailNow()).not.toBe(plan.detailLater(3_000));
  });
});
