import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError } from 'fastify';
import { ApiError } from '../domain/apiError';

/** How long the sandbox waits for a client (docs/sandbox.md). */
export interface HttpTimeouts {
  /** Headers due this long after a request's first byte, or after the connection opens. */
  headersMs: number;
  /** The whole request, body included, due this long after its first byte. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this long. */
  idleMs: number;
}

/** A socket-level failure as Node reports it: parser errors carry an `HPE_*` code. */
interface ConnectionError extends Error {
  code?: string;
}

/** The parts of Node's socket state that say whether an answer is already on its way. */
interface HttpSocket extends Socket {
  _httpMessage?: { headersSent?: boolean } | null;
}

/** Once the answer is written, the client has this long to read it before the socket is destroyed. */
const LINGER_MS = 1000;

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** Node's settings for the timeouts: headers never later than the whole request (Node refuses that). */
export function nodeServerTimeouts(timeouts: HttpTimeouts) {
  const headersTimeout = Math.min(timeouts.headersMs, timeouts.requestMs);
  return {
    headersTimeout,
    requestTimeout: timeouts.requestMs,
    // Node checks the two above only this often: a fraction of the shorter, at most once a second.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

/** The envelope for what failed before fastify had a request: a time-out or an unparsable request. */
export function clientErrorAnswer(error: ConnectionError, timeouts: HttpTimeouts): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(
      408,
      'request_timeout',
      `The request did not arrive in time: headers are due within ${seconds(timeouts.headersMs)}, the whole request within ${seconds(timeouts.requestMs)}`,
    );
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'invalid_request', `The request line and headers exceed ${maxHeaderSize} bytes`);
  }
  return new ApiError(400, 'invalid_request', `Malformed HTTP request${error.code ? ` (${error.code})` : ''}`);
}

/**
 * fastify's `clientErrorHandler`: answers in the `{error, message}` envelope on the raw socket
 * (no request exists yet, so no Accept-Encoding either: plain JSON), then closes it. Nothing is
 * written when an answer has already begun, so a peer never reads two.
 */
export function createClientErrorHandler(timeouts: HttpTimeouts) {
  return function onClientError(error: ConnectionError, socket: HttpSocket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (!socket.writable || socket._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(error, timeouts);
    const json = JSON.stringify(answer.toBody());
    const head = [
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}`,
      'Connection: close',
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(json)}`,
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${json}`);
    // Ending, not destroying at once: a reset could drop the answer before the client reads it.
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/** fastify's own URL failures (bad percent-escape, a path segment over 100 characters) as the envelope. */
export function frameworkErrorAnswer(error: FastifyError): ApiError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new ApiError(414, 'invalid_request', 'A path segment exceeds 100 characters');
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return new ApiError(400, 'invalid_request', 'Malformed URL: a percent-escape in the path is not valid UTF-8');
  }
  return new ApiError(400, 'invalid_request', 'Malformed request');
}
