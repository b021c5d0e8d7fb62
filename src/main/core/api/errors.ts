import type { z } from 'zod';
import { type HeaderSource, headerValue } from './headers';

export type ApiErrorKind = 'http' | 'timeout' | 'network' | 'schema' | 'aborted';

export interface ApiRequestErrorInit {
  kind: ApiErrorKind;
  endpoint: string;
  status?: number | null;
  code: string;
  message: string;
  retryable: boolean;
  retryAfterMs?: number | null;
  cause?: unknown;
}

/**
 * Every failure of a request to the Merchant Trading API. `code` is the
 * envelope's `error` for HTTP answers in the envelope, `http_<status>` for
 * answers without one (a proxy's HTML page), else `timeout`, `network_error`,
 * `invalid_response`, `aborted` or `not_sent` (withdrawn before it was written). `message` is the server's message as sent,
 * so `price_changed` keeps its new price.
 */
export class ApiRequestError extends Error {
  override readonly name = 'ApiRequestError';
  readonly kind: ApiErrorKind;
  readonly status: number | null;
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  readonly endpoint: string;

  constructor(init: ApiRequestErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.status = init.status ?? null;
    this.code = init.code;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.endpoint = init.endpoint;
  }

  toJSON() {
    const { kind, status, code, message, retryable, retryAfterMs, endpoint } = this;
    return { name: this.name, kind, status, code, message, retryable, retryAfterMs, endpoint };
  }
}

const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** `Retry-After` as delay-seconds or an HTTP date, in milliseconds from `nowMs`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

const SNIPPET_LENGTH = 120;

function describeBody(bodyText: string, contentType: string | null): string {
  if (bodyText.trim() === '') return 'an empty body';
  // Proxies answer with HTML pages; show their text, not their markup.
  const text = bodyText
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const snippet = text.length > SNIPPET_LENGTH ? `${text.slice(0, SNIPPET_LENGTH)}…` : text;
  return `a ${contentType?.split(';')[0] ?? 'non-JSON'} body${snippet ? `: "${snippet}"` : ''}`;
}

function readEnvelope(bodyText: string): { error: string; message: string | null } | null {
  try {
    const body: unknown = JSON.parse(bodyText);
    if (typeof body !== 'object' || body === null) return null;
    const { error, message } = body as Record<string, unknown>;
    if (typeof error !== 'string' || error === '') return null;
    return { error, message: typeof message === 'string' ? message : null };
  } catch {
    return null;
  }
}

/** The typed error of a non-2xx answer; copes with bodies that are not the `{error, message}` envelope. */
export function errorFromResponse(
  endpoint: string,
  status: number,
  headers: HeaderSource,
  bodyText: string,
  nowMs: number = Date.now(),
): ApiRequestError {
  const retryAfterMs = parseRetryAfter(headerValue(headers, 'retry-after'), nowMs);
  const retryable = isRetryableStatus(status);
  const envelope = readEnvelope(bodyText);
  if (envelope) {
    const message = envelope.message ?? `HTTP ${status} ${envelope.error} from ${endpoint}`;
    return new ApiRequestError({
      kind: 'http',
      endpoint,
      status,
      code: envelope.error,
      message,
      retryable,
      retryAfterMs,
    });
  }
  const message = `HTTP ${status} from ${endpoint} with ${describeBody(bodyText, headerValue(headers, 'content-type'))} (not the API's error envelope)`;
  return new ApiRequestError({
    kind: 'http',
    endpoint,
    status,
    code: `http_${status}`,
    message,
    retryable,
    retryAfterMs,
  });
}

const MAX_LISTED_ISSUES = 3;

function issuePath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) text += typeof key === 'number' ? `[${key}]` : `${text ? '.' : ''}${String(key)}`;
  return text || '(root)';
}

/** A 2xx answer that is not JSON or does not match the endpoint's schema; names the offending paths. */
export function schemaError(endpoint: string, problem: z.ZodError | string): ApiRequestError {
  let detail: string;
  if (typeof problem === 'string') {
    detail = problem;
  } else {
    const issues = problem.issues.map(
      (issue) => `${issuePath(issue.path)}: ${issue.message.replace(/^Invalid input: /, '')}`,
    );
    const more = issues.length > MAX_LISTED_ISSUES ? ` (and ${issues.length - MAX_LISTED_ISSUES} more)` : '';
    detail = issues.slice(0, MAX_LISTED_ISSUES).join('; ') + more;
  }
  return new ApiRequestError({
    kind: 'schema',
    endpoint,
    code: 'invalid_response',
    message: `invalid response from ${endpoint}: ${detail}`,
    retryable: false,
  });
}

export function timeoutError(endpoint: string, timeoutMs: number): ApiRequestError {
  return new ApiRequestError({
    kind: 'timeout',
    endpoint,
    code: 'timeout',
    message: `no answer from ${endpoint} within ${timeoutMs} ms`,
    retryable: true,
  });
}

export function networkError(endpoint: string, cause: unknown): ApiRequestError {
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED …) in its cause.
  const inner = cause instanceof Error && cause.cause instanceof Error ? cause.cause : cause;
  const reason = inner instanceof Error ? inner.message : String(inner);
  return new ApiRequestError({
    kind: 'network',
    endpoint,
    code: 'network_error',
    message: `network error calling ${endpoint}: ${reason}`,
    retryable: true,
    cause: inner,
  });
}

export function abortedError(endpoint: string): ApiRequestError {
  return new ApiRequestError({
    kind: 'aborted',
    endpoint,
    code: 'aborted',
    message: `request to ${endpoint} was cancelled`,
    retryable: false,
  });
}

/** The caller withdrew the request before it was written (its `admit` gave this reason): nothing left. */
export function notSentError(endpoint: string, reason: string): ApiRequestError {
  return new ApiRequestError({ kind: 'aborted', endpoint, code: 'not_sent', message: reason, retryable: false });
}

/** The new price in cents of a `price_changed` error (`Price changed; new price: <cents> ($x.yz)`), else null. */
export function newPriceOf(error: ApiRequestError): number | null {
  if (error.code !== 'price_changed') return null;
  const match = /new price:\s*(\d+)/.exec(error.message);
  return match ? Number(match[1]) : null;
}
