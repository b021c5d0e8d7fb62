import type { Item, PriceChange } from '../../shared/api';
import { toUtcIso } from '../../shared/time';
import type { SandboxClock } from '../clock';
import type { MetaStore, SqliteDatabase } from '../db/database';
import { openSnapshotReader } from '../db/database';
import { notFound } from './apiError';
import type { SandboxEvents } from './events';
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

/** The items on sale. Bought, removed and sold-elsewhere items stay as rows with on_sale = 0. */
export class Catalog {
  private readonly upsertStmt;
  private readonly onSaleStmt;
  private readonly anyStmt;
  private readonly takeOffSaleStmt;

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
    this.takeOffSaleStmt = db.prepare('UPDATE items SET on_sale = 0, updated_at = ? WHERE item_id = ? AND on_sale = 1');
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
    const changed = this.db.prepare('UPDATE items SET on_sale = 1, updated_at = ? WHERE item_id = ? AND on_sale = 0').run(this.clock.now(), itemId);
    if (changed.changes === 0) return null;
    const record = this.findOnSale(itemId) as ItemRecord;
    this.events.emit('itemsUpserted', [record]);
    return record;
  }

  /** Changes prices of items on sale and announces them (price_changed). */
  reprice(changes: PriceChange[]): PriceChange[] {
    const applied: PriceChange[] = [];
    const stmt = this.db.prepare(
      `UPDATE items SET price = @price, json = json_set(json, '$.price', @price), updated_at = @now
       WHERE item_id = @itemId AND on_sale = 1 AND price != @price`,
    );
    this.db.transaction(() => {
      for (const change of changes) if (stmt.run({ ...change, now: this.clock.now() }).changes > 0) applied.push(change);
    })();
    if (applied.length > 0) this.events.emit('pricesChanged', applied);
    return applied;
  }

  setPrice(itemId: number, price: number): ItemRecord {
    if (!this.findOnSale(itemId)) throw notFound(`item ${itemId} on sale`);
    this.reprice([{ itemId, price }]);
    return this.findOnSale(itemId) as ItemRecord;
  }

  searchByIds(itemIds: number[]): ItemRecord[] {
    const unique = [...new Set(itemIds)];
    const placeholders = unique.map(() => '?').join(',');
    const rows = this.db
      .prepare(`SELECT * FROM items WHERE on_sale = 1 AND item_id IN (${placeholders}) ORDER BY item_id`)
      .all(...unique) as ItemRow[];
    return rows.map(toRecord);
  }

  searchByNames(names: string[]): ItemRecord[] {
    const unique = [...new Set(names)];
    const placeholders = unique.map(() => '?').join(',');
    const rows = this.db
      .prepare(`SELECT * FROM items WHERE on_sale = 1 AND market_hash_name IN (${placeholders}) ORDER BY price, item_id`)
      .all(...unique) as ItemRow[];
    return rows.map(toRecord);
  }

  /** On-sale items of one name (optionally one phase), cheapest first. */
  byName(name: string, phase: string | null): ItemRecord[] {
    const rows = (
      phase === null
        ? this.db.prepare('SELECT * FROM items WHERE on_sale = 1 AND market_hash_name = ? ORDER BY price, item_id').all(name)
        : this.db
            .prepare('SELECT * FROM items WHERE on_sale = 1 AND market_hash_name = ? AND phase = ? ORDER BY price, item_id')
            .all(name, phase)
    ) as ItemRow[];
    return rows.map(toRecord);
  }

  maxItemId(): number {
    return (this.db.prepare('SELECT coalesce(max(item_id), 0) AS m FROM items').get() as { m: number }).m;
  }

  totals(): { totalItems: number; totalValue: number } {
    const row = this.db.prepare('SELECT count(*) AS n, coalesce(sum(price), 0) AS v FROM items WHERE on_sale = 1').get() as {
      n: number;
      v: number;
    };
    return { totalItems: row.n, totalValue: row.v };
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
      const totals = reader.prepare('SELECT count(*) AS n, coalesce(sum(price), 0) AS v FROM items WHERE on_sale = 1').get() as {
        n: number;
        v: number;
      };
      const lastUpdate = this.lastUpdate;
      yield `{"totalItems":${totals.n},"totalValue":${totals.v},"items":[`;
      const page = reader.prepare<[number, number], Pick<ItemRow, 'item_id' | 'json' | 'steam_id' | 'inspect_in_game' | 'trade_url'>>(
        'SELECT item_id, json, steam_id, inspect_in_game, trade_url FROM items WHERE on_sale = 1 AND item_id > ? ORDER BY item_id LIMIT ?',
      );
      let after = 0;
      let first = true;
      for (;;) {
        const rows = page.all(after, STREAM_CHUNK_ROWS);
        if (rows.length === 0) break;
        let chunk = '';
        for (const row of rows) {
          chunk += (first ? '' : ',') + serializeItem({ json: row.json, steamId: row.steam_id, inspectInGame: row.inspect_in_game, tradeUrl: row.trade_url }, reveal);
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

  /** The envelope for a handful of items (SearchItems). */
  envelopeOf(records: ItemRecord[], reveal: Reveal): string {
    const totalValue = records.reduce((sum, record) => sum + record.price, 0);
    const items = records.map((record) => serializeItem(record, reveal)).join(',');
    return `{"totalItems":${records.length},"totalValue":${totalValue},"items":[${items}],"lastUpdate":${JSON.stringify(this.lastUpdate)}}`;
  }
}
