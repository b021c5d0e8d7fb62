/** Live catalog changes (feed upserts, price changes, removals): point reads and writes, one transaction per call, rows stamped with its version. */
import type { Item } from '../../../shared/api';
import type { CatalogRow } from '../../../shared/ipc';
import type {
  CatalogTotals,
  ItemChangeGroup,
  ItemChangeGroupResult,
  ItemRemovalResult,
  ItemUpsertResult,
  PackedPriceChangeResult,
  PriceMove,
} from '../store/types';
import { catalogRowOf, hashJson, ITEM_COLUMNS, itemValues, quickItemCheck, storedJson } from './itemRows';
import { CATALOG_META, catalogVersion, SET_META_SQL } from '../store/schema';
import type { Db } from '../store/worker/open';

interface HeldRow {
  price: number;
  removed_at: number | null;
  hash: number;
  listed_at: number;
  last_move: number;
}

const UPDATE_COLUMNS = ITEM_COLUMNS.filter((column) => column !== 'itemId' && column !== 'name');

function prepareStatements(db: Db) {
  return {
    held: db.prepare<[number], HeldRow>(
      'SELECT price, removed_at, hash, listed_at, last_move FROM items WHERE itemId = ?',
    ),
    nameId: db.prepare<[string], number>('SELECT name_id FROM names WHERE name = ?').pluck(),
    addName: db.prepare<[string]>('INSERT INTO names (name) VALUES (?)'),
    insert: db.prepare(
      `INSERT INTO items (itemId, name_id, ${UPDATE_COLUMNS.join(', ')}, listed_at, last_move, removed_at, version)
       VALUES (?, ?, ${UPDATE_COLUMNS.map(() => '?').join(', ')}, ?, 0, NULL, ?)
       ON CONFLICT(itemId) DO UPDATE SET name_id = excluded.name_id, ${UPDATE_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ')},
         listed_at = excluded.listed_at, last_move = 0, removed_at = NULL, version = excluded.version`,
    ),
    update: db.prepare(
      `UPDATE items SET name_id = ?, ${UPDATE_COLUMNS.map((c) => `${c} = ?`).join(', ')}, last_move = ?, version = ? WHERE itemId = ?`,
    ),
    json: db.prepare<[number, string]>(
      'INSERT INTO item_json (itemId, json) VALUES (?, ?) ON CONFLICT(itemId) DO UPDATE SET json = excluded.json',
    ),
    // The list's text of the item no longer hashes to the row's hash: 0, so the next sync parses the item again.
    reprice: db.prepare<[number, number, number, number]>(
      'UPDATE items SET price = ?, last_move = ?, hash = 0, version = ? WHERE itemId = ?',
    ),
    remove: db.prepare<[number, number, number]>('UPDATE items SET removed_at = ?, version = ? WHERE itemId = ?'),
    history: db.prepare<[number, number, number, number]>(
      'INSERT INTO price_history (itemId, at, price, listing) VALUES (?, ?, ?, ?)',
    ),
    totals: db.prepare<[], { count: number; value: number }>(
      'SELECT count(*) AS count, coalesce(sum(price), 0) AS value FROM items WHERE removed_at IS NULL',
    ),
    setVersion: db.prepare<[string, string]>(SET_META_SQL),
  };
}

/** The write a call runs in: its version and time. */
interface Write {
  version: number;
  now: number;
}

export class CatalogWriter {
  private readonly s: ReturnType<typeof prepareStatements>;
  private readonly nameIds = new Map<string, number>();
  /** The version of the last committed write. */
  private version: number;
  /** The on-sale count and value, read at the first write (a scan of the table, kept off the store's opening). */
  private count = Number.NaN;
  private value = 0;
  /** Items the feed touched while a sync streams: the sync leaves them as the feed set them. */
  syncTouched: Set<number> | null = null;
  /** The write under way, which nested calls join. */
  private current: Write | null = null;

  constructor(private readonly db: Db) {
    this.s = prepareStatements(db);
    this.version = catalogVersion(db);
  }

  get totals(): CatalogTotals {
    if (Number.isNaN(this.count)) this.recount();
    return { totalItems: this.count, totalValue: this.value };
  }

  /** Adds a sync's staged items to the on-sale count and value (inside the write's transaction: rolled back with it). */
  adjustTotals(count: number, value: number): void {
    this.count += count;
    this.value += value;
  }

  /** The on-sale count and value read from the table. */
  private recount(): void {
    const totals = this.s.totals.get() as { count: number; value: number };
    this.count = totals.count;
    this.value = totals.value;
  }

  /**
   * Runs `apply` in one transaction with the next version; a failure rolls back the totals with it.
   * Nested (a burst's groups, a sync's apply) they share the outer one's transaction and version.
   */
  transaction<T>(apply: (write: Write) => T): T {
    if (this.current) return apply(this.current);
    if (Number.isNaN(this.count)) this.recount();
    const write = { version: this.version + 1, now: Date.now() };
    const { count, value } = this;
    this.current = write;
    try {
      const result = this.db.transaction(() => {
        this.s.setVersion.run(CATALOG_META.version, String(write.version));
        return apply(write);
      })();
      this.version = write.version;
      return result;
    } catch (error) {
      this.count = count;
      this.value = value;
      // Names it added are gone with it.
      this.nameIds.clear();
      throw error;
    } finally {
      this.current = null;
    }
  }

  nameIdOf(name: string): number {
    let id = this.nameIds.get(name) ?? this.s.nameId.get(name);
    if (id === undefined) id = Number(this.s.addName.run(name).lastInsertRowid);
    this.nameIds.set(name, id);
    return id;
  }

  /** Live changes of every kind in feed order, in one transaction: a burst costs one commit. */
  applyItemChanges(groups: ItemChangeGroup[]): ItemChangeGroupResult[] {
    return this.transaction((write) =>
      groups.map((group): ItemChangeGroupResult => {
        if (group.kind === 'upserts') return { kind: 'upserts', result: this.upsert(group.items, write) };
        if (group.kind === 'prices') return { kind: 'prices', result: this.reprice(group.changes, write) };
        return { kind: 'removals', result: this.remove(group.itemIds, write) };
      }),
    );
  }

  /**
   * Writes an item whole: a new or re-listed one is listed now (a listing point in its history); one on
   * sale is rewritten (a move when its price differs), unless its text is the one stored.
   * Returns its catalog row and price move, or null when nothing changed.
   */
  writeItem(item: Item, json: string, hash: number, write: Write): { row: CatalogRow; move: PriceMove | null } | null {
    const held = this.s.held.get(item.itemId);
    const values = itemValues(item, hash);
    const nameId = this.nameIdOf(item.market_hash_name);
    if (!held || held.removed_at !== null) {
      this.s.insert.run(item.itemId, nameId, ...values.slice(2), write.now, write.version);
      this.s.json.run(item.itemId, storedJson(json, item));
      this.s.history.run(item.itemId, write.now, item.price, 1);
      this.count += 1;
      this.value += item.price;
      return {
        row: catalogRowOf(item, write.now, 0),
        move: { itemId: item.itemId, price: item.price, previous: null },
      };
    }
    if (held.hash === hash) return null;
    const moved = held.price !== item.price;
    const lastMove = moved ? Math.sign(item.price - held.price) : held.last_move;
    this.s.update.run(nameId, ...values.slice(2), lastMove, write.version, item.itemId);
    this.s.json.run(item.itemId, storedJson(json, item));
    if (moved) {
      this.s.history.run(item.itemId, write.now, item.price, 0);
      this.value += item.price - held.price;
    }
    return {
      row: catalogRowOf(item, held.listed_at, lastMove),
      move: moved ? { itemId: item.itemId, price: item.price, previous: held.price } : null,
    };
  }

  private upsert(items: Item[], write: Write): ItemUpsertResult {
    const upserted: CatalogRow[] = [];
    const prices: PriceMove[] = [];
    for (const item of items) {
      // Checked as a sync checks the list's items: a malformed one fails the call (and its transaction), whole.
      const problem = quickItemCheck(item);
      if (problem !== null) throw new Error(`item ${String((item as { itemId?: unknown }).itemId)}: ${problem}`);
      this.syncTouched?.add(item.itemId);
      const json = JSON.stringify(item);
      const written = this.writeItem(item, json, hashJson(json), write);
      if (!written) continue;
      upserted.push(written.row);
      if (written.move) prices.push(written.move);
    }
    return { upserted, prices, totals: this.totals };
  }

  /** Each change's price before it: NaN for an item not on sale, its own price for no move. */
  private reprice(changes: Float64Array, write: Write): PackedPriceChangeResult {
    const previous = new Float64Array(changes.length / 2);
    for (let i = 0; i < previous.length; i++) {
      const itemId = changes[2 * i] as number;
      const price = changes[2 * i + 1] as number;
      this.syncTouched?.add(itemId);
      const held = this.s.held.get(itemId);
      if (!held || held.removed_at !== null) {
        previous[i] = Number.NaN;
        continue;
      }
      previous[i] = held.price;
      if (held.price === price) continue;
      this.s.reprice.run(price, Math.sign(price - held.price), write.version, itemId);
      this.s.history.run(itemId, write.now, price, 0);
      this.value += price - held.price;
    }
    return { previous, totals: this.totals };
  }

  /** Takes items off sale; their rows stay (at the price they left at) for detail views until the retention. */
  removeOne(itemId: number, write: Write): boolean {
    const held = this.s.held.get(itemId);
    if (!held || held.removed_at !== null) return false;
    this.s.remove.run(write.now, write.version, itemId);
    this.count -= 1;
    this.value -= held.price;
    return true;
  }

  private remove(itemIds: number[], write: Write): ItemRemovalResult {
    const removed: number[] = [];
    for (const itemId of itemIds) {
      this.syncTouched?.add(itemId);
      if (this.removeOne(itemId, write)) removed.push(itemId);
    }
    return { removed, totals: this.totals };
  }
}
