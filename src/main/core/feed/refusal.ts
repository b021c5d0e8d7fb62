import type { IncomingMessage } from 'node:http';
import type { Refusal } from './retryPlan';

/** Largest refusal body read (the API's `{error, message}` envelope is tiny). */
const REFUSAL_BODY_MAX_BYTES = 8 * 1024;
const REFUSAL_BODY_TIMEOUT_MS = 2000;

/**
 * An upgrade answered with a plain HTTP status: its status and Retry-After at once; the `error` of its body is
 * filled in when `bodyRead` settles (bounded in size and time; never rejects).
 */
export function readRefusal(response: IncomingMessage): { refusal: Refusal; bodyRead: Promise<void> } {
  const refusal: Refusal = {
    status: response.statusCode ?? 0,
    error: null,
    retryAfterMs: parseRetryAfter(response.headers['retry-after']),
  };
  const bodyRead = readBody(response).then((text) => {
    refusal.error = errorField(text);
  });
  return { refusal, bodyRead };
}

/** Seconds or an HTTP date, as milliseconds from now. */
function parseRetryAfter(value: string | string[] | undefined): number | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

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
