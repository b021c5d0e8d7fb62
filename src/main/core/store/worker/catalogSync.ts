/**
 * Streaming catalog sync, run inside the writer thread.
 *
 * 1. GET the on-sale list with node:http(s) (raw, so gzip is visible and
 *    decompressed here as a stream), decode UTF-8 incrementally.
 * 2. EnvelopeParser splits the items array into batches of parsed items; each
 *    item gets a cheap hand check (every 1000th also the full zod schema) and
 *    goes into a TEMP staging table, private to this connection, in short
 *    transactions. No write transaction is held while waiting on the network,
 *    and the thread yields every ~20 ms so other writes (trade updates) keep
 *    being served while the list streams.
 * 3. At the end ONE transaction diffs staging against `items` with set-based
 *    SQL (insert new, update changed, delete missing, record price moves) and
 *    updates meta. A failed or cancelled download never reaches step 3, so the
 *    previous complete catalog stays as it was.
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { itemSchema, type Item } from '../../../../shared/api';
import { CatalogSyncError } from '../errors';
import type { CatalogSyncRequest, CatalogSyncResult } from '../types';
import { EnvelopeFormatError, EnvelopeParser, type EnvelopeFields } from './envelopeParser';
import { ITEM_COLUMNS, itemColumns, META } from './rows';
import type { SyncContext, WriterService } from './writer';

const STAGE_BATCH_ITEMS = 2000;
const PROGRESS_INTERVAL_MS = 100;
/** Longest stretch of parsing before the thread lets queued messages in. */
const SLICE_MS = 20;
const ERROR_BODY_LIMIT = 64 * 1024;
const FULL_CHECK_EVERY = 1000;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** Sold items (and their price history) are kept this long. */
const SOLD_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** More changes than this in one sync: readers reload their catalog index instead of repairing it. */
const CHANGE_LOG_ITEMS_MAX = 20_000;

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
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

/**
 * Downloads `request.url`, handing decoded text to `onText` chunk by chunk.
 * Resolves when the body ended, or with the first 64 KB of a non-2xx answer.
 */
function streamBody(request: CatalogSyncRequest, signal: AbortSignal, onText: (text: string) => void): Promise<StreamOutcome> {
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
      stream.setEncoding('utf8');
      stream.on('error', networkFailure('could not be decompressed'));
      const status = res.statusCode ?? 0;

      if (status < 200 || status >= 300) {
        let text = '';
        const finish = () => {
          if (settled) return;
          settled = true;
          cleanup();
          resolve({ kind: 'http', status, headers: flatHeaders(res.headers), bodyText: text.slice(0, ERROR_BODY_LIMIT) });
          req.destroy();
          res.destroy();
          stream.destroy();
        };
        stream.on('data', (chunk: string) => {
          text += chunk;
          if (text.length >= ERROR_BODY_LIMIT) finish();
        });
        stream.on('end', finish);
        stream.on('close', finish);
        return;
      }

      let sliceStart = performance.now();
      stream.on('data', (chunk: string) => {
        if (settled) return;
        try {
          onText(chunk);
        } catch (error) {
          fail(error);
          return;
        }
        if (performance.now() - sliceStart > SLICE_MS) {
          // Let the thread serve queued requests (trade updates, small writes) between slices.
          stream.pause();
          setImmediate(() => {
            sliceStart = performance.now();
            if (!settled) stream.resume();
          });
        }
      });
      stream.on('end', () => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve({ kind: 'ok' });
      });
      stream.on('close', () => {
        if (!settled) fail(new CatalogSyncError('network', 'the catalog download was cut off before the end'));
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

/** The hand check every item gets: the fields the cache stores and indexes. Returns what is wrong, or null. */
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

// ---- staging and apply

const STAGE_COLUMNS = ITEM_COLUMNS.join(', ');

class Stager {
  private readonly insert;
  private pending: Item[] = [];
  staged = 0;
  skipped = 0;
  firstSkipReason: string | null = null;
  /** Distinct names staged (a few thousand), so the apply need not DISTINCT a million rows. */
  readonly names = new Set<string>();
  private seen = 0;

  constructor(private readonly writer: WriterService) {
    const db = writer.db;
    db.exec(`
      DROP TABLE IF EXISTS temp.sync_stage;
      DROP TABLE IF EXISTS temp.sync_skip;
      DROP TABLE IF EXISTS temp.sync_gone;
      DROP TABLE IF EXISTS temp.sync_changed;
      CREATE TEMP TABLE sync_stage (
        itemId INTEGER PRIMARY KEY, assetId TEXT, name TEXT, phase TEXT, price INTEGER, float REAL, paintSeed INTEGER,
        paintIndex INTEGER, rarityColor TEXT, rarity_rank INTEGER, img TEXT, statTrak INTEGER, souvenir INTEGER,
        stickerCount INTEGER, stickerNames TEXT, keyChainNames TEXT, hash INTEGER, json TEXT
      );
      CREATE TEMP TABLE sync_skip (itemId INTEGER PRIMARY KEY);
      CREATE TEMP TABLE sync_gone (itemId INTEGER PRIMARY KEY);
      CREATE TEMP TABLE sync_changed (itemId INTEGER PRIMARY KEY, old_price INTEGER, price INTEGER, listed_at INTEGER);
    `);
    this.insert = db.prepare(
      `INSERT OR REPLACE INTO temp.sync_stage (${STAGE_COLUMNS}, json) VALUES (${ITEM_COLUMNS.map((c) => `@${c}`).join(', ')}, @json)`,
    );
  }

  add(items: unknown[]): void {
    for (const value of items) {
      this.seen += 1;
      let problem = quickItemCheck(value);
      if (problem === null && (this.seen === 1 || this.seen % FULL_CHECK_EVERY === 0)) {
        const parsed = itemSchema.safeParse(value);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          problem = `${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`;
        }
      }
      if (problem !== null) {
        this.skipped += 1;
        if (this.firstSkipReason === null) {
          const id = (value as { itemId?: unknown } | null)?.itemId;
          this.firstSkipReason = `item ${typeof id === 'number' ? id : `#${this.seen}`}: ${problem}`;
        }
        continue;
      }
      this.pending.push(value as Item);
      if (this.pending.length >= STAGE_BATCH_ITEMS) this.flush();
    }
  }

  /** Writes the pending items in one short transaction on the TEMP table. */
  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.writer.db.transaction(() => {
      for (const item of batch) {
        this.insert.run(itemColumns(item));
        this.names.add(item.market_hash_name);
      }
    })();
    this.staged += batch.length;
  }

  drop(): void {
    try {
      this.writer.db.exec(
        'DROP TABLE IF EXISTS temp.sync_stage; DROP TABLE IF EXISTS temp.sync_skip; DROP TABLE IF EXISTS temp.sync_gone; DROP TABLE IF EXISTS temp.sync_changed;',
      );
    } catch {
      // The connection may be closing; temp tables die with it.
    }
  }
}

interface ApplyOutcome {
  added: number;
  updated: number;
  removed: number;
  total: number;
  keptFromFeed: number;
  bulk: boolean;
}

/**
 * When a sync rewrites a large part of the catalog (the first sync of an
 * account, or most rows changed), the secondary indexes of items are dropped
 * before and rebuilt after the writes, inside the same transaction: building
 * an index by sorting is several times faster than updating nine b-trees row
 * by row (1M rows: ~6 s instead of ~20 s).
 */
function isBulkChange(rowsWritten: number, totalAfter: number): boolean {
  return rowsWritten >= 10_000 && rowsWritten * 4 > totalAfter;
}

function applyStaged(writer: WriterService, envelope: EnvelopeFields, names: ReadonlySet<string>, now: number): ApplyOutcome {
  const db = writer.db;
  const insertColumns = [...ITEM_COLUMNS, 'name_id', 'listed_at', 'updated_at', 'last_move'].join(', ');
  const stageSelect = ITEM_COLUMNS.map((c) => `s.${c}`).join(', ');
  const updateSet = ITEM_COLUMNS.filter((c) => c !== 'itemId')
    .map((c) => `${c} = s.${c}`)
    .join(', ');
  return db.transaction((): ApplyOutcome => {
    // Items the feed changed while the list streamed keep the feed's (newer) state.
    const touched = writer.syncTouched ?? new Set<number>();
    const skip = db.prepare<[number]>('INSERT OR IGNORE INTO temp.sync_skip (itemId) VALUES (?)');
    for (const itemId of touched) skip.run(itemId);
    db.prepare('DELETE FROM temp.sync_stage WHERE itemId IN (SELECT itemId FROM temp.sync_skip)').run();

    const addName = db.prepare<[string]>('INSERT OR IGNORE INTO names (name, item_count) VALUES (?, 0)');
    for (const name of names) addName.run(name);

    // Missing from the list: sold. Keep their JSON a while for detail views and trades.
    db.prepare(
      `INSERT INTO temp.sync_gone (itemId)
       SELECT i.itemId FROM items i
       WHERE NOT EXISTS (SELECT 1 FROM temp.sync_stage s WHERE s.itemId = i.itemId)
         AND NOT EXISTS (SELECT 1 FROM temp.sync_skip k WHERE k.itemId = i.itemId)`,
    ).run();
    // CROSS JOIN keeps sync_gone (usually tiny) as the outer loop: never a scan of item_json.
    db.prepare(
      'INSERT OR REPLACE INTO sold_items (itemId, json, removed_at) SELECT j.itemId, j.json, ? FROM temp.sync_gone g CROSS JOIN item_json j ON j.itemId = g.itemId',
    ).run(now);
    const removed = db.prepare('DELETE FROM items WHERE itemId IN (SELECT itemId FROM temp.sync_gone)').run().changes;
    db.prepare('DELETE FROM item_json WHERE itemId IN (SELECT itemId FROM temp.sync_gone)').run();

    // Changed items (hash differs), and their price moves; the first move also records the listing price.
    db.prepare(
      `INSERT INTO temp.sync_changed (itemId, old_price, price, listed_at)
       SELECT s.itemId, i.price, s.price, i.listed_at FROM temp.sync_stage s JOIN items i ON i.itemId = s.itemId WHERE s.hash <> i.hash`,
    ).run();
    db.prepare(
      `INSERT INTO price_points (itemId, at, price)
       SELECT c.itemId, c.listed_at, c.old_price FROM temp.sync_changed c
       WHERE c.price <> c.old_price AND NOT EXISTS (SELECT 1 FROM price_points p WHERE p.itemId = c.itemId)`,
    ).run();
    db.prepare('INSERT INTO price_points (itemId, at, price) SELECT itemId, ?, price FROM temp.sync_changed WHERE price <> old_price').run(now);

    // How much is about to change. Every item still held is in the staging table or in
    // the skip list (the gone ones were just deleted), so the rest of the staging table is new.
    const count = (sql: string) => db.prepare<[], number>(sql).pluck().get() as number;
    const changing = count('SELECT count(*) FROM temp.sync_changed');
    const skippedHeld = count('SELECT count(*) FROM temp.sync_skip k WHERE EXISTS (SELECT 1 FROM items i WHERE i.itemId = k.itemId)');
    const held = count('SELECT count(*) FROM items');
    const adding = count('SELECT count(*) FROM temp.sync_stage') - (held - skippedHeld);
    const bulk = isBulkChange(changing + adding, held + adding);
    const indexes = bulk
      ? db
          .prepare<[], { name: string; sql: string }>(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'items' AND sql IS NOT NULL",
          )
          .all()
      : [];
    for (const index of indexes) db.exec(`DROP INDEX "${index.name.replaceAll('"', '""')}"`);

    const updated = db
      .prepare(
        `UPDATE items AS i SET ${updateSet},
           name_id = (SELECT n.name_id FROM names n WHERE n.name = s.name),
           updated_at = @now,
           last_move = CASE WHEN s.price > i.price THEN 1 WHEN s.price < i.price THEN -1 ELSE i.last_move END
         FROM temp.sync_stage AS s
         WHERE s.itemId = i.itemId AND i.itemId IN (SELECT itemId FROM temp.sync_changed)`,
      )
      .run({ now }).changes;
    db.prepare(
      'UPDATE item_json AS j SET json = s.json FROM temp.sync_stage AS s WHERE s.itemId = j.itemId AND j.itemId IN (SELECT itemId FROM temp.sync_changed)',
    ).run();

    // New items.
    let added = 0;
    if (adding > 0) {
      db.prepare(
        `INSERT OR REPLACE INTO item_json (itemId, json)
         SELECT s.itemId, s.json FROM temp.sync_stage s WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.itemId = s.itemId)`,
      ).run();
      added = db
        .prepare(
          `INSERT INTO items (${insertColumns})
           SELECT ${stageSelect}, (SELECT n.name_id FROM names n WHERE n.name = s.name), @now, @now, 0
           FROM temp.sync_stage s
           WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.itemId = s.itemId)
           ORDER BY s.itemId`,
        )
        .run({ now }).changes;
    }
    for (const index of indexes) db.exec(index.sql);
    if (added > 0) db.prepare('DELETE FROM sold_items WHERE itemId IN (SELECT itemId FROM temp.sync_stage)').run();

    // Tell the readers' catalog indexes what changed: item by item, or "reload" when it is a lot.
    const changedCount = added + updated + removed;
    if (changedCount > CHANGE_LOG_ITEMS_MAX) {
      writer.logFullReload();
    } else if (changedCount > 0) {
      db.prepare(
        `INSERT INTO item_changes (itemId)
         SELECT itemId FROM temp.sync_gone
         UNION ALL SELECT itemId FROM temp.sync_changed
         UNION ALL SELECT itemId FROM items WHERE listed_at = @now AND updated_at = @now AND itemId IN (SELECT itemId FROM temp.sync_stage)`,
      ).run({ now });
    }
    db.prepare('DELETE FROM item_changes WHERE seq <= (SELECT max(seq) FROM item_changes) - 100000').run();

    db.prepare('UPDATE names SET item_count = (SELECT count(*) FROM items WHERE items.name_id = names.name_id)').run();
    db.prepare('DELETE FROM names WHERE item_count = 0').run();

    const cutoff = now - SOLD_RETENTION_MS;
    db.prepare('DELETE FROM price_points WHERE itemId IN (SELECT itemId FROM sold_items WHERE removed_at < ?)').run(cutoff);
    db.prepare('DELETE FROM sold_items WHERE removed_at < ?').run(cutoff);

    const totals = db.prepare<[], { n: number; v: number }>('SELECT count(*) AS n, coalesce(sum(price), 0) AS v FROM items').get() as {
      n: number;
      v: number;
    };
    writer.resetCatalogTotals(totals.n, totals.v);
    writer.setMeta(META.lastUpdate, envelope.lastUpdate);
    writer.setMeta(META.syncedAt, new Date(now).toISOString());
    writer.setMeta(META.serverTotalItems, envelope.totalItems);
    writer.setMeta(META.serverTotalValue, envelope.totalValue);
    return { added, updated, removed, total: totals.n, keptFromFeed: touched.size, bulk };
  }).immediate();
}

export async function runCatalogSync(writer: WriterService, request: CatalogSyncRequest, context: SyncContext): Promise<CatalogSyncResult> {
  const started = performance.now();
  writer.syncTouched = new Set();
  const stager = new Stager(writer);
  let lastProgress = 0;
  const parser = new EnvelopeParser((items) => {
    stager.add(items);
    const now = performance.now();
    if (now - lastProgress >= PROGRESS_INTERVAL_MS) {
      lastProgress = now;
      context.progress({ phase: 'receiving', received: parser.received, total: parser.totalItems, applied: 0 });
    }
  });
  try {
    const outcome = await streamBody(request, context.signal, (text) => parser.push(text));
    if (outcome.kind === 'http') return { ok: false, status: outcome.status, headers: outcome.headers, bodyText: outcome.bodyText };
    let envelope: EnvelopeFields;
    try {
      envelope = parser.end();
    } catch (error) {
      throw new CatalogSyncError('protocol', `the catalog could not be read: ${(error as Error).message}`);
    }
    stager.flush();
    if (context.signal.aborted) throw new CatalogSyncError('aborted', 'the catalog sync was cancelled');
    context.progress({ phase: 'applying', received: parser.received, total: envelope.totalItems ?? parser.totalItems, applied: 0 });
    const applyStarted = performance.now();
    const applied = applyStaged(writer, envelope, stager.names, Date.now());
    // Large changes shift the planner's statistics; refresh them (bounded, well under a second at 1M rows).
    if (applied.bulk || applied.added + applied.removed > applied.total / 10) writer.refreshStatistics();
    context.progress({ phase: 'done', received: parser.received, total: envelope.totalItems ?? parser.totalItems, applied: stager.staged });
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
      skipped: stager.skipped,
      firstSkipReason: stager.firstSkipReason,
      keptFromFeed: applied.keptFromFeed,
    };
  } finally {
    stager.drop();
  }
}
