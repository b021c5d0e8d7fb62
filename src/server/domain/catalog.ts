import type { Item, PriceChange } from '../../shared/api';
import { toUtcIso } from '../../shared/time';
import type { SandboxClock } from '../clock';
import type { MetaStore, SqliteDatabase } from '../db/database';
import { openSnapshotReader } from '../db/database';
import { notFound } from './apiError';
import type { SandboxEvents } from './events';
import { crc32Combine, GZIP_HEADER, gzipTrailer, segmentOf, segmentOfAsync, type GzipSegment } from './gzipSegments';
import type { ItemRecord, Reveal } from './itemRecord';
import { serializeItem, toItemRecord } from './itemRecord';

interface ItemRow {
  item_id: number;
  asset_id: string;
  market_hash_name: string;
  phase: string | null;
  price: number;
  steam_id: string | null;
  inspect_in_game: string | null;
  trade_url: string | null;
  json: string;
}

function toRecord(row: ItemRow): ItemRecord {
  const parsed = JSON.parse(row.json) as { float: number | null };
  return {
    itemId: row.item_id,
    assetId: row.asset_id,
    market_hash_name: row.market_hash_name,
    phase: row.phase,
    price: row.price,
    float: parsed.float,
    steamId: row.steam_id,
    inspectInGame: row.inspect_in_game,
    tradeUrl: row.trade_url,
    json: row.json,
  };
}

const LAST_UPDATE_KEY = 'catalog_last_update';
const STREAM_CHUNK_ROWS = 2000;
/** Item ids per cached gzip segment of the on-sale list (ids are dense, so ~2k items each). */
const SEGMENT_SPAN = 2048;
/** Compressed segments kept, all reveal settings together (~50 MB per 500k items). */
const SEGMENT_CACHE_BYTES = 384 * 1024 * 1024;
/** Segments compressing at once while the list streams (the thread pool works while the next one is read). */
const SEGMENTS_IN_FLIGHT = 3;

interface ListHead {
  version: number;
  items: number;
  value: number;
  firstId: number;
  lastId: number;
}

interface CachedSegment extends GzipSegment {
  epoch: number;
  version: number;
  /** Items in the segment (0: no on-sale item in its id range). */
  items: number;
}

function revealKey(reveal: Reveal): string {
  return `${reveal.steamId ? 1 : 0}${reveal.inspectInGame ? 1 : 0}${reveal.tradeUrl ? 1 : 0}`;
}

/** True when an Accept-Encoding header admits gzip (q > 0, by name or `*`). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  let gzip: number | null = null;
  let star: number | null = null;
  for (const part of text.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (name === 'gzip' || name === 'x-gzip') gzip = Number.isNaN(q) ? 0 : q;
    else if (name === '*') star = Number.isNaN(q) ? 0 : q;
  }
  return (gzip ?? star ?? 0) > 0;
}

/** The items on sale. Bought, removed and sold-elsewhere items stay as rows with on_sale = 0. */
export class Catalog {
  private readonly upsertStmt;
  private readonly onSaleStmt;
  private readonly anyStmt;
  private readonly byIdsStmt;
  private readonly takeOffSaleStmt;
  /**
   * Cache of the compressed on-sale list, by id range: every write bumps the version
   * of its range (`touch`), bulk rewrites bump the epoch; a streamed list reuses a
   * range's segment only when it was built from the same versions as its snapshot.
   */
  private readonly rangeVersions = new Map<number, number>();
  private epoch = 0;
  /** Bumped with every range version and epoch: the on-sale list is unchanged while it is. */
  private listVersion = 0;
  /** Totals and id bounds of the on-sale list at `version` (two scans of 500k rows, ~0.1 s, saved per download). */
  private listHead: ListHead | null = null;
  private readonly segments = new Map<string, CachedSegment>();
  private segmentBytes = 0;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly dbFile: string,
    private readonly meta: MetaStore,
    private readonly clock: SandboxClock,
    private readonly events: SandboxEvents,
  ) {
    this.upsertStmt = db.prepare(
      `INSERT INTO items (item_id, asset_id, market_hash_name, phase, price, steam_id, inspect_in_game, trade_url, json, on_sale, updated_at)
       VALUES (@itemId, @assetId, @market_hash_name, @phase, @price, @steamId, @inspectInGame, @tradeUrl, @json, 1, @now)
       ON CONFLICT (item_id) DO UPDATE SET asset_id = excluded.asset_id, market_hash_name = excluded.market_hash_name,
         phase = excluded.phase, price = excluded.price, steam_id = excluded.steam_id, inspect_in_game = excluded.inspect_in_game,
         trade_url = excluded.trade_url, json = excluded.json, on_sale = 1, updated_at = excluded.updated_at`,
    );
    this.onSaleStmt = db.prepare<[number], ItemRow>('SELECT * FROM items WHERE item_id = ? AND on_sale = 1');
    this.anyStmt = db.prepare<[number], ItemRow>('SELECT * FROM items WHERE item_id = ?');
    this.byIdsStmt = db.prepare<[string], ItemRow>(
      'SELECT * FROM items WHERE on_sale = 1 AND item_id IN (SELECT value FROM json_each(?)) ORDER BY item_id',
    );
    this.takeOffSaleStmt = db.prepare('UPDATE items SET on_sale = 0, updated_at = ? WHERE item_id = ? AND on_sale = 1');
  }

  /** Marks an item's id range changed (its cached list segment is stale). */
  private touch(itemId: number): void {
    const range = Math.floor(itemId / SEGMENT_SPAN);
    this.rangeVersions.set(range, (this.rangeVersions.get(range) ?? 0) + 1);
    this.listVersion++;
  }

  /** Every cached segment is stale (bulk load, reset, image URL rewrite). */
  invalidateAll(): void {
    this.epoch++;
    this.listVersion++;
    this.segments.clear();
    this.segmentBytes = 0;
  }

  get lastUpdate(): string {
    return this.meta.get(LAST_UPDATE_KEY) ?? toUtcIso(this.clock.now());
  }

  isEmpty(): boolean {
    return this.db.prepare('SELECT 1 FROM items LIMIT 1').get() === undefined;
  }

  /** Bulk load without events, for seeding. */
  load(items: Iterable<Item>, batchSize = 5000): number {
    let count = 0;
    let batch: ItemRecord[] = [];
    const now = this.clock.now();
    const write = this.db.transaction((records: ItemRecord[]) => {
      for (const record of records) this.upsertStmt.run({ ...record, now });
    });
    for (const item of items) {
      batch.push(toItemRecord(item));
      if (batch.length >= batchSize) {
        write(batch);
        count += batch.length;
        batch = [];
      }
    }
    write(batch);
    count += batch.length;
    this.invalidateAll();
    this.meta.set(LAST_UPDATE_KEY, toUtcIso(now));
    return count;
  }

  /** Adds or replaces items on sale and announces them (item_upserted). */
  upsert(items: Item[]): ItemRecord[] {
    const records = items.map(toItemRecord);
    const now = this.clock.now();
    this.db.transaction(() => {
      for (const record of records) this.upsertStmt.run({ ...record, now });
    })();
    for (const record of records) this.touch(record.itemId);
    if (records.length > 0) this.events.emit('itemsUpserted', records);
    return records;
  }

  findOnSale(itemId: number): ItemRecord | null {
    const row = this.onSaleStmt.get(itemId);
    return row ? toRecord(row) : null;
  }

  find(itemId: number): ItemRecord | null {
    const row = this.anyStmt.get(itemId);
    return row ? toRecord(row) : null;
  }

  /** Takes one item off sale inside the caller's transaction; announce with `announceRemoved` after commit. */
  takeOffSale(itemId: number): boolean {
    this.touch(itemId);
    return this.takeOffSaleStmt.run(this.clock.now(), itemId).changes > 0;
  }

  announceRemoved(itemIds: number[]): void {
    if (itemIds.length > 0) this.events.emit('itemsRemoved', itemIds);
  }

  /** Takes items off sale (delisted or sold elsewhere) and announces it; returns those that were on sale. */
  remove(itemIds: number[]): number[] {
    const removed = this.db.transaction(() => itemIds.filter((itemId) => this.takeOffSale(itemId)))();
    this.announceRemoved(removed);
    return removed;
  }

  /** Puts an item back on sale (its trade ended and the seller still holds it) and announces it. */
  relist(itemId: number): ItemRecord | null {
    const changed = this.db
      .prepare('UPDATE items SET on_sale = 1, updated_at = ? WHERE item_id = ? AND on_sale = 0')
      .run(this.clock.now(), itemId);
    if (changed.changes === 0) return null;
    this.touch(itemId);
    const record = this.findOnSale(itemId) as ItemRecord;
    this.events.emit('itemsUpserted', [record]);
    return record;
  }

  /** Changes prices of items on sale and announces them (price_changed). */
  reprice(changes: PriceChange[]): PriceChange[] {
    const applied: PriceChange[] = [];
    const stmt = this.db.prepare(
      // CAST: a JavaScript number binds as a REAL, and json_set would write it as `67.0` (an integer field of the spec).
      `UPDATE items SET price = @price, json = json_set(json, '$.price', CAST(@price AS INTEGER)), updated_at = @now
       WHERE item_id = @itemId AND on_sale = 1 AND price != @price`,
    );
    this.db.transaction(() => {
      for (const change of changes)
        if (stmt.run({ ...change, now: this.clock.now() }).changes > 0) applied.push(change);
    })();
    for (const change of applied) this.touch(change.itemId);
    if (applied.length > 0) this.events.emit('pricesChanged', applied);
    return applied;
  }

  setPrice(itemId: number, price: number): ItemRecord {
    if (!this.findOnSale(itemId)) throw notFound(`item ${itemId} on sale`);
    this.reprice([{ itemId, price }]);
    return this.findOnSale(itemId) as ItemRecord;
  }

  searchByIds(itemIds: number[]): ItemRecord[] {
    // One statement for any number of ids (a statement per count was prepared on every call).
    const rows = this.byIdsStmt.all(JSON.stringify([...new Set(itemIds)])) as ItemRow[];
    return rows.map(toRecord);
  }

  searchByNames(names: string[]): ItemRecord[] {
    const unique = [...new Set(names)];
    const placeholders = unique.map(() => '?').join(',');
    const rows = this.db
      .prepare(
        `SELECT * FROM items WHERE on_sale = 1 AND market_hash_name IN (${placeholders}) ORDER BY price, item_id`,
      )
      .all(...unique) as ItemRow[];
    return rows.map(toRecord);
  }

  /** On-sale items of one name (optionally one phase), cheapest first. */
  byName(name: string, phase: string | null): ItemRecord[] {
    const rows = (
      phase === null
        ? this.db
            .prepare('SELECT * FROM items WHERE on_sale = 1 AND market_hash_name = ? ORDER BY price, item_id')
            .all(name)
        : this.db
            .prepare(
              'SELECT * FROM items WHERE on_sale = 1 AND market_hash_name = ? AND phase = ? ORDER BY price, item_id',
            )
            .all(name, phase)
    ) as ItemRow[];
    return rows.map(toRecord);
  }

  maxItemId(): number {
    return (this.db.prepare('SELECT coalesce(max(item_id), 0) AS m FROM items').get() as { m: number }).m;
  }

  totals(): { totalItems: number; totalValue: number } {
    const head = this.headOf(this.db);
    return { totalItems: head.items, totalValue: head.value };
  }

  /** Starts a new on-sale list build: a new lastUpdate, then `catalogRebuilt`. */
  rebuild(): string {
    const lastUpdate = toUtcIso(this.clock.now());
    this.meta.set(LAST_UPDATE_KEY, lastUpdate);
    this.events.emit('catalogRebuilt', lastUpdate);
    return lastUpdate;
  }

  /**
   * The on-sale list envelope as JSON text chunks, read from one snapshot of
   * the database so totals and items agree even while the market moves.
   * Never builds the whole body as one string: 1M items exceed V8's limit.
   */
  async *streamEnvelope(reveal: Reveal): AsyncGenerator<string> {
    const reader = openSnapshotReader(this.dbFile);
    try {
      reader.exec('BEGIN');
      const head = this.headOf(reader);
      const lastUpdate = this.lastUpdate;
      yield `{"totalItems":${head.items},"totalValue":${head.value},"items":[`;
      const page = reader.prepare<
        [number, number],
        Pick<ItemRow, 'item_id' | 'json' | 'steam_id' | 'inspect_in_game' | 'trade_url'>
      >(
        'SELECT item_id, json, steam_id, inspect_in_game, trade_url FROM items WHERE on_sale = 1 AND item_id > ? ORDER BY item_id LIMIT ?',
      );
      let after = 0;
      let first = true;
      for (;;) {
        const rows = page.all(after, STREAM_CHUNK_ROWS);
        if (rows.length === 0) break;
        let chunk = '';
        for (const row of rows) {
          chunk +=
            (first ? '' : ',') +
            serializeItem(
              { json: row.json, steamId: row.steam_id, inspectInGame: row.inspect_in_game, tradeUrl: row.trade_url },
              reveal,
            );
          first = false;
        }
        after = (rows[rows.length - 1] as { item_id: number }).item_id;
        yield chunk;
      }
      yield `],"lastUpdate":${JSON.stringify(lastUpdate)}}`;
      reader.exec('COMMIT');
    } finally {
      reader.close();
    }
  }

  /**
   * The same envelope as `streamEnvelope`, gzip-compressed, as one gzip member
   * assembled from per-id-range segments (gzipSegments.ts). A range's segment is
   * compressed once and reused by later requests until an item of that range
   * changes, so a list that moved a little costs little to serve again. Reads come
   * from one snapshot, as in streamEnvelope.
   */
  async *streamEnvelopeGzip(reveal: Reveal): AsyncGenerator<Buffer> {
    const reader = openSnapshotReader(this.dbFile);
    try {
      reader.exec('BEGIN');
      const head = this.headOf(reader);
      // The snapshot is fixed by the read above; writes run on this thread, so none came between.
      const epoch = this.epoch;
      const versions = new Map(this.rangeVersions);
      const lastUpdate = this.lastUpdate;
      const key = revealKey(reveal);
      const first = Math.floor(head.firstId / SEGMENT_SPAN);
      const last = head.items === 0 ? first - 1 : Math.floor(head.lastId / SEGMENT_SPAN);
      const rows = reader.prepare<
        [number, number],
        Pick<ItemRow, 'json' | 'steam_id' | 'inspect_in_game' | 'trade_url'>
      >(
        'SELECT json, steam_id, inspect_in_game, trade_url FROM items WHERE item_id >= ? AND item_id < ? AND on_sale = 1 ORDER BY item_id',
      );

      let crc = 0;
      let length = 0;
      const emit = (segment: GzipSegment): Buffer => {
        crc = crc32Combine(crc, segment.crc, segment.length);
        length += segment.length;
        return segment.deflated;
      };
      const segmentFor = (range: number): CachedSegment | Promise<CachedSegment> => {
        const version = versions.get(range) ?? 0;
        const cacheKey = `${key}:${range}`;
        const cached = this.segments.get(cacheKey);
        if (cached && cached.epoch === epoch && cached.version === version) {
          this.segments.delete(cacheKey);
          this.segments.set(cacheKey, cached); // most recently used last
          return cached;
        }
        const found = rows.all(range * SEGMENT_SPAN, (range + 1) * SEGMENT_SPAN);
        let text = '';
        for (let i = 0; i < found.length; i++) {
          const row = found[i] as Pick<ItemRow, 'json' | 'steam_id' | 'inspect_in_game' | 'trade_url'>;
          text +=
            (i === 0 ? '' : ',') +
            serializeItem(
              { json: row.json, steamId: row.steam_id, inspectInGame: row.inspect_in_game, tradeUrl: row.trade_url },
              reveal,
            );
        }
        const store = (segment: GzipSegment): CachedSegment => {
          const built = { ...segment, epoch, version, items: found.length };
          // Cache it only if nothing in its range changed since the snapshot: then it is also the current state.
          if (this.epoch === epoch && (this.rangeVersions.get(range) ?? 0) === version) this.remember(cacheKey, built);
          return built;
        };
        if (found.length === 0) return store({ deflated: Buffer.alloc(0), crc: 0, length: 0 });
        return segmentOfAsync(text).then(store);
      };

      yield GZIP_HEADER;
      yield emit(segmentOf(`{"totalItems":${head.items},"totalValue":${head.value},"items":[`));
      const comma = segmentOf(',');
      let any = false;
      const queue: (CachedSegment | Promise<CachedSegment>)[] = [];
      let next = first;
      while (next <= last || queue.length > 0) {
        while (next <= last && queue.length < SEGMENTS_IN_FLIGHT) queue.push(segmentFor(next++));
        const segment = await (queue.shift() as CachedSegment | Promise<CachedSegment>);
        if (segment.items === 0) continue;
        if (any) yield emit(comma);
        any = true;
        yield emit(segment);
      }
      yield emit(segmentOf(`],"lastUpdate":${JSON.stringify(lastUpdate)}}`));
      yield gzipTrailer(crc, length);
      reader.exec('COMMIT');
    } finally {
      reader.close();
    }
  }

  /**
   * Totals and id bounds of the on-sale list as `reader` sees it: a snapshot just begun, or the
   * write connection. Every write runs on this thread and bumps listVersion, so values read at the
   * same version are still what `reader` would read.
   */
  private headOf(reader: SqliteDatabase): ListHead {
    if (this.listHead?.version === this.listVersion) return this.listHead;
    const totals = reader
      .prepare('SELECT count(*) AS n, coalesce(sum(price), 0) AS v FROM items WHERE on_sale = 1')
      .get() as { n: number; v: number };
    const bound = (dir: 'ASC' | 'DESC') =>
      (reader.prepare(`SELECT item_id FROM items WHERE on_sale = 1 ORDER BY item_id ${dir} LIMIT 1`).pluck().get() as
        number | undefined) ?? 0;
    this.listHead = {
      version: this.listVersion,
      items: totals.n,
      value: totals.v,
      firstId: bound('ASC'),
      lastId: bound('DESC'),
    };
    return this.listHead;
  }

  private remember(cacheKey: string, segment: CachedSegment): void {
    const previous = this.segments.get(cacheKey);
    if (previous) {
      this.segmentBytes -= previous.deflated.length;
      this.segments.delete(cacheKey);
    }
    this.segments.set(cacheKey, segment);
    this.segmentBytes += segment.deflated.length;
    while (this.segmentBytes > SEGMENT_CACHE_BYTES) {
      const [oldestKey, oldest] = this.segments.entries().next().value as [string, CachedSegment];
      this.segments.delete(oldestKey);
      this.segmentBytes -= oldest.deflated.length;
    }
  }

  /** The envelope for a handful of items (SearchItems). */
  envelopeOf(records: ItemRecord[], reveal: Reveal): string {
    const totalValue = records.reduce((sum, record) => sum + record.price, 0);
    const items = records.map((record) => serializeItem(record, reveal)).join(',');
    return `{"totalItems":${records.length},"totalValue":${totalValue},"items":[${items}],"lastUpdate":${JSON.stringify(this.lastUpdate)}}`;
  }
}
