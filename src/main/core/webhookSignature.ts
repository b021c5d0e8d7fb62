import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The spec's webhook signature, one function for the sandbox (which signs its deliveries) and the engine (which
 * signs a replay the same way): `x-signature` is the lowercase hex HMAC-SHA256 of the exact body bytes, keyed with
 * the merchant's API key (the spec leaves the encoding open; the sandbox uses hex, docs/sandbox.md).
 */

/** Length of a hex SHA-256 digest. */
const HEX_SIGNATURE = /^[0-9a-f]{64}$/i;

export function signWebhookBody(body: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Receiver side: recomputes the HMAC over the raw body as received and compares it with the header in constant
 * time. Verify the raw bytes, never a re-serialised object.
 */
export function verifyWebhookSignature(body: string | Buffer, signature: string | undefined, secret: string): boolean {
  if (typeof signature !== 'string' || !HEX_SIGNATURE.test(signature)) return false;
  const expected = Buffer.from(signWebhookBody(body, secret), 'hex');
  const given = Buffer.from(signature, 'hex');
  return given.length === expected.length && timingSafeEqual(expected, given);
}
