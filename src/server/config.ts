import { DAY_MS, MINUTE_MS, SECOND_MS } from '../shared/time';

/**
 * The sandbox's own choices where the spec says "not shown".
 * Each is listed with its reason in docs/sandbox.md; change both together.
 */
export const SANDBOX_CHOICES = {
  /** A completed trade can be reversed for this long (stage 1), then stage 2. */
  endProtectionMs: 7 * DAY_MS,
  /** A partner block lasts this long from the strike that tripped it. */
  partnerBlockMs: 1 * DAY_MS,
  /** Largest accepted request body. */
  bodyLimitBytes: 1024 * 1024,
  /** Consecutive failed webhook deliveries that trip the breaker. */
  webhookBreakerThreshold: 5,
  /** One delivery attempt waits this long for an answer. */
  webhookTimeoutMs: 5 * SECOND_MS,
  /** Delays before the 2nd, 3rd and 4th attempt of one webhook (then it is `failed`). */
  webhookRetryDelaysMs: [10 * SECOND_MS, MINUTE_MS, 5 * MINUTE_MS] as readonly number[],
  /** Item catalog size generated at first start. */
  defaultItemCount: 20_000,
  maxItemCount: 1_000_000,
  /** Ping interval of the WebSocket feed; a peer that has not answered the previous ping is dropped. */
  feedPingIntervalMs: 15 * SECOND_MS,
  /** A request's headers are due this long after its first byte (or after the connection opens): 408 after. */
  headersTimeoutMs: 10 * SECOND_MS,
  /** The whole request, body included, is due this long after its first byte: 408 after. */
  requestTimeoutMs: 30 * SECOND_MS,
  /** A keep-alive connection idle this long after an answer is closed. */
  idleTimeoutMs: 10 * SECOND_MS,
} as const;

/** A merchant created by the CLI so the sandbox is usable at once. */
export const DEMO_MERCHANT = {
  merchantId: 'demo',
  balance: 500_000_00,
  creditLimit: 0,
} as const;
