import { SANDBOX_CHOICES } from '../config';
import { signWebhookBody } from './signature';

export type WebhookKind = 'trade_updated' | 'item_removed' | 'refresh_catalog' | 'test';

export interface AttemptResult {
  /** A 2xx answer. */
  ok: boolean;
  httpStatus: number | null;
  /** Why the attempt failed (no secrets: never the key, the signature or request headers). */
  error: string | null;
  /** Stopped by the dispatcher itself (reset or shutdown), not a failure of the receiver. */
  aborted: boolean;
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return `network error: ${cause.code}`;
  if (cause && typeof cause.message === 'string') return `network error: ${cause.message}`;
  return `network error: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * One delivery attempt: POST the already-serialised body, signed over those exact bytes.
 * Redirects are not followed (a 3xx is a failure); the attempt times out after
 * SANDBOX_CHOICES.webhookTimeoutMs of real time.
 */
export async function postWebhook(
  url: string,
  kind: WebhookKind,
  body: string,
  secret: string,
  cancel: AbortSignal,
): Promise<AttemptResult> {
  const timeoutMs = SANDBOX_CHOICES.webhookTimeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-webhook-type': kind,
        'x-signature': signWebhookBody(body, secret),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([timeout, cancel]),
    });
    // The answer's body is not used; drop it so the connection is freed.
    await response.body?.cancel().catch(() => {});
    const status = response.status;
    const ok = status >= 200 && status < 300;
    if (ok) return { ok, httpStatus: status, error: null, aborted: false };
    const error =
      status === 0
        ? 'redirect not followed'
        : status >= 300 && status < 400
          ? `HTTP ${status} (redirects are not followed)`
          : `HTTP ${status}`;
    return { ok, httpStatus: status === 0 ? null : status, error, aborted: false };
  } catch (error) {
    if (cancel.aborted) return { ok: false, httpStatus: null, error: 'aborted by the sandbox', aborted: true };
    if (timeout.aborted) return { ok: false, httpStatus: null, error: `timeout after ${timeoutMs} ms`, aborted: false };
    return { ok: false, httpStatus: null, error: describeNetworkError(error), aborted: false };
  }
}
