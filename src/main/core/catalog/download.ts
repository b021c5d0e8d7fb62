/** The catalog sync's and the trade window's download: raw node:http(s), so gzip is decompressed as a stream on libuv's thread pool. */
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable, type TransformOptions } from 'node:stream';
import zlib from 'node:zlib';
import { CatalogSyncError } from '../store/errors';
import type { CatalogSyncRequest } from '../store/types';
import { bytesAt, ITEM_START } from './itemSplitter';

/** Longest stretch of work on the body before the thread lets queued messages in. */
const SLICE_MS = 20;
const ERROR_BODY_LIMIT = 64 * 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Big decompressed chunks keep the per-chunk overhead low. */
const GUNZIP_CHUNK_BYTES = 256 * 1024;
/** The decompressor inflates on libuv's pool while the consumer handles a chunk, and pauses 4 chunks ahead of it (zlib passes Transform options on). */
const GUNZIP_OPTIONS: zlib.ZlibOptions & TransformOptions = {
  chunkSize: GUNZIP_CHUNK_BYTES,
  readableHighWaterMark: 4 * GUNZIP_CHUNK_BYTES,
};

export type StreamOutcome =
  { kind: 'ok' } | { kind: 'http'; status: number; headers: Record<string, string>; bodyText: string };

/** Downloads `request.url`, handing decoded bytes to `onBytes`; resolves when the body ended, or with the first 64 KB of a non-2xx answer. */
export async function streamBody(
  request: CatalogSyncRequest,
  signal: AbortSignal,
  onBytes: (bytes: Buffer) => void,
): Promise<StreamOutcome> {
  const label = request.label ?? 'the catalog';
  const cancelled = () => new CatalogSyncError('aborted', `${label} sync was cancelled`);
  if (signal.aborted) throw cancelled();
  const url = new URL(request.url);
  const idleMs = request.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const req = (url.protocol === 'https:' ? https : http).get(url, {
    headers: { ...request.headers, 'accept-encoding': 'gzip', accept: 'application/json' },
  });
  let failure: CatalogSyncError | null = null;
  const fail = (error: CatalogSyncError) => req.destroy((failure ??= error));
  const onAbort = () => fail(cancelled());
  signal.addEventListener('abort', onAbort, { once: true });
  // Errors reach the caller through the wait for the response, then through the body.
  req.on('error', () => {});
  req.setTimeout(idleMs, () =>
    fail(new CatalogSyncError('network', `no data from the server for ${Math.round(idleMs / 1000)} s`)),
  );
  let responded = false;
  let handling = false;
  try {
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    responded = true;
    const gzip = /gzip/i.test(res.headers['content-encoding'] ?? '');
    const body: Readable = gzip ? pipeline(res, zlib.createGunzip(GUNZIP_OPTIONS), () => {}) : res;
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const parts: Buffer[] = [];
      let size = 0;
      for await (const chunk of body) {
        parts.push(chunk);
        if ((size += chunk.length) >= ERROR_BODY_LIMIT) break;
      }
      const headers = Object.fromEntries(
        Object.entries(res.headers).map(([key, value]) => [
          key,
          Array.isArray(value) ? value.join(', ') : String(value),
        ]),
      );
      return {
        kind: 'http',
        status,
        headers,
        bodyText: Buffer.concat(parts).toString('utf8').slice(0, ERROR_BODY_LIMIT),
      };
    }
    let sliceStart = performance.now();
    for await (const chunk of body) {
      if (failure) throw failure;
      handling = true;
      onBytes(chunk);
      handling = false;
      if (performance.now() - sliceStart > SLICE_MS) {
        // Let the thread serve queued requests (trade updates, small writes) between slices.
        await new Promise(setImmediate);
        sliceStart = performance.now();
      }
    }
    return { kind: 'ok' };
  } catch (error) {
    if (handling) throw error;
    const what = !responded
      ? 'failed'
      : (error as NodeJS.ErrnoException).code?.startsWith('Z_')
        ? 'could not be decompressed'
        : 'was cut off before the end';
    throw failure ?? new CatalogSyncError('network', `${label} download ${what}: ${(error as Error).message}`);
  } finally {
    signal.removeEventListener('abort', onAbort);
    req.destroy();
  }
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
