import { gunzipSync, gzipSync } from 'node:zlib';
import type { Trade, TradeHistoryQuery, TradeStatus } from '../../shared/api';
import { ACTIVE_TRADES_WINDOW_MS, HISTORY_DEFAULT_LIMIT, HISTORY_DEFAULT_PAGE } from '../../shared/api';
import type { SandboxClock } from '../clock';
import { openSnapshotReader, type SqliteDatabase, statementsBySql } from '../db/database';
import { MerchantWhere } from './merchantWhere';
import { OldestFirst } from './oldestFirst';
import { PageSeeks } from './pageSeeks';
import type { TradeRow } from './trades';

/** What a history page needs of each row (all in the trades_page index): its id, for the wire JSON, and what `stage` is computed from. */
interface WireRow {
  trade_id: string;
  status: TradeStatus;
  end_protection: number | null;
  created_at: number;
  seq: number;
}

/** A Trades/History answer kept for repeated identical polls (see TradeHistory.historyBody). */
interface CachedPage {
  /** The merchant's trade-data version it was built from. */
  version: number;
  /** Clock time from which it may be stale: a `stage` turns 2, or a trade leaves the isActive window. */
  validUntil: number;
  /** The answer, gzipped: the form the spec asks clients to accept, ~6 times smaller than the JSON. */
  gzip: Buffer;
}

/** Bound of the history page cache (bytes of gzipped bodies): ~13,000 default pages of 50 trades. */
const PAGE_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * gzip level of history answers (cached pages, and the streamed isActive window). Measured on a default page (50 trades, 30 KB): level 1 takes 95 µs for 4.8 KB,
 * level 6 211 µs for 4.4 KB. Pages are compressed once per change and then served from the cache, but a merchant
 * whose trades keep changing pays it on every poll: the cheaper level.
 */
export const HISTORY_GZIP_LEVEL = 1;

/** The query parameters in a fixed order: one cache key per distinct question. */
const HISTORY_QUERY_KEYS = [
  'tradeId',
  'status',
  'externalId',
  'webhookStatus',
  'isActive',
  'from',
  'to',
  'limit',
  'page',
] as const;

function historyQueryKey(query: TradeHistoryQuery): string {
  return HISTORY_QUERY_KEYS.map((key) => (query[key] === undefined ? '' : String(query[key]))).join('\u0001');
}

/** The WHERE clause (and its parameters) of a Trades/History question asked at `now`: the same for every form of the answer. */
function whereOf(
  merchantId: string,
  query: TradeHistoryQuery,
  now: number,
): { clause: string; params: Record<string, string | number> } {
  const where = new MerchantWhere(merchantId);
  where.add('trade_id = @tradeId', 'tradeId', query.tradeId);
  where.add('status = @status', 'status', query.status);
  where.add('external_id = @externalId', 'externalId', query.externalId);
  where.add('webhook_status = @webhookStatus', 'webhookStatus', query.webhookStatus);
  if (query.isActive === true) where.add('created_at >= @activeSince', 'activeSince', now - ACTIVE_TRADES_WINDOW_MS);
  else where.createdBetween(query.from, query.to);
  return { clause: where.clause, params: where.params };
}

/** Bound of the in-memory wire JSON cache (characters; ~1 byte each): ~100k trades. */
const WIRE_CACHE_CHARS = 64 * 1024 * 1024;

/**
 * Rows read per step of a streamed isActive answer: ~330 KB of JSON, a few milliseconds of work between two turns
 * of the event loop.
 */
const STREAM_STEP_ROWS = 500;

/** What the history answer needs of the trades: a row's `stage` (clock-dependent), and its wire JSON rebuilt when missing. */
export interface WireSource {
  stageOf(row: Pick<WireRow, 'status' | 'end_protection'>, now: number): 1 | 2;
  rebuildWire(tradeId: string): string;
  /** The wire JSON of a row as read (a snapshot's row whose `wire` is not yet computed); nothing is written. */
  wireOfRow(row: TradeRow): string;
}

/**
 * The Trades/History answer: pages built from each trade's stored wire JSON, and a cache of whole answers by
 * merchant and query, valid while the merchant's trades are unchanged.
 */
export class TradeHistory {
  /** Statements by SQL text: Trades/History builds a handful of shapes, each prepared once. */
  private readonly statement: ReturnType<typeof statementsBySql>;
  /**
   * The `wire` column's text by trade id, for trades read or written lately (oldest out
   * first past WIRE_CACHE_CHARS): a history page then reads three small columns per row
   * instead of decoding ~650 bytes of text each. Every write sets the column and this cache.
   */
  private readonly wireCache = new Map<string, string>();
  private readonly oldestWire = new OldestFirst(this.wireCache);
  private wireCacheChars = 0;
  /** Serialized and compressed Trades/History answers by merchant and query, least recently used first. */
  private readonly pages = new Map<string, CachedPage>();
  private readonly oldestPage = new OldestFirst(this.pages);
  private pageBytes = 0;
  /**
   * Paging by merchant and query without its page, and the trade-data version per merchant: bumped by every write
   * to one of its trades (buy, transition, webhookStatus), so a cached page of that merchant is used only while
   * nothing changed.
   */
  private readonly seeks = new PageSeeks();
  private readonly wireStmt;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly clock: SandboxClock,
    private readonly source: WireSource,
  ) {
    this.statement = statementsBySql(db);
    this.wireStmt = db.prepare<[string], string | null>('SELECT wire FROM trades WHERE trade_id = ?').pluck();
  }

  /** A trade's wire JSON was written (its row's `wire` column): kept, and its merchant's cached pages are stale. */
  written(merchantId: string, tradeId: string, wire: string): void {
    this.cacheWire(tradeId, wire);
    this.changed(merchantId);
  }

  private cacheWire(tradeId: string, wire: string): void {
    const previous = this.wireCache.get(tradeId);
    if (previous !== undefined) {
      this.wireCacheChars -= previous.length;
      this.wireCache.delete(tradeId);
    }
    this.wireCache.set(tradeId, wire);
    this.wireCacheChars += wire.length;
    while (this.wireCacheChars > WIRE_CACHE_CHARS) {
      const oldest = this.oldestWire.next() as [string, string];
      this.wireCache.delete(oldest[0]);
      this.wireCacheChars -= oldest[1].length;
    }
  }

  /** After an admin reset (every trade deleted). */
  clear(): void {
    this.wireCache.clear();
    this.oldestWire.reset();
    this.wireCacheChars = 0;
    this.pages.clear();
    this.oldestPage.reset();
    this.pageBytes = 0;
    // Versions only grow (a merchant id may come back after a reset): no page built before matches again.
    this.seeks.clear();
  }

  /** A merchant's trades changed: its cached history pages are stale. */
  private changed(merchantId: string): void {
    this.seeks.changed(merchantId);
  }

  list(merchantId: string, query: TradeHistoryQuery): { trades: Trade[]; total: number; limit: number; page: number } {
    return JSON.parse(this.listJson(merchantId, query)) as {
      trades: Trade[];
      total: number;
      limit: number;
      page: number;
    };
  }

  /** The Trades/History answer as JSON text (built afresh; the route serves historyBody). */
  listJson(merchantId: string, query: TradeHistoryQuery): string {
    return this.buildPage(merchantId, query).json;
  }

  /**
   * The Trades/History answer as bytes, gzip-compressed or not, from a cache of answers by
   * (merchant, query): a merchant polling the same question again while none of its trades
   * changed costs no query, no serialization and no compression. An entry is used only while
   * the merchant's trade-data version is the one it was built from and the clock has not reached
   * the moment it could change by itself (a completed trade's protection ends, so `stage` turns 2;
   * a trade leaves the 14-day isActive window). Entries hold the gzipped form only; a client that
   * does not accept gzip (the spec says clients must) gets it inflated again, which costs less than
   * building it.
   */
  historyBody(merchantId: string, query: TradeHistoryQuery, gzip: boolean): Buffer {
    const key = `${merchantId}\u0000${historyQueryKey(query)}`;
    const version = this.seeks.version(merchantId);
    const cached = this.pages.get(key);
    if (cached && cached.version === version && this.clock.now() < cached.validUntil) {
      this.pages.delete(key);
      this.pages.set(key, cached); // most recently used last
      return gzip ? cached.gzip : gunzipSync(cached.gzip);
    }
    if (cached) this.forgetPage(key, cached);
    const built = this.buildPage(merchantId, query);
    const plain = Buffer.from(built.json);
    const page: CachedPage = {
      version,
      validUntil: built.validUntil,
      gzip: gzipSync(plain, { level: HISTORY_GZIP_LEVEL }),
    };
    this.pages.set(key, page);
    this.pageBytes += page.gzip.length;
    // Least recently used pages go first past the bound (never the one just built).
    while (this.pageBytes > PAGE_CACHE_BYTES && this.pages.size > 1) {
      const [oldestKey, oldest] = this.oldestPage.next() as [string, CachedPage];
      this.forgetPage(oldestKey, oldest);
    }
    return gzip ? page.gzip : plain;
  }

  private forgetPage(key: string, page: CachedPage): void {
    this.pages.delete(key);
    this.pageBytes -= page.gzip.length;
  }

  /**
   * The Trades/History answer as JSON text, built from the stored wire JSON of each
   * trade plus its `stage` (clock-dependent, so computed here): no 28-column row
   * objects, no Date formatting, no serialization per request. `validUntil` is the clock
   * time from which the same question could get another answer without any write.
   */
  private buildPage(merchantId: string, query: TradeHistoryQuery): { json: string; validUntil: number } {
    const now = this.clock.now();
    const { clause, params } = whereOf(merchantId, query, now);
    const order = 'ORDER BY created_at DESC, seq DESC';
    const columns = 'trade_id, status, end_protection, created_at, seq';
    let rows: WireRow[];
    let tail: string;
    if (query.isActive === true) {
      // No paging: every trade of the window; limit reports how many came back.
      rows = this.statement(`SELECT ${columns} FROM trades WHERE ${clause} ${order}`).all(params) as WireRow[];
      tail = `],"total":${rows.length},"limit":${rows.length},"page":1}`;
    } else {
      const limit = query.limit ?? HISTORY_DEFAULT_LIMIT;
      const page = query.page ?? HISTORY_DEFAULT_PAGE;
      const question = historyQueryKey({ ...query, page: undefined });
      const read = this.seeks.page(merchantId, question, page, limit, {
        count: () =>
          (this.statement(`SELECT count(*) AS n FROM trades WHERE ${clause}`).get(params) as { n: number }).n,
        after: (key, n) =>
          this.statement(
            `SELECT ${columns} FROM trades WHERE ${clause} AND (created_at, seq) < (@afterCreatedAt, @afterSeq) ${order} LIMIT @limit`,
          ).all({ ...params, afterCreatedAt: key.createdAt, afterSeq: key.seq, limit: n }) as WireRow[],
        offset: (offset, n) =>
          this.statement(`SELECT ${columns} FROM trades WHERE ${clause} ${order} LIMIT @limit OFFSET @offset`).all({
            ...params,
            limit: n,
            offset,
          }) as WireRow[],
        keyOf: (row) => ({ createdAt: row.created_at, seq: row.seq }),
      });
      rows = read.rows;
      tail = `],"total":${read.total},"limit":${limit},"page":${page}}`;
    }
    let validUntil = Number.POSITIVE_INFINITY;
    for (const row of rows) {
      if (row.status === 'COMPLETED' && row.end_protection !== null && row.end_protection > now)
        validUntil = Math.min(validUntil, row.end_protection);
      // In the window while created_at >= now - 14 days.
      if (query.isActive === true) validUntil = Math.min(validUntil, row.created_at + ACTIVE_TRADES_WINDOW_MS + 1);
    }
    return { json: this.wirePage(rows, tail, now), validUntil };
  }

  private wirePage(rows: WireRow[], tail: string, now: number): string {
    let out = '{"trades":[';
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as WireRow;
      out += `${i === 0 ? '' : ','}${this.wireOf(row.trade_id)},"stage":${this.source.stageOf(row, now)}}`;
    }
    return out + tail;
  }

  /**
   * The isActive=true answer (every trade of the last 14 days, unpaged: 500,000 trades are ~330 MB of JSON) as
   * JSON text in steps of STREAM_STEP_ROWS, the same bytes as listJson. Read by key (created_at, seq), newest
   * first, from one snapshot on a second connection, so writes go on between steps and the answer is still one
   * moment's: its rows, `stage`s and window are those of the instant the first step read. Each step waits for
   * the next turn of the event loop, and the caller pulls the next step only when the last one was taken
   * (a Readable's backpressure); returning early (a client gone) closes the snapshot and reads no further.
   * Not cached: an answer this size would push every cached page out.
   */
  async *streamActive(merchantId: string, query: TradeHistoryQuery): AsyncGenerator<string> {
    const reader = openSnapshotReader(this.db.name, false);
    try {
      reader.exec('BEGIN');
      // The clock is read with the first step, which also fixes the snapshot: both are the same instant's.
      const now = this.clock.now();
      const { clause, params } = whereOf(merchantId, { ...query, isActive: true }, now);
      const step = reader.prepare<Record<string, string | number>, WireRow & { wire: string | null }>(
        `SELECT trade_id, status, end_protection, created_at, seq, wire FROM trades
         WHERE ${clause} AND (created_at, seq) < (@afterCreatedAt, @afterSeq)
         ORDER BY created_at DESC, seq DESC LIMIT ${STREAM_STEP_ROWS}`,
      );
      const fullRow = reader.prepare<[string], TradeRow>('SELECT * FROM trades WHERE trade_id = ?');
      const stepParams = { ...params, afterCreatedAt: Number.MAX_SAFE_INTEGER, afterSeq: Number.MAX_SAFE_INTEGER };
      let count = 0;
      let chunk = '{"trades":[';
      for (;;) {
        const rows = step.all(stepParams);
        for (const row of rows) {
          const wire = row.wire ?? this.source.wireOfRow(fullRow.get(row.trade_id) as TradeRow);
          chunk += `${count === 0 ? '' : ','}${wire},"stage":${this.source.stageOf(row, now)}}`;
          count++;
        }
        const last = rows[rows.length - 1];
        if (rows.length < STREAM_STEP_ROWS || last === undefined) break;
        stepParams.afterCreatedAt = last.created_at;
        stepParams.afterSeq = last.seq;
        yield chunk;
        chunk = '';
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      reader.exec('COMMIT');
      yield `${chunk}],"total":${count},"limit":${count},"page":1}`;
    } finally {
      reader.close();
    }
  }

  private wireOf(tradeId: string): string {
    const cached = this.wireCache.get(tradeId);
    if (cached !== undefined) return cached;
    const stored = this.wireStmt.get(tradeId) as string | null | undefined;
    if (typeof stored === 'string') {
      this.cacheWire(tradeId, stored);
      return stored;
    }
    return this.source.rebuildWire(tradeId);
  }
}
