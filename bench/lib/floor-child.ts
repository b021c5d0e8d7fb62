/**
 * Child process: the FLOOR of a catalog sync, measured against the same sandbox in
 * the same run. GET the same URL (gzip), gunzip as it streams in, then decode the
 * whole body to one string, JSON.parse it in full, and insert every item into a
 * plain SQLite table (itemId, name, price, JSON text) in ONE transaction, with the
 * store's pragmas (WAL, synchronous=NORMAL). No validation, no diff, no indexes
 * beyond the primary key, no other thread: the least work that ends with the
 * catalog committed on disk.
 *
 * BENCH_FLOOR_MODE=upsert (resync's naive baseline): the table persists in
 * BENCH_FLOOR_DB and every row is upserted (INSERT ... ON CONFLICT DO UPDATE).
 * BENCH_FLOOR_MODE=chunked (1M items, where one JSON.parse of the body exceeds
 * V8's string limit): the body is split at item boundaries and parsed item by item.
 */
import Database from 'better-sqlite3';
import http from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { childMain } from './child';
import { peakRssMB } from './rss';
import { scratchDir } from './sandbox';

interface FloorItem {
  itemId: number;
  market_hash_name: string;
  price: number;
}

function download(
  url: string,
  headers: Record<string, string>,
): Promise<{ chunks: Buffer[]; bytes: number; gzBytes: number; firstByteMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      { headers: { ...headers, 'accept-encoding': 'gzip', accept: 'application/json' } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        const firstByteMs = performance.now() - started;
        let gzBytes = 0;
        res.on('data', (chunk: Buffer) => (gzBytes += chunk.length));
        const gunzip = zlib.createGunzip({ chunkSize: 1 << 20 });
        const chunks: Buffer[] = [];
        let bytes = 0;
        gunzip.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          bytes += chunk.length;
        });
        gunzip.on('end', () => resolve({ chunks, bytes, gzBytes, firstByteMs }));
        gunzip.on('error', reject);
        res.pipe(gunzip);
      },
    );
    req.on('error', reject);
  });
}

/** Item texts of `{"…":…,"items":[{…},{…}],…}` from the raw bytes, by brace depth (strings respected). */
function* itemTexts(body: Buffer): Generator<string> {
  const start = body.indexOf('"items":[') + '"items":['.length;
  let depth = 0;
  let inString = false;
  let itemStart = -1;
  for (let i = start; i < body.length; i++) {
    const c = body[i] as number;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b) {
      if (depth === 0) itemStart = i;
      depth++;
    } else if (c === 0x7d) {
      depth--;
      if (depth === 0) yield body.toString('utf8', itemStart, i + 1);
    } else if (c === 0x5d && depth === 0) return;
  }
}

childMain(async () => {
  const url = process.env['BENCH_URL'] as string;
  const headers = JSON.parse(process.env['BENCH_HEADERS'] as string) as Record<string, string>;
  const mode = process.env['BENCH_FLOOR_MODE'] ?? 'insert';
  const dir = process.env['BENCH_FLOOR_DB'] ? null : scratchDir('floor');
  const file = process.env['BENCH_FLOOR_DB'] ?? join(dir as string, 'floor.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(
    'CREATE TABLE IF NOT EXISTS items (itemId INTEGER PRIMARY KEY, name TEXT NOT NULL, price INTEGER NOT NULL, json TEXT NOT NULL)',
  );
  const insert = db.prepare(
    mode === 'upsert'
      ? 'INSERT INTO items (itemId, name, price, json) VALUES (?, ?, ?, ?) ON CONFLICT (itemId) DO UPDATE SET name = excluded.name, price = excluded.price, json = excluded.json'
      : 'INSERT INTO items (itemId, name, price, json) VALUES (?, ?, ?, ?)',
  );
  try {
    const started = performance.now();
    const { chunks, bytes, gzBytes, firstByteMs } = await download(url, headers);
    const downloadedMs = performance.now() - started;
    let parsedMs: number;
    let count = 0;
    if (mode === 'chunked') {
      const body = Buffer.concat(chunks);
      chunks.length = 0;
      const items: FloorItem[] = [];
      for (const text of itemTexts(body)) items.push(JSON.parse(text) as FloorItem);
      parsedMs = performance.now() - started;
      db.transaction(() => {
        for (const item of items) insert.run(item.itemId, item.market_hash_name, item.price, JSON.stringify(item));
      })();
      count = items.length;
    } else {
      const text = Buffer.concat(chunks).toString('utf8');
      chunks.length = 0;
      const envelope = JSON.parse(text) as { items: FloorItem[] };
      parsedMs = performance.now() - started;
      db.transaction(() => {
        for (const item of envelope.items)
          insert.run(item.itemId, item.market_hash_name, item.price, JSON.stringify(item));
      })();
      count = envelope.items.length;
    }
    const committedMs = performance.now() - started;
    return { committedMs, downloadedMs, parsedMs, firstByteMs, bytes, gzBytes, count, peakRssMB: peakRssMB() };
  } finally {
    db.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});
