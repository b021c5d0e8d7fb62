/**
 * The part of `fetch` the API client uses, on node:http(s) with keep-alive
 * agents. Node's built-in fetch (undici) puts ~0.3 ms (p50) and up to ~6 ms
 * (p99) between the call and the request's first byte on loopback; node:http
 * ~0.05 ms. Auto-buy is a race, so the engine's client uses this.
 *
 * Supports: method, headers, a string body, an AbortSignal, gzip/deflate/br
 * response bodies (decompressed off the main thread). Answers a real
 * `Response` so the client cannot tell the difference.
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

/**
 * Idle connections are dropped before a typical server's keep-alive time-out
 * (Node's default is 5 s), so a request never starts on a socket the server is
 * about to close.
 */
const IDLE_SOCKET_MS = 4000;
const MAX_SOCKETS = 16;

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_MS }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_MS }),
};

/**
 * Sockets the pool holds open to `origin` (busy or idle). Tests wait for 0 after closing a server, so that a
 * request they then send meets a refused connection rather than a kept-alive socket the client has not yet seen close.
 */
export function pooledSockets(origin: string): number {
  const url = new URL(origin);
  const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const prefix = `${url.hostname}:${port}:`;
  let count = 0;
  for (const pool of [agent.sockets, agent.freeSockets]) {
    for (const [name, sockets] of Object.entries(pool)) if (name.startsWith(prefix)) count += sockets?.length ?? 0;
  }
  return count;
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

function decompress(encoding: string, body: Buffer): Promise<Buffer> {
  const run = (fn: (buffer: Buffer, done: (error: Error | null, result: Buffer) => void) => void) =>
    new Promise<Buffer>((resolve, reject) => fn(body, (error, result) => (error ? reject(error) : resolve(result))));
  switch (encoding.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return run(zlib.gunzip);
    case 'deflate':
      return run(zlib.inflate);
    case 'br':
      return run(zlib.brotliDecompress);
    default:
      return Promise.resolve(body);
  }
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    // Set-Cookie is the one header that must not be joined; nothing here reads it.
    if (name.toLowerCase() !== 'content-encoding' && name.toLowerCase() !== 'content-length')
      headers.append(name, raw[i + 1] as string);
  }
  return headers;
}

/** Lower-cased names; a plain object (what the client passes) is copied without building a `Headers`. */
function plainHeaders(source: HeadersInit | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (source && !Array.isArray(source) && !(source instanceof Headers)) {
    for (const [name, value] of Object.entries(source)) headers[name.toLowerCase()] = String(value);
    return headers;
  }
  new Headers(source).forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

export const nodeFetch: typeof fetch = (input, init = {}) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const client = url.protocol === 'https:' ? https : http;
  const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
  const signal = init.signal ?? undefined;
  const body = typeof init.body === 'string' ? init.body : init.body == null ? undefined : null;
  if (body === null) return Promise.reject(new TypeError('nodeFetch sends string bodies only'));
  const headers = plainHeaders(init.headers);
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));

  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const request = client.request(url, { method: init.method ?? 'GET', headers, agent }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (chunk: Buffer) => parts.push(chunk));
      response.on('error', (error) => finish(() => reject(error)));
      response.on('aborted', () => finish(() => reject(new Error('the response was cut off'))));
      response.on('end', () => {
        decompress(String(response.headers['content-encoding'] ?? ''), Buffer.concat(parts)).then(
          (decoded) =>
            finish(() => {
              const status = response.statusCode ?? 0;
              const nullBody = status === 204 || status === 205 || status === 304;
              resolve(
                new Response(nullBody ? null : new Uint8Array(decoded), {
                  status,
                  statusText: response.statusMessage ?? '',
                  headers: responseHeaders(response.rawHeaders),
                }),
              );
            }),
          (error: unknown) => finish(() => reject(error instanceof Error ? error : new Error(String(error)))),
        );
      });
    });
    const onAbort = () => {
      finish(() => reject(abortReason(signal as AbortSignal)));
      request.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => finish(() => reject(error)));
    request.end(body);
  });
};
