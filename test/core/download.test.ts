/**
 * The catalog download (streamBody) against a real HTTP server on loopback: how each way a download can go
 * wrong is reported, the first 64 KB of a non-2xx answer, and that a slow consumer holds the decoder back
 * and still lets the thread serve other work.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogSyncError } from '../../src/main/core/store/errors';
import { streamBody } from '../../src/main/core/catalog/download';

const MB = 1024 * 1024;
/** 48 MB that gzip hardly shrinks, so that the server's sending shows how far the download ran ahead of the consumer. */
const bigText = Buffer.from(randomBytes(36 * MB).toString('base64'));
const bigGzip = gzipSync(bigText, { level: 1 });
/** Bytes of /big the server has handed to its socket so far. */
let bigSent = 0;
const errorText = 'x'.repeat(200 * 1024);

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ok': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' });
    res.end(gzipSync('{"items":[]}'));
  },
  '/big': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' });
    bigSent = 0;
    const send = () => {
      while (bigSent < bigGzip.length) {
        const piece = bigGzip.subarray(bigSent, bigSent + 64 * 1024);
        bigSent += piece.length;
        if (!res.write(piece)) return void res.once('drain', send);
      }
      res.end();
    };
    send();
  },
  '/silent': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' });
    res.write(gzipSync('{"items":[').subarray(0, 10));
  },
  '/not-gzip': (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip' });
    res.end('{"items":[]} is not gzip');
  },
  '/cut': (_req, res) => {
    res.writeHead(200, { 'content-length': '1000' });
    res.write('{"items":[');
    setTimeout(() => res.socket?.destroy(), 50);
  },
  '/error': (_req, res) => {
    res.writeHead(503, { 'content-encoding': 'gzip', 'retry-after': '60', 'set-cookie': ['a=1', 'b=2'] });
    res.end(gzipSync(errorText));
  },
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => (routes[req.url ?? ''] ?? routes['/ok'])?.(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

const download = (
  path: string,
  options: { signal?: AbortSignal; idleTimeoutMs?: number; onBytes?: (bytes: Buffer) => void } = {},
) =>
  streamBody(
    { url: `${base}${path}`, headers: {}, idleTimeoutMs: options.idleTimeoutMs },
    options.signal ?? new AbortController().signal,
    options.onBytes ?? (() => {}),
  );

async function failureOf(outcome: Promise<unknown>): Promise<CatalogSyncError> {
  const error = await outcome.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CatalogSyncError);
  return error as CatalogSyncError;
}

describe('streamBody', () => {
  it('hands over the decoded body', async () => {
    const parts: Buffer[] = [];
    expect(await download('/ok', { onBytes: (bytes) => parts.push(Buffer.from(bytes)) })).toEqual({ kind: 'ok' });
    expect(Buffer.concat(parts).toString()).toBe('{"items":[]}');
  });

  it('answers a non-2xx status with its headers and the first 64 KB of its decoded body', async () => {
    const outcome = await download('/error', { onBytes: () => expect.unreachable('an error body is not handed over') });
    expect(outcome).toMatchObject({
      kind: 'http',
      status: 503,
      headers: { 'retry-after': '60', 'set-cookie': 'a=1, b=2' },
    });
    expect(outcome.kind === 'http' && outcome.bodyText).toBe(errorText.slice(0, 64 * 1024));
  });

  it('fails as network when nothing listens, when no byte comes, when cut off and when the gzip is broken', async () => {
    expect(
      await failureOf(streamBody({ url: 'http://127.0.0.1:1/x', headers: {} }, new AbortController().signal, () => {})),
    ).toMatchObject({
      reason: 'network',
      message: expect.stringMatching(/^the catalog download failed: /),
    });
    const started = performance.now();
    expect(await failureOf(download('/silent', { idleTimeoutMs: 300 }))).toMatchObject({
      reason: 'network',
      message: expect.stringMatching(/^no data from the server for \d+ s$/),
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(await failureOf(download('/cut'))).toMatchObject({
      reason: 'network',
      message: expect.stringContaining('cut off before the end'),
    });
    expect(await failureOf(download('/not-gzip'))).toMatchObject({
      reason: 'network',
      message: expect.stringContaining('could not be decompressed'),
    });
  });

  it('fails as aborted when cancelled before the start or midway, and hands over nothing after', async () => {
    const before = new AbortController();
    before.abort();
    expect(await failureOf(download('/ok', { signal: before.signal }))).toMatchObject({ reason: 'aborted' });
    const midway = new AbortController();
    let chunks = 0;
    let afterAbort = 0;
    const error = await failureOf(
      download('/big', {
        signal: midway.signal,
        onBytes: () => {
          if (midway.signal.aborted) afterAbort += 1;
          if (++chunks === 3) setTimeout(() => midway.abort(), 0);
        },
      }),
    );
    expect(error.reason).toBe('aborted');
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(afterAbort).toBe(0);
  });

  it("passes the consumer's own error through as it is", async () => {
    const own = new TypeError('not a catalog');
    await expect(
      download('/ok', {
        onBytes: () => {
          throw own;
        },
      }),
    ).rejects.toBe(own);
  });

  it('holds the download back while the consumer is slow, and lets the thread serve other work between stretches of ~20 ms', async () => {
    let received = 0;
    let aheadMost = 0;
    // Chunks handled (2 ms each) since a timer on the same thread last ran.
    let chunksSinceTick = 0;
    let chunksMost = 0;
    let longestCall = 0;
    const timer = setInterval(() => (chunksSinceTick = 0), 1);
    try {
      await download('/big', {
        onBytes: (bytes) => {
          const started = performance.now();
          received += bytes.length;
          aheadMost = Math.max(aheadMost, bigSent - (received / bigText.length) * bigGzip.length);
          while (performance.now() < started + 2);
          longestCall = Math.max(longestCall, performance.now() - started);
          chunksMost = Math.max(chunksMost, ++chunksSinceTick);
        },
      });
    } finally {
      clearInterval(timer);
    }
    expect(received).toBe(bigText.length);
    // Socket buffers and a chunk or two in the decoder; without backpressure the whole body (~37 MB) would be sent at once.
    expect(aheadMost).toBeLessThan(16 * MB);
    // ~0.4 s of work at 2 ms a chunk, in stretches of ~20 ms at most.
    expect(chunksMost).toBeLessThanOrEqual(15);
  }, 30_000);
});
