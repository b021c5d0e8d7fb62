/**
 * Streaming catalog sync, run inside the writer thread.
 *
 * 1. GET the on-sale list with node:http(s) (raw, so gzip is visible and
 *    decompressed here as a stream, on libuv's thread pool).
 * 2. ItemSplitter cuts the items array into byte ranges. Each item's bytes are
 *    hashed (hashBytes, 53 bits); an item whose hash equals the stored one
 *    is unchanged and is neither decoded nor parsed. Only new and changed items
 *    are parsed, checked (a hand check, the full zod schema every 1000th) and
 *    written, in short transactions, so no write transaction waits on the
 *    network and the thread yields every ~20 ms to serve trade updates.
 * 3. At the end ONE transaction makes the new list the catalog. A failed or
 *    cancelled download never reaches it, so the previous complete catalog
 *    stays as it was.
 *
 * Two ways to write, chosen when the first item arrives:
 * - incremental (the cache already holds most of the list): changed and new
 *   items go to a TEMP staging table; the final transaction applies them with
 *   set-based SQL, and whatever the list no longer holds is sold.
 * - bulk (an empty or small cache, e.g. the first sync of an account): every
 *   item goes straight into shadow tables `items_next` / `item_json_next` with
 *   no secondary indexes; the final transaction merges what the cache held,
 *   swaps the tables in by renaming and builds the indexes by sorting, which
 *   is several times faster than growing nine b-trees row by row.
 */
import type { Statement } from 'better-sqlite3';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { itemSchema, type Item } from '../../../../shared/api';
import { CatalogSyncError } from '../errors';
import type { CatalogSyncRequest, CatalogSyncResult } from '../types';
import { bytesAt, EnvelopeFormatError, ItemSplitter, type EnvelopeFields } from './itemSplitter';
import { CREATE_ITEMS_LIVE_VIEW, differOnlyInPrice, hashBytes, ITEM_COLUMNS, itemRow, itemValues, META, type ItemColumns } from './rows';
import { columnInOrder, indexOfSorted } from './sorted';
import type { KnownItemsSnapshot, SyncContext, WriterService } from './writer';

const WRITE_BATCH_ITEMS = 2000;
const PROGRESS_INTERVAL_MS = 100;
/** Longest stretch of work on the body before the thread lets queued messages in. */
const SLICE_MS = 20;
const ERROR_BODY_LIMIT = 64 * 1024;
const FULL_CHECK_EVERY = 1000;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Decompressed chunks this big keep the per-chunk overhead low. */
const GUNZIP_CHUNK_BYTES = 256 * 1024;
/** Decoded bytes waiting to be handled before the decompressor is paused. */
const MAX_QUEUED_BYTES = 4 * GUNZIP_CHUNK_BYTES;
/** Sold items (and their price history) are kept this long. */
const SOLD_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** More changes than this in one sync: readers reload their catalog index instead of repairing it. */
const CHANGE_LOG_ITEMS_MAX = 20_000;
/** `{"itemId":` — items usually start with it, so the id can be read without parsing. */
const ITEM_ID_PREFIX = Buffer.from('{"itemId":');

type StreamOutcome = { kind: 'ok' } | { kind: 'http'; status: number; headers: Record<string, string>; bodyText: string };

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  switch (encoding.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
    case 'deflate':
      return zlib.createInflate({ chunkSize: GUNZIP_CHUNK_BYTES });
    case 'br':
      return zlib.createBrotliDecompress({ chunkSize: GUNZIP_CHUNK_BYTES });
    default:
      return null;
  }
}

/**
 * Downloads `request.url`, handing decoded bytes to `onBytes` chunk by chunk.
 * Resolves when the body ended, or with the first 64 KB of a non-2xx answer.
 */
function streamBody(request: CatalogSyncRequest, signal: AbortSignal, onBytes: (bytes: Buffer) => void): Promise<StreamOutcome> {
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

    const cleanup = () => {
      signal.removeEventListener('abort', onAbort);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      req.destroy();
      response?.destroy();
      body?.destroy();
      if (error instanceof EnvelopeFormatError) reject(new CatalogSyncError('protocol', `the catalog could not be read: ${error.message}`));
      else reject(error);
    };
    const networkFailure = (what: string) => (error?: Error) =>
      fail(new CatalogSyncError('network', `the catalog download ${what}${error?.message ? `: ${error.message}` : ''}`));
    const onAbort = () => fail(new CatalogSyncError('aborted', 'the catalog sync was cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });

    const req = client.get(url, {
      headers: { ...request.headers, 'accept-encoding': 'gzip', accept: 'application/json' },
    });
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

      // Decoded chunks are handled in a microtask, not inside the 'data' event: zlib emits a chunk
      // before it hands the next one to the thread pool, so handling it there would leave the
      // decompressor idle while this thread splits and hashes. Queued this way, the next chunk
      // inflates on the pool while this one is handled (500k items downloaded, split and hashed:
      // 1.5–1.8 s → 1.3–1.5 s here).
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
        // Bounded: at most a few chunks wait (memory), the decompressor stops until they are handled.
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

// ---- validation

function nullableNumber(value: unknown): boolean {
  return value === null || typeof value === 'number';
}

function nullableString(value: unknown): boolean {
  return value === null || typeof value === 'string';
}

function namedList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'object' || entry === null || typeof (entry as { name?: unknown }).name !== 'string') return false;
  }
  return true;
}

/** The hand check every parsed item gets: the fields the cache stores and indexes. Returns what is wrong, or null. */
export function quickItemCheck(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const o = value as Record<string, unknown>;
  if (typeof o['itemId'] !== 'number' || !Number.isSafeInteger(o['itemId']) || o['itemId'] <= 0) return 'itemId is not a positive integer';
  if (typeof o['price'] !== 'number' || !Number.isSafeInteger(o['price'])) return 'price is not an integer';
  if (typeof o['assetId'] !== 'string') return 'assetId is not a string';
  if (typeof o['market_hash_name'] !== 'string') return 'market_hash_name is not a string';
  if (typeof o['classId'] !== 'string' || typeof o['instanceId'] !== 'string') return 'classId/instanceId are not strings';
  if (!nullableNumber(o['float']) || !nullableNumber(o['paintSeed']) || !nullableNumber(o['paintIndex'])) return 'float/paintSeed/paintIndex are not numbers';
  if (!nullableString(o['phase']) || !nullableString(o['img']) || !nullableString(o['rarityColor'])) return 'phase/img/rarityColor are not strings';
  if (!namedList(o['stickers']) || !namedList(o['keyChains'])) return 'stickers/keyChains are not lists of named entries';
  return null;
}

/** The itemId of an item's bytes when they start with `{"itemId":<digits>`, else -1 (then it is parsed). */
export function leadingItemId(bytes: Buffer, start: number, end: number): number {
  if (end - start < ITEM_ID_PREFIX.length + 2 || !bytesAt(bytes, start, ITEM_ID_PREFIX)) {
    return -1;
  }
  let value = 0;
  let digits = 0;
  for (let i = start + ITEM_ID_PREFIX.length; i < end; i++) {
    const c = bytes[i] as number;
    if (c < 0x30 || c > 0x39) return digits > 0 && digits <= 15 && (c === 0x2c || c === 0x7d) ? value : -1;
    value = value * 10 + (c - 0x30);
    digits += 1;
  }
  return -1;
}

// ---- receiving

/** A change log longer than this since the last snapshot: reading every row again is cheaper. */
const SNAPSHOT_PATCH_MAX = 50_000;

/** Every row's itemId and hash, read from `items` (two ordered scans: ~0.4 s at 500k). */
function fullSnapshot(db: WriterService['db'], seq: number): KnownItemsSnapshot {
  return {
    ids: columnInOrder(db, 'SELECT itemId FROM items ORDER BY itemId'),
    hashes: columnInOrder(db, 'SELECT hash FROM items ORDER BY itemId'),
    seq,
    readBy: 'scan',
  };
}

/**
 * The previous snapshot brought up to change-log entry `seq`: every row written since it was
 * taken has its itemId in the log, so only those are read again (absent = removed). Null when
 * the log cannot tell (trimmed past the snapshot, a full reload, too many changes) or the result
 * does not count as many items as the table (a write that was not logged).
 */
function patchedSnapshot(db: WriterService['db'], previous: KnownItemsSnapshot, seq: number): KnownItemsSnapshot | null {
  const rows = db.prepare<[], number>('SELECT count(*) FROM items').pluck().get() as number;
  if (seq === previous.seq) return rows === previous.ids.length ? previous : null;
  const oldest = db.prepare<[], number | null>('SELECT min(seq) FROM item_changes').pluck().get() as number | null;
  if (oldest === null || oldest > previous.seq + 1) return null;
  const changed = db
    .prepare<[number, number], number>('SELECT DISTINCT itemId FROM item_changes WHERE seq > ? ORDER BY itemId LIMIT ?')
    .pluck()
    .all(previous.seq, SNAPSHOT_PATCH_MAX + 1) as number[];
  if (changed.length > SNAPSHOT_PATCH_MAX || changed[0] === 0) return null;
  const hashOf = db.prepare<[number], number>('SELECT hash FROM items WHERE itemId = ?').pluck();
  const ids = new Float64Array(previous.ids.length + changed.length);
  const hashes = new Float64Array(ids.length);
  let count = 0;
  let p = 0;
  const keep = (itemId: number, hash: number | undefined) => {
    if (hash === undefined) return;
    ids[count] = itemId;
    hashes[count++] = hash;
  };
  for (const itemId of changed) {
    while (p < previous.ids.length && (previous.ids[p] as number) < itemId) {
      keep(previous.ids[p] as number, previous.hashes[p]);
      p++;
    }
    if (p < previous.ids.length && previous.ids[p] === itemId) p++;
    keep(itemId, hashOf.get(itemId) as number | undefined);
  }
  for (; p < previous.ids.length; p++) keep(previous.ids[p] as number, previous.hashes[p]);
  if (rows !== count) return null;
  return { ids: ids.slice(0, count), hashes: hashes.slice(0, count), seq, readBy: 'log' };
}

/**
 * What the cache held when the sync started (itemId → hash), as two sorted
 * typed arrays (8 MB for 500k items, ~4× faster to load than a Map), and which
 * of them the list named so far. Lists usually come in itemId order, so a
 * lookup first tries the slot after the previous one, then a binary search.
 * The writer keeps the arrays between syncs: the next sync reads again only
 * the rows the change log names (a re-sync no longer starts with ~0.4 s of
 * table scans that hold up the download).
 */
export class KnownItems {
  private readonly seen: Uint8Array;
  private cursor = 0;

  private constructor(
    private readonly ids: Float64Array,
    private readonly hashes: Float64Array,
  ) {
    this.seen = new Uint8Array(ids.length);
  }

  static load(writer: WriterService): KnownItems {
    const db = writer.db;
    const seq = writer.lastChange();
    const previous = writer.knownItemsSnapshot;
    const snapshot = (previous && patchedSnapshot(db, previous, seq)) ?? fullSnapshot(db, seq);
    writer.knownItemsSnapshot = snapshot;
    // The sync marks its own copy of the hashes; the snapshot stays as the rows are.
    const known = new KnownItems(snapshot.ids, snapshot.hashes.slice());
    // A live price change since the row was written: its stored JSON is stale, read the item again.
    for (const itemId of db.prepare<[], number>('SELECT itemId FROM item_prices UNION ALL SELECT itemId FROM item_prices_pending').pluck().all() as number[]) {
      const index = known.indexOf(itemId);
      if (index >= 0) known.hashes[index] = 0;
    }
    known.cursor = 0;
    return known;
  }

  /** Items held when the sync started. */
  get size(): number {
    return this.ids.length;
  }

  private indexOf(itemId: number): number {
    const ids = this.ids;
    const next = this.cursor;
    if (next < ids.length && ids[next] === itemId) {
      this.cursor = next + 1;
      return next;
    }
    const index = indexOfSorted(ids, itemId);
    if (index >= 0) this.cursor = index + 1;
    return index;
  }

  /** Whether the item was held with this hash (it is then marked as named by the list). */
  unchanged(itemId: number, hash: number): boolean {
    const index = this.indexOf(itemId);
    if (index < 0 || this.hashes[index] !== hash) return false;
    this.seen[index] = 1;
    return true;
  }

  /** Marks a held item as named by the list; whether it was held. */
  named(itemId: number): boolean {
    const index = this.indexOf(itemId);
    if (index >= 0) this.seen[index] = 1;
    return index >= 0;
  }

  /** Held items the list did not name. */
  *unnamed(): Generator<number> {
    for (let i = 0; i < this.ids.length; i++) if (this.seen[i] === 0) yield this.ids[i] as number;
  }
}

type WriteMode = 'incremental' | 'bulk';

const STAGE_COLUMNS = [...ITEM_COLUMNS, 'json', 'price_only'];
const ITEM_UPDATE_COLUMNS = ITEM_COLUMNS.filter((c) => c !== 'itemId');
const ITEM_TABLE_COLUMNS = [...ITEM_COLUMNS, 'name_id', 'listed_at', 'updated_at', 'last_move'];

/** Receives the list's items: skips unchanged ones, parses and checks the rest, writes them in batches. */
class Receiver {
  mode: WriteMode | null = null;
  unchanged = 0;
  written = 0;
  skipped = 0;
  firstSkipReason: string | null = null;
  /** Distinct names written, so the apply need not DISTINCT a million rows. */
  readonly names = new Set<string>();
  private parsed = 0;
  private pending: ItemColumns[] = [];
  /** Per pending row (incremental): 1 when it differs from the stored text only in its price. */
  private pendingPriceOnly: number[] = [];
  private storedJson: Statement<[number], string> | null = null;
  private writeBatch: ((rows: ItemColumns[], priceOnly: number[]) => void) | null = null;
  /** Bulk: name → name_id, from `names` and the names this sync added. */
  private nameIds: Map<string, number> | null = null;

  constructor(
    private readonly writer: WriterService,
    readonly known: KnownItems,
    private readonly splitter: () => ItemSplitter,
    private readonly listedAt: number,
  ) {}

  /** One element of the items array; false when its bytes are not one JSON value (see ItemSplitter). */
  element(bytes: Buffer, start: number, end: number): boolean {
    const hash = hashBytes(bytes, start, end);
    // Bulk writes every item into fresh tables, so only an incremental sync skips unchanged ones.
    const incremental = this.mode === 'incremental';
    const id = incremental ? leadingItemId(bytes, start, end) : -1;
    if (id > 0 && this.known.unchanged(id, hash)) {
      this.unchanged += 1;
      return true;
    }
    const json = bytes.toString('utf8', start, end);
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      return false;
    }
    this.parsed += 1;
    let problem = quickItemCheck(value);
    if (problem === null && (this.parsed === 1 || this.parsed % FULL_CHECK_EVERY === 0)) {
      const checked = itemSchema.safeParse(value);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        problem = `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`;
      }
    }
    if (problem !== null) {
      this.skipped += 1;
      if (this.firstSkipReason === null) {
        const itemId = (value as { itemId?: unknown } | null)?.itemId;
        this.firstSkipReason = `item ${typeof itemId === 'number' ? itemId : `#${this.splitter().received}`}: ${problem}`;
      }
      return true;
    }
    const item = value as Item;
    if (incremental && this.known.unchanged(item.itemId, hash)) {
      // Unchanged, in a formatting whose id could not be read from the bytes.
      this.unchanged += 1;
      return true;
    }
    const held = this.known.named(item.itemId);
    this.pending.push(itemRow(item, json, hash));
    // Most changes between syncs are repricings: told here, while the list streams, by the stored text
    // (a point read), rather than by json_remove on both texts in the apply's transaction.
    this.pendingPriceOnly.push(incremental && held && differOnlyInPrice(json, this.storedJsonOf(item.itemId)) ? 1 : 0);
    if (this.pending.length >= WRITE_BATCH_ITEMS) this.flush();
    return true;
  }

  /** Writes the pending items in one short transaction. */
  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    const priceOnly = this.pendingPriceOnly;
    this.pending = [];
    this.pendingPriceOnly = [];
    if (!this.writeBatch) this.writeBatch = this.mode === 'bulk' ? this.bulkWriter() : this.stageWriter();
    this.writeBatch(batch, priceOnly);
    this.written += batch.length;
  }

  private storedJsonOf(itemId: number): string {
    this.storedJson ??= this.writer.db.prepare<[number], string>('SELECT json FROM item_json WHERE itemId = ?').pluck();
    return this.storedJson.get(itemId) ?? '';
  }

  /** Picks the write mode once, when the first item arrives (totalItems usually came before it). */
  decide(serverTotal: number | null): WriteMode {
    if (this.mode === null) {
      const held = this.known.size;
      this.mode = held === 0 || (serverTotal !== null && held * 4 < serverTotal) ? 'bulk' : 'incremental';
    }
    return this.mode;
  }

  private stageWriter(): (rows: ItemColumns[], priceOnly: number[]) => void {
    const db = this.writer.db;
    const insert = db.prepare(`INSERT OR REPLACE INTO temp.sync_stage (${STAGE_COLUMNS.join(', ')}) VALUES (${STAGE_COLUMNS.map(() => '?').join(', ')})`);
    return db.transaction((rows: ItemColumns[], priceOnly: number[]) => {
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i] as ItemColumns;
        insert.run(...itemValues(row), row.json, priceOnly[i] ?? 0);
        this.names.add(row.name);
      }
    });
  }

  private bulkWriter(): (rows: ItemColumns[]) => void {
    const db = this.writer.db;
    const nameIds = (this.nameIds = new Map(
      (db.prepare<[], [string, number]>('SELECT name, name_id FROM names').raw().all() as [string, number][]).map(([name, id]) => [name, id]),
    ));
    // OR IGNORE: the feed may have added a name since they were read.
    const addName = db.prepare<[string]>('INSERT OR IGNORE INTO names (name, item_count) VALUES (?, 0)');
    const nameIdOf = db.prepare<[string], number>('SELECT name_id FROM names WHERE name = ?').pluck();
    const insertItem = db.prepare(
      `INSERT OR REPLACE INTO items_next (${ITEM_TABLE_COLUMNS.join(', ')}) VALUES (${ITEM_COLUMNS.map(() => '?').join(', ')}, ?, ?, ?, 0)`,
    );
    const insertJson = db.prepare<[number, string]>('INSERT OR REPLACE INTO item_json_next (itemId, json) VALUES (?, ?)');
    const listedAt = this.listedAt;
    return db.transaction((rows: ItemColumns[]) => {
      for (const row of rows) {
        let nameId = nameIds.get(row.name);
        if (nameId === undefined) {
          addName.run(row.name);
          nameId = nameIdOf.get(row.name) as number;
          nameIds.set(row.name, nameId);
        }
        insertItem.run(...itemValues(row), nameId, listedAt, listedAt);
        insertJson.run(row.itemId, row.json);
        this.names.add(row.name);
      }
    });
  }
}

// ---- scratch tables

const DROP_SCRATCH = `
  DROP TABLE IF EXISTS temp.sync_stage;
  DROP TABLE IF EXISTS temp.sync_skip;
  DROP TABLE IF EXISTS temp.sync_gone;
  DROP TABLE IF EXISTS temp.sync_changed;
  DROP TABLE IF EXISTS temp.sync_names;
  DROP TABLE IF EXISTS temp.sync_price_only;
  DROP TABLE IF EXISTS main.items_next;
  DROP TABLE IF EXISTS main.item_json_next;
`;

function createScratch(writer: WriterService): void {
  writer.db.exec(`
    ${DROP_SCRATCH}
    CREATE TEMP TABLE sync_stage (
      itemId INTEGER PRIMARY KEY, assetId TEXT, name TEXT, phase TEXT, price INTEGER, float REAL, paintSeed INTEGER,
      paintIndex INTEGER, rarityColor TEXT, rarity_rank INTEGER, img TEXT, statTrak INTEGER, souvenir INTEGER,
      stickerCount INTEGER, stickerNames TEXT, keyChainNames TEXT, keyChainCount INTEGER, hash INTEGER, json TEXT,
      price_only INTEGER NOT NULL DEFAULT 0
    );
    CREATE TEMP TABLE sync_skip (itemId INTEGER PRIMARY KEY);
    CREATE TEMP TABLE sync_gone (itemId INTEGER PRIMARY KEY);
    CREATE TEMP TABLE sync_changed (itemId INTEGER PRIMARY KEY, old_price INTEGER, price INTEGER, listed_at INTEGER, old_move INTEGER);
    CREATE TEMP TABLE sync_names (name_id INTEGER PRIMARY KEY);
    CREATE TEMP TABLE sync_price_only (itemId INTEGER PRIMARY KEY);
  `);
}

/** The shadow tables of a bulk sync: the same definitions as items / item_json, without secondary indexes. */
function createShadowTables(writer: WriterService): void {
  const db = writer.db;
  const tableSql = (name: string) => {
    const sql = db.prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(name);
    if (!sql) throw new CatalogSyncError('protocol', `the cache has no ${name} table`);
    return sql.replace(new RegExp(`^CREATE TABLE\\s+("?)${name}\\1`), `CREATE TABLE ${name}_next`);
  };
  db.exec(`DROP TABLE IF EXISTS main.items_next; DROP TABLE IF EXISTS main.item_json_next; ${tableSql('items')}; ${tableSql('item_json')};`);
}

function dropScratch(writer: WriterService): void {
  try {
    writer.db.exec(DROP_SCRATCH);
  } catch {
    // The connection may be closing; temp tables die with it, shadow tables are dropped by the next sync.
  }
}

// ---- applying

interface ApplyOutcome {
  added: number;
  updated: number;
  removed: number;
  total: number;
  keptFromFeed: number;
  bulk: boolean;
}

/**
 * When a sync rewrites a large part of the catalog in place, the secondary
 * indexes of items are dropped before and rebuilt after the writes, inside the
 * same transaction: building an index by sorting is several times faster than
 * updating nine b-trees row by row.
 */
function isBulkChange(rowsWritten: number, totalAfter: number): boolean {
  return rowsWritten >= 10_000 && rowsWritten * 4 > totalAfter;
}

function itemIndexes(writer: WriterService): { name: string; sql: string }[] {
  return writer.db
    .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'items' AND sql IS NOT NULL")
    .all();
}

/**
 * Steps both modes end with: names counts (every name, or only the names in temp.sync_names:
 * those of items added, sold or renamed), retention, totals and meta.
 */
function finishApply(writer: WriterService, envelope: EnvelopeFields, now: number, names: 'all' | 'touched'): number {
  const db = writer.db;
  writer.trimChangeLogNow();
  const which = names === 'all' ? '1' : 'name_id IN (SELECT name_id FROM temp.sync_names)';
  db.prepare(`UPDATE names SET item_count = (SELECT count(*) FROM items WHERE items.name_id = names.name_id) WHERE ${which}`).run();
  db.prepare(`DELETE FROM names WHERE item_count = 0 AND ${which}`).run();

  const cutoff = now - SOLD_RETENTION_MS;
  writer.priceHistory.dropMovesOfSold(cutoff);
  db.prepare('DELETE FROM sold_items WHERE removed_at < ?').run(cutoff);
  writer.priceHistory.prune(now);

  // From the price index (a covering scan), plus what the live prices add: not a join of every row.
  // CROSS JOIN walks the few overrides and probes items (the planner otherwise walked all of items).
  const totals = db.prepare<[], { n: number; v: number }>('SELECT count(*) AS n, coalesce(sum(price), 0) AS v FROM items').get() as { n: number; v: number };
  const live = db.prepare<[], number>('SELECT coalesce(sum(o.price - i.price), 0) FROM item_prices o CROSS JOIN items i ON i.itemId = o.itemId').pluck().get() as number;
  writer.resetCatalogTotals(totals.n, totals.v + live);
  writer.setMeta(META.lastUpdate, envelope.lastUpdate);
  writer.setMeta(META.syncedAt, new Date(now).toISOString());
  writer.setMeta(META.serverTotalItems, envelope.totalItems);
  writer.setMeta(META.serverTotalValue, envelope.totalValue);
  return totals.n;
}

/** An item's last move after a sync changed it (temp.sync_changed `c`): the price's direction, or the one it had. */
const LAST_MOVE_AFTER_SYNC = 'CASE WHEN c.price > c.old_price THEN 1 WHEN c.price < c.old_price THEN -1 ELSE c.old_move END';

/** The price moves of the items a sync changed (temp.sync_changed), both modes. */
function recordSyncPriceMoves(writer: WriterService, now: number): void {
  writer.priceHistory.appendSyncMoves(now);
}

/** Items the list no longer names (temp.sync_gone) keep their JSON and last price a while as sold, both modes. */
function recordSold(writer: WriterService, now: number): void {
  writer.db
    .prepare(
      'INSERT OR REPLACE INTO sold_items (itemId, json, price, removed_at) SELECT j.itemId, j.json, i.price, ? FROM temp.sync_gone g CROSS JOIN item_json j ON j.itemId = g.itemId JOIN items_live i ON i.itemId = g.itemId',
    )
    .run(now);
}

/** Items the feed changed while the list streamed keep the feed's (newer) state. */
function recordTouched(writer: WriterService): number {
  const touched = writer.syncTouched ?? new Set<number>();
  const skip = writer.db.prepare<[number]>('INSERT OR IGNORE INTO temp.sync_skip (itemId) VALUES (?)');
  for (const itemId of touched) skip.run(itemId);
  return touched.size;
}

function recordGone(writer: WriterService, gone: Iterable<number>): void {
  const insert = writer.db.prepare<[number]>('INSERT OR IGNORE INTO temp.sync_gone (itemId) VALUES (?)');
  for (const itemId of gone) insert.run(itemId);
  writer.db.prepare('DELETE FROM temp.sync_gone WHERE itemId IN (SELECT itemId FROM temp.sync_skip)').run();
}

/** Incremental: apply the staged (changed and new) items and sell what the list no longer holds. */
function applyIncremental(writer: WriterService, receiver: Receiver, envelope: EnvelopeFields, now: number): ApplyOutcome {
  const db = writer.db;
  const stageSelect = ITEM_COLUMNS.map((c) => `s.${c}`).join(', ');
  return db.transaction((): ApplyOutcome => {
    // The live moves, removals and re-listings first: the sync's own changes and the history's pruning come after them.
    writer.foldPriceMoves();
    writer.foldLiveListings();
    const keptFromFeed = recordTouched(writer);
    db.prepare('DELETE FROM temp.sync_stage WHERE itemId IN (SELECT itemId FROM temp.sync_skip)').run();

    const addName = db.prepare<[string]>('INSERT OR IGNORE INTO names (name, item_count) VALUES (?, 0)');
    for (const name of receiver.names) addName.run(name);

    // Held when the sync started and not named by the list: sold. Keep their JSON a while for detail views and trades.
    recordGone(writer, receiver.known.unnamed());
    // Names whose item count can change: of items sold, added or renamed (price changes leave them alone).
    db.exec(`
      INSERT OR IGNORE INTO temp.sync_names SELECT name_id FROM items WHERE itemId IN (SELECT itemId FROM temp.sync_gone);
      INSERT OR IGNORE INTO temp.sync_names SELECT i.name_id FROM temp.sync_stage s CROSS JOIN items i ON i.itemId = s.itemId WHERE s.name <> i.name;
      INSERT OR IGNORE INTO temp.sync_names
        SELECT (SELECT n.name_id FROM names n WHERE n.name = s.name) FROM temp.sync_stage s
        WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.itemId = s.itemId AND i.name = s.name);
    `);
    recordSold(writer, now);
    const removed = db.prepare('DELETE FROM items WHERE itemId IN (SELECT itemId FROM temp.sync_gone)').run().changes;
    db.prepare('DELETE FROM item_prices WHERE itemId IN (SELECT itemId FROM temp.sync_gone)').run();
    db.prepare('DELETE FROM item_json WHERE itemId IN (SELECT itemId FROM temp.sync_gone)').run();

    // Changed items (staged because their hash differs), and their price moves. The temp tables have no
    // statistics: CROSS JOIN keeps the planner from scanning all of items to probe a few staged rows.
    db.prepare(
      `INSERT INTO temp.sync_changed (itemId, old_price, price, listed_at, old_move)
       SELECT s.itemId, i.price, s.price, i.listed_at, i.last_move FROM temp.sync_stage s CROSS JOIN items_live i ON i.itemId = s.itemId WHERE s.hash <> i.hash`,
    ).run();
    recordSyncPriceMoves(writer, now);
    // Most changes between syncs are repricings: an item whose JSON differs only in its price (told while
    // the list streamed, see Receiver.element) keeps its stored JSON (readers lay the row's price over it)
    // and its row changes only in price and hash, so no other index and no JSON page is rewritten. The new
    // hash makes the next sync skip the same bytes.
    db.prepare(
      `INSERT INTO temp.sync_price_only (itemId)
       SELECT c.itemId FROM temp.sync_changed c CROSS JOIN temp.sync_stage s ON s.itemId = c.itemId WHERE s.price_only = 1`,
    ).run();

    const count = (sql: string) => db.prepare<[], number>(sql).pluck().get() as number;
    const changing = count('SELECT count(*) FROM temp.sync_changed');
    const reshaping = changing - count('SELECT count(*) FROM temp.sync_price_only');
    const adding = count('SELECT count(*) FROM temp.sync_stage s WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.itemId = s.itemId)');
    const held = count('SELECT count(*) FROM items');
    const indexes = isBulkChange(reshaping + adding, held + adding) ? itemIndexes(writer) : [];
    for (const index of indexes) db.exec(`DROP INDEX "${index.name.replaceAll('"', '""')}"`);

    const changedRow = 'FROM temp.sync_stage s CROSS JOIN temp.sync_changed c ON c.itemId = s.itemId WHERE s.itemId = i.itemId';
    const reshaped = 'SELECT itemId FROM temp.sync_changed WHERE itemId NOT IN (SELECT itemId FROM temp.sync_price_only)';
    const updated =
      db
        .prepare(
          `UPDATE items AS i SET (${ITEM_UPDATE_COLUMNS.join(', ')}, name_id, updated_at, last_move) =
             (SELECT ${ITEM_UPDATE_COLUMNS.map((c) => `s.${c}`).join(', ')}, (SELECT n.name_id FROM names n WHERE n.name = s.name), @now, ${LAST_MOVE_AFTER_SYNC} ${changedRow})
           WHERE i.itemId IN (${reshaped})`,
        )
        .run({ now }).changes +
      db
        .prepare(
          `UPDATE items AS i SET (price, hash, updated_at, last_move) = (SELECT s.price, s.hash, @now, ${LAST_MOVE_AFTER_SYNC} ${changedRow})
           WHERE i.itemId IN (SELECT itemId FROM temp.sync_price_only)`,
        )
        .run({ now }).changes;
    // The rows now hold the list's prices: their live overrides are folded in.
    db.prepare('DELETE FROM item_prices WHERE itemId IN (SELECT itemId FROM temp.sync_changed)').run();
    db.prepare(`UPDATE item_json AS j SET json = s.json FROM temp.sync_stage AS s WHERE s.itemId = j.itemId AND j.itemId IN (${reshaped})`).run();

    let added = 0;
    if (adding > 0) {
      db.prepare(
        `INSERT OR REPLACE INTO item_json (itemId, json)
         SELECT s.itemId, s.json FROM temp.sync_stage s WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.itemId = s.itemId)`,
      ).run();
      added = db
        .prepare(
          `INSERT INTO items (${ITEM_TABLE_COLUMNS.join(', ')})
           SELECT ${stageSelect}, (SELECT n.name_id FROM names n WHERE n.name = s.name), @now, @now, 0
           FROM temp.sync_stage s
           WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.itemId = s.itemId)
           ORDER BY s.itemId`,
        )
        .run({ now }).changes;
      db.prepare('DELETE FROM sold_items WHERE itemId IN (SELECT itemId FROM temp.sync_stage)').run();
    }
    for (const index of indexes) db.exec(index.sql);

    // Tell the readers' catalog indexes what changed: item by item (a repricing with its new price, so they
    // need not read the row), or "reload" when it is a lot.
    const changedCount = added + updated + removed;
    if (changedCount > CHANGE_LOG_ITEMS_MAX) {
      writer.logFullReload();
    } else if (changedCount > 0) {
      db.prepare(
        `INSERT INTO item_changes (itemId, price)
         SELECT itemId, NULL FROM temp.sync_gone
         UNION ALL SELECT c.itemId, CASE WHEN p.itemId IS NULL THEN NULL ELSE c.price END
           FROM temp.sync_changed c LEFT JOIN temp.sync_price_only p ON p.itemId = c.itemId
         UNION ALL SELECT itemId, NULL FROM temp.sync_stage s WHERE NOT EXISTS (SELECT 1 FROM temp.sync_changed c WHERE c.itemId = s.itemId)`,
      ).run();
    }
    const total = finishApply(writer, envelope, now, 'touched');
    return { added, updated, removed, total, keptFromFeed, bulk: indexes.length > 0 };
  }).immediate();
}

/**
 * Bulk: the list was written to items_next / item_json_next. Merge what the
 * cache held (feed-touched items keep the feed's state; others keep their
 * listing time and get price moves; the rest are sold), swap the tables in and
 * build the indexes.
 */
function applyBulk(writer: WriterService, envelope: EnvelopeFields, now: number): ApplyOutcome {
  const db = writer.db;
  const columns = ITEM_TABLE_COLUMNS.join(', ');
  const count = (sql: string) => db.prepare<[], number>(sql).pluck().get() as number;
  return db.transaction((): ApplyOutcome => {
    writer.foldPriceMoves();
    writer.foldLiveListings();
    const keptFromFeed = recordTouched(writer);
    const indexes = itemIndexes(writer);
    db.exec(`
      DELETE FROM items_next WHERE itemId IN (SELECT itemId FROM temp.sync_skip);
      DELETE FROM item_json_next WHERE itemId IN (SELECT itemId FROM temp.sync_skip);
      INSERT INTO items_next (${columns}) SELECT ${columns} FROM items_live WHERE itemId IN (SELECT itemId FROM temp.sync_skip);
      INSERT INTO item_json_next (itemId, json) SELECT itemId, json FROM item_json WHERE itemId IN (SELECT itemId FROM temp.sync_skip);
    `);
    const held = count('SELECT count(*) FROM items');
    let removed = 0;
    let updated = 0;
    if (held > 0) {
      db.exec(`
        INSERT INTO temp.sync_changed (itemId, old_price, price, listed_at, old_move)
          SELECT i.itemId, i.price, n.price, i.listed_at, i.last_move FROM items_live i JOIN items_next n ON n.itemId = i.itemId
          WHERE i.itemId NOT IN (SELECT itemId FROM temp.sync_skip);
        INSERT INTO temp.sync_gone (itemId)
          SELECT i.itemId FROM items i WHERE NOT EXISTS (SELECT 1 FROM items_next n WHERE n.itemId = i.itemId);
      `);
      updated = count('SELECT count(*) FROM temp.sync_changed c JOIN items_live i ON i.itemId = c.itemId JOIN items_next n ON n.itemId = c.itemId WHERE n.hash <> i.hash');
      recordSyncPriceMoves(writer, now);
      // Items the cache held keep their listing time, and their last move unless the price moved now.
      db.prepare(
        `UPDATE items_next AS n SET listed_at = c.listed_at,
           last_move = ${LAST_MOVE_AFTER_SYNC},
           updated_at = CASE WHEN n.hash = i.hash THEN i.updated_at ELSE @now END
         FROM temp.sync_changed AS c JOIN items_live AS i ON i.itemId = c.itemId
         WHERE n.itemId = c.itemId`,
      ).run({ now });
      recordSold(writer, now);
      removed = count('SELECT count(*) FROM temp.sync_gone');
    }
    // The view reads `items`: dropped around the swap (a rename checks every view), then made again.
    // Live prices of the items held were folded into items_next above.
    db.exec(`
      DROP VIEW items_live;
      DROP TABLE items;
      ALTER TABLE items_next RENAME TO items;
      DROP TABLE item_json;
      ALTER TABLE item_json_next RENAME TO item_json;
      ${CREATE_ITEMS_LIVE_VIEW}
      DELETE FROM item_prices;
      DELETE FROM item_prices_pending;
    `);
    for (const index of indexes) db.exec(index.sql);
    db.prepare('DELETE FROM sold_items WHERE itemId IN (SELECT itemId FROM items)').run();
    writer.logFullReload();
    const total = finishApply(writer, envelope, now, 'all');
    // Every item held before is now either still listed or sold.
    return { added: total - (held - removed), updated, removed, total, keptFromFeed, bulk: true };
  }).immediate();
}

export async function runCatalogSync(writer: WriterService, request: CatalogSyncRequest, context: SyncContext): Promise<CatalogSyncResult> {
  const started = performance.now();
  const startedAt = Date.now();
  writer.syncTouched = new Set();
  createScratch(writer);
  let lastProgress = 0;
  let reported = 0;
  let receiver: Receiver | null = null;
  const splitter: ItemSplitter = new ItemSplitter((bytes, start, end) => {
    const target = receiver as Receiver;
    if (target.mode === null) {
      target.decide(splitter.totalItems);
      if (target.mode === 'bulk') createShadowTables(writer);
    }
    return target.element(bytes, start, end);
  });
  try {
    const abortRequest = new AbortController();
    const streamed = streamBody(request, AbortSignal.any([context.signal, abortRequest.signal]), (bytes) => {
      splitter.push(bytes);
      const now = performance.now();
      // As soon as the first items are in, then every ~100 ms while more arrive (a chunk of headers only
      // reports nothing, so the first report is never spent on zero items).
      if (splitter.received > reported && (reported === 0 || now - lastProgress >= PROGRESS_INTERVAL_MS)) {
        lastProgress = now;
        reported = splitter.received;
        context.progress({ phase: 'receiving', received: reported, total: splitter.totalItems, applied: 0 });
      }
    });
    // The request is on its way: read what the cache holds while the server starts answering (no byte is
    // handled before this turn ends, so the receiver exists before the first item).
    try {
      receiver = new Receiver(writer, KnownItems.load(writer), () => splitter, startedAt);
    } catch (error) {
      streamed.catch(() => {}); // its failure (the cut below) is not the one to report
      abortRequest.abort();
      throw error;
    }
    const outcome = await streamed;
    if (outcome.kind === 'http') return { ok: false, status: outcome.status, headers: outcome.headers, bodyText: outcome.bodyText };
    let envelope: EnvelopeFields;
    try {
      envelope = splitter.end();
    } catch (error) {
      throw new CatalogSyncError('protocol', `the catalog could not be read: ${(error as Error).message}`);
    }
    const received = receiver as Receiver;
    // An empty list never picked a mode: it empties the cache like any list.
    const mode = received.decide(envelope.totalItems);
    if (mode === 'bulk' && received.written === 0) createShadowTables(writer);
    received.flush();
    if (context.signal.aborted) throw new CatalogSyncError('aborted', 'the catalog sync was cancelled');
    context.progress({ phase: 'applying', received: splitter.received, total: envelope.totalItems ?? splitter.totalItems, applied: 0 });
    const applyStarted = performance.now();
    const now = Date.now();
    const applied = mode === 'bulk' ? applyBulk(writer, envelope, now) : applyIncremental(writer, received, envelope, now);
    // Large changes shift the planner's statistics; refresh them (bounded, well under a second at 1M rows).
    if (applied.bulk || applied.added + applied.removed > applied.total / 10) writer.refreshStatistics();
    context.progress({ phase: 'done', received: splitter.received, total: envelope.totalItems ?? splitter.totalItems, applied: received.written + received.unchanged });
    return {
      ok: true,
      added: applied.added,
      updated: applied.updated,
      removed: applied.removed,
      total: applied.total,
      serverTotal: envelope.totalItems,
      lastUpdate: envelope.lastUpdate,
      ms: Math.round(performance.now() - started),
      applyMs: Math.round(performance.now() - applyStarted),
      skipped: received.skipped,
      firstSkipReason: received.firstSkipReason,
      keptFromFeed: applied.keptFromFeed,
      mode,
      unchanged: received.unchanged,
    };
  } finally {
    dropScratch(writer);
  }
}
