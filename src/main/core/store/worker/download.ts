/** The catalog sync's download: raw node:http(s), so gzip is decompressed as a stream on libuv's thread pool. */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { CatalogSyncError } from '../errors';
import type { CatalogSyncRequest } from '../types';
import { bytesAt, ITEM_START } from './itemSplitter';

/** Longest stretch of work on the body before the thread lets queued messages in. */
const SLICE_MS = 20;
const ERROR_BODY_LIMIT = 64 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Big decompressed chunks keep the per-chunk overhead low. */
const GUNZIP_CHUNK_BYTES = 256 * 1024;
/** Decoded bytes waiting to be handled before the decompressor is paused. */
const MAX_QUEUED_BYTES = 4 * GUNZIP_CHUNK_BYTES;

export type StreamOutcome = { kind: 'ok' } | { kind: 'http'; status: number; headers: Record<string, string>; bodyText: string };

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  const name = encoding.trim().toLowerCase();
  if (name === 'gzip' || name === 'x-gzip') return zlib.createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
  if (name === 'deflate') return zlib.createInflate({ chunkSize: GUNZIP_CHUNK_BYTES });
  return name === 'br' ? zlib.createBrotliDecompress({ chunkSize: GUNZIP_CHUNK_BYTES }) : null;
}

/** Downloads `request.url`, handing decoded bytes to `onBytes`; resolves when the body ended, or with the first 64 KB of a non-2xx answer. */
export function streamBody(request: CatalogSyncRequest, signal: AbortSignal, onBytes: (bytes: Buffer) => void): Promise<StreamOutcome> {
  return new Promise<StreamOutcome>((resolve, reject) => {
    if (signal.aborted) {
      reject(new CatalogSyncError('aborted', 'the catalog sync was cancelled'));
      return;
    }
    let settled = false;
    let response: http.IncomingMessage | null = null;
    let body: Readable | null = null;
    const url = new URL(request.url);
    const client = url.protocol === 'https:' ? https : http;
    const idleMs = request.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;

    const cleanup = () => signal.removeEventListener('abort', onAbort);
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      req.destroy();
      response?.destroy();
      body?.destroy();
      reject(error);
    };
    const networkFailure = (what: string) => (error?: Error) =>
      fail(new CatalogSyncError('network', `the catalog download ${what}${error?.message ? `: ${error.message}` : ''}`));
    const onAbort = () => fail(new CatalogSyncError('aborted', 'the catalog sync was cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });

    const req = client.get(url, { headers: { ...request.headers, 'accept-encoding': 'gzip', accept: 'application/json' } });
    req.setTimeout(idleMs, () => fail(new CatalogSyncError('network', `no data from the server for ${Math.round(idleMs / 1000)} s`)));
    req.on('error', networkFailure('failed'));
    req.on('response', (res) => {
      response = res;
      res.on('aborted', networkFailure('was cut off before the end'));
      res.on('error', networkFailure('was cut off before the end'));
      const decoder = decoderFor(String(res.headers['content-encoding'] ?? ''));
      if (decoder) res.pipe(decoder);
      const stream: Readable = decoder ?? res;
      body = stream;
      stream.on('error', networkFailure('could not be decompressed'));
      const status = res.statusCode ?? 0;

      if (status < 200 || status >= 300) {
        const parts: Buffer[] = [];
        let size = 0;
        const finish = () => {
          if (settled) return;
          settled = true;
          cleanup();
          const bodyText = Buffer.concat(parts).toString('utf8').slice(0, ERROR_BODY_LIMIT);
          resolve({ kind: 'http', status, headers: flatHeaders(res.headers), bodyText });
          req.destroy();
          res.destroy();
          stream.destroy();
        };
        stream.on('data', (chunk: Buffer) => {
          parts.push(chunk);
          size += chunk.length;
          if (size >= ERROR_BODY_LIMIT) finish();
        });
        stream.on('end', finish);
        stream.on('close', finish);
        return;
      }

      // Chunks are handled in a microtask, not in the 'data' event: zlib emits a chunk before it queues the next one on
      // the pool, so the next chunk inflates while this one is split and hashed (500k items: 1.5–1.8 s → 1.3–1.5 s).
      const queue: Buffer[] = [];
      let queuedBytes = 0;
      let handling = false;
      let ended = false;
      let sliceStart = 0;
      const finish = () => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve({ kind: 'ok' });
      };
      const handleQueued = () => {
        handling = false;
        while (queue.length > 0) {
          if (settled) return;
          const chunk = queue.shift() as Buffer;
          queuedBytes -= chunk.length;
          try {
            onBytes(chunk);
          } catch (error) {
            fail(error);
            return;
          }
          if (performance.now() - sliceStart > SLICE_MS && queue.length > 0) {
            // Let the thread serve queued requests (trade updates, small writes) between slices.
            handling = true;
            setImmediate(() => {
              sliceStart = performance.now();
              handleQueued();
            });
            return;
          }
        }
        if (ended) finish();
        else if (stream.isPaused()) stream.resume();
      };
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        queue.push(chunk);
        queuedBytes += chunk.length;
        if (queuedBytes >= MAX_QUEUED_BYTES) stream.pause();
        if (!handling) {
          // Back from the event loop: a new slice.
          handling = true;
          sliceStart = performance.now();
          queueMicrotask(handleQueued);
        }
      });
      stream.on('end', () => {
        ended = true;
        if (!handling && queue.length === 0) finish();
      });
      stream.on('close', () => {
        if (!settled && !ended) fail(new CatalogSyncError('network', 'the catalog download was cut off before the end'));
      });
    });
  });
}

/** The itemId of an item's bytes when they start with `{"itemId":<digits>`, else -1 (then it is parsed). */
export function leadingItemId(bytes: Buffer, start: number, end: number): number {
  if (end - start < ITEM_START.length + 2 || !bytesAt(bytes, start, ITEM_START)) return -1;
  let value = 0;
  let digits = 0;
  for (let i = start + ITEM_START.length; i < end; i++) {
    const c = bytes[i] as number;
    if (c < 0x30 || c > 0x39) return digits > 0 && digits <= 15 && (c === 0x2c || c === 0x7d) ? value : -1;
    value = value * 10 + (c - 0x30);
    digits += 1;
  }
  return -1;
}
