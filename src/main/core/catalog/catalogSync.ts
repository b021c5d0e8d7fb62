/**
 * Streaming catalog sync, in the writer thread. An item on sale whose bytes hash as stored is never parsed; the others
 * are checked and staged in a TEMP table in short transactions, so no write waits on the network. ONE final transaction
 * makes the list the catalog (a live upsert's rules; the feed's changes meanwhile kept); a failed download never reaches it.
 */
import { itemSchema, type Item } from '../../../shared/api';
import { CatalogSyncError } from '../store/errors';
import { CATALOG_META } from '../store/schema';
import type { CatalogSyncProgress, CatalogSyncRequest, CatalogSyncResult } from '../store/types';
import type { CatalogWriter } from './catalogWriter';
import { leadingItemId, streamBody } from './download';
import { hashBytes, ITEM_COLUMNS, itemValues, quickItemCheck, storedJson } from './itemRows';
import { EnvelopeFormatError, ItemSplitter, type EnvelopeFields } from './itemSplitter';
import { sortedIndexOf } from './columns';
import type { Db } from '../store/worker/open';

const STAGE_BATCH_ITEMS = 2000;
const PROGRESS_INTERVAL_MS = 100;
/** Every item gets a hand check of the fields the cache stores; every this-many-th the full schema too. */
const FULL_CHECK_EVERY = 1000;
/** Items off sale are kept this long (detail views, trades), then dropped with their history. */
const SOLD_RETENTION_MS = 7 * 24 * 3600_000;
const HISTORY_RETENTION_MS = 90 * 24 * 3600_000;

/** The ids of the items held when the sync started (ascending), with the hash of each one on sale (-1 off sale). */
class KnownItems {
  private readonly seen: Uint8Array;

  private constructor(
    private readonly ids: Float64Array,
    private readonly hashes: Float64Array,
  ) {
    this.seen = new Uint8Array(ids.length);
  }

  static load(db: Db): KnownItems {
    const count = db.prepare<[], number>('SELECT count(*) FROM items').pluck().get() as number;
    const ids = new Float64Array(count);
    const hashes = new Float64Array(count);
    let i = 0;
    // Row by row into the two columns: half a million rows as arrays first would be ~40 MB more at the sync's peak.
    for (const [id, hash] of db
      .prepare<[], [number, number]>(
        'SELECT itemId, CASE WHEN removed_at IS NULL THEN hash ELSE -1 END FROM items ORDER BY itemId',
      )
      .raw()
      .iterate()) {
      ids[i] = id;
      hashes[i++] = hash;
    }
    return new KnownItems(ids.subarray(0, i), hashes.subarray(0, i));
  }

  /** Marks the item named by the list; whether it is on sale with these very bytes. */
  see(itemId: number, hash: number): boolean {
    const index = sortedIndexOf(this.ids, itemId);
    if (index < 0) return false;
    this.seen[index] = 1;
    return this.hashes[index] === hash;
  }

  /** Whether the cache held the item (on sale or not) when the sync started. */
  held(itemId: number): boolean {
    return sortedIndexOf(this.ids, itemId) >= 0;
  }

  /** Items on sale when the sync started that the list did not name. */
  *unnamed(): Generator<number> {
    for (let i = 0; i < this.ids.length; i++)
      if (this.seen[i] === 0 && this.hashes[i] !== -1) yield this.ids[i] as number;
  }
}

/** Receives the list's items: skips unchanged ones, parses and checks the rest, stages them in batches. */
class Receiver {
  unchanged = 0;
  staged = 0;
  skipped = 0;
  firstSkipReason: string | null = null;
  private parsed = 0;
  private pending: unknown[][] = [];
  private readonly stage;
  private readonly newJson;

  constructor(
    private readonly db: Db,
    readonly known: KnownItems,
    private readonly received: () => number,
  ) {
    db.exec(
      `CREATE TEMP TABLE sync_stage (${ITEM_COLUMNS.map((c) => (c === 'itemId' ? 'itemId INTEGER PRIMARY KEY' : c)).join(', ')}, json TEXT)`,
    );
    this.stage = db.prepare(
      `INSERT OR REPLACE INTO temp.sync_stage VALUES (${[...ITEM_COLUMNS, 'json'].map(() => '?').join(', ')})`,
    );
    // No reader sees the text of an item `items` does not hold; one the feed listed meanwhile keeps the feed's text.
    this.newJson = db.prepare<[number, string, number]>(
      'INSERT INTO item_json (itemId, json) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM items WHERE itemId = ?) ON CONFLICT(itemId) DO UPDATE SET json = excluded.json',
    );
  }

  /** One element of the items array; false when its bytes are not one JSON value (see ItemSplitter). */
  element(bytes: Buffer, start: number, end: number): boolean {
    const hash = hashBytes(bytes, start, end);
    const id = leadingItemId(bytes, start, end);
    if (id > 0 && this.known.see(id, hash)) {
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
      const itemId = (value as { itemId?: unknown } | null)?.itemId;
      this.firstSkipReason ??= `item ${typeof itemId === 'number' ? itemId : `#${this.received()}`}: ${problem}`;
      return true;
    }
    const item = value as Item;
    // Unchanged, in a formatting whose id could not be read from the bytes.
    if (id !== item.itemId && this.known.see(item.itemId, hash)) {
      this.unchanged += 1;
      return true;
    }
    // A new item's text is written at once (one copy of the list's bulk, not two); the others' rows change only at the end.
    const stored = storedJson(json, item);
    this.pending.push([...itemValues(item, hash), this.known.held(item.itemId) ? stored : null, stored]);
    if (this.pending.length >= STAGE_BATCH_ITEMS) this.flush();
    return true;
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.db.transaction(() => {
      for (const values of batch) {
        const json = values.pop() as string;
        this.stage.run(values);
        if (values[values.length - 1] === null) this.newJson.run(values[0] as number, json, values[0] as number);
      }
    })();
    this.staged += batch.length;
  }
}

const STAGED_COLUMNS = ITEM_COLUMNS.filter((c) => c !== 'itemId' && c !== 'name');

/** The final transaction: the staged items written, the unnamed ones taken off sale, retention, totals, meta. */
function apply(db: Db, catalog: CatalogWriter, receiver: Receiver, envelope: EnvelopeFields, meta: MetaAccess) {
  return catalog.transaction(({ version, now }) => {
    const touched = catalog.syncTouched ?? new Set<number>();
    const unstage = db.prepare<[number]>('DELETE FROM temp.sync_stage WHERE itemId = ?');
    for (const itemId of touched) unstage.run(itemId);
    const names = db.prepare<[], string>('SELECT DISTINCT name FROM temp.sync_stage').pluck().all();
    for (const name of names) catalog.nameIdOf(name);

    // What the staged items add to the on-sale count and value (read before they are written).
    const { staged, added, value } = db
      .prepare<[], { staged: number; added: number; value: number }>(
        `SELECT count(*) AS staged, count(*) FILTER (WHERE i.itemId IS NULL OR i.removed_at IS NOT NULL) AS added,
                coalesce(sum(s.price - CASE WHEN i.itemId IS NOT NULL AND i.removed_at IS NULL THEN i.price ELSE 0 END), 0) AS value
         FROM temp.sync_stage s LEFT JOIN items i ON i.itemId = s.itemId`,
      )
      .get() as { staged: number; added: number; value: number };
    catalog.adjustTotals(added, value);
    // A listing point for a new or re-listed item, a move for one on sale at a new price: as writeItem does live.
    db.prepare(
      `INSERT INTO price_history (itemId, at, price, listing)
       SELECT s.itemId, ?, s.price, CASE WHEN i.itemId IS NULL OR i.removed_at IS NOT NULL THEN 1 ELSE 0 END
       FROM temp.sync_stage s LEFT JOIN items i ON i.itemId = s.itemId
       WHERE i.itemId IS NULL OR i.removed_at IS NOT NULL OR i.price <> s.price ORDER BY s.itemId`,
    ).run(now);
    db.prepare(
      `INSERT INTO items (itemId, name_id, ${STAGED_COLUMNS.join(', ')}, listed_at, last_move, removed_at, version)
       SELECT s.itemId, n.name_id, ${STAGED_COLUMNS.map((c) => `s.${c}`).join(', ')}, @now, 0, NULL, @version
       FROM temp.sync_stage s JOIN names n ON n.name = s.name WHERE true ORDER BY s.itemId
       ON CONFLICT(itemId) DO UPDATE SET name_id = excluded.name_id, ${STAGED_COLUMNS.filter((c) => c !== 'price')
         .map((c) => `${c} = excluded.${c}`)
         .join(', ')},
         listed_at = CASE WHEN items.removed_at IS NULL THEN items.listed_at ELSE excluded.listed_at END,
         last_move = CASE WHEN items.removed_at IS NOT NULL THEN 0 ELSE coalesce(nullif(sign(excluded.price - items.price), 0), items.last_move) END,
         price = excluded.price, removed_at = NULL, version = excluded.version`,
    ).run({ now, version });
    db.prepare(
      'INSERT INTO item_json (itemId, json) SELECT itemId, json FROM temp.sync_stage WHERE json IS NOT NULL ORDER BY itemId ON CONFLICT(itemId) DO UPDATE SET json = excluded.json',
    ).run();

    let removed = 0;
    for (const itemId of receiver.known.unnamed())
      if (!touched.has(itemId) && catalog.removeOne(itemId, { version, now })) removed++;

    const soldBefore = now - SOLD_RETENTION_MS;
    db.prepare('DELETE FROM price_history WHERE itemId IN (SELECT itemId FROM items WHERE removed_at < ?)').run(
      soldBefore,
    );
    db.prepare('DELETE FROM item_json WHERE itemId IN (SELECT itemId FROM items WHERE removed_at < ?)').run(soldBefore);
    db.prepare('DELETE FROM items WHERE removed_at < ?').run(soldBefore);
    // A scan of the whole history: once a day is enough.
    if (!(Number(meta.getMeta(CATALOG_META.historyPrunedAt)) > now - 24 * 3600_000)) {
      db.prepare('DELETE FROM price_history WHERE at < ?').run(now - HISTORY_RETENTION_MS);
      meta.setMeta(CATALOG_META.historyPrunedAt, now);
    }

    meta.setMeta(CATALOG_META.syncUnfinished, false);
    meta.setMeta(CATALOG_META.lastUpdate, envelope.lastUpdate);
    meta.setMeta(CATALOG_META.syncedAt, new Date(now).toISOString());
    meta.setMeta(CATALOG_META.serverTotalItems, envelope.totalItems);
    meta.setMeta(CATALOG_META.serverTotalValue, envelope.totalValue);
    return { added, updated: staged - added, removed, keptFromFeed: touched.size };
  });
}

/** The records writer's meta, which the sync reads and writes in its transactions. */
interface MetaAccess {
  getMeta(key: string): unknown;
  setMeta(key: string, value: unknown): void;
}

export interface SyncContext {
  signal: AbortSignal;
  progress: (progress: CatalogSyncProgress) => void;
}

export async function runCatalogSync(
  db: Db,
  catalog: CatalogWriter,
  meta: MetaAccess,
  request: CatalogSyncRequest,
  context: SyncContext,
): Promise<CatalogSyncResult> {
  if (catalog.syncTouched) throw new CatalogSyncError('busy', 'a catalog sync is already running');
  const started = performance.now();
  catalog.syncTouched = new Set();
  let lastProgress = 0;
  let reported = 0;
  let receiver: Receiver | null = null;
  const splitter: ItemSplitter = new ItemSplitter((bytes, start, end) =>
    (receiver as Receiver).element(bytes, start, end),
  );
  try {
    // A sync that did not finish left texts of items it never listed; this one writes a new item's text only where none is.
    if (meta.getMeta(CATALOG_META.syncUnfinished) === true)
      db.prepare('DELETE FROM item_json WHERE itemId NOT IN (SELECT itemId FROM items)').run();
    meta.setMeta(CATALOG_META.syncUnfinished, true);
    receiver = new Receiver(db, KnownItems.load(db), () => splitter.received);
    const outcome = await streamBody(request, context.signal, (bytes) => {
      splitter.push(bytes);
      const now = performance.now();
      if (splitter.received > reported && (reported === 0 || now - lastProgress >= PROGRESS_INTERVAL_MS)) {
        lastProgress = now;
        reported = splitter.received;
        context.progress({ phase: 'receiving', received: reported, total: splitter.totalItems, applied: 0 });
      }
    });
    if (outcome.kind === 'http')
      return { ok: false, status: outcome.status, headers: outcome.headers, bodyText: outcome.bodyText };
    const envelope = splitter.end();
    receiver.flush();
    if (context.signal.aborted) throw new CatalogSyncError('aborted', 'the catalog sync was cancelled');
    const total = envelope.totalItems ?? splitter.totalItems;
    context.progress({ phase: 'applying', received: splitter.received, total, applied: 0 });
    const applyStarted = performance.now();
    const applied = apply(db, catalog, receiver, envelope, meta);
    context.progress({
      phase: 'done',
      received: splitter.received,
      total,
      applied: receiver.staged + receiver.unchanged,
    });
    return {
      ok: true,
      ...applied,
      total: catalog.totals.totalItems,
      serverTotal: envelope.totalItems,
      lastUpdate: envelope.lastUpdate,
      ms: Math.round(performance.now() - started),
      applyMs: Math.round(performance.now() - applyStarted),
      skipped: receiver.skipped,
      firstSkipReason: receiver.firstSkipReason,
      unchanged: receiver.unchanged,
    };
  } catch (error) {
    throw error instanceof EnvelopeFormatError
      ? new CatalogSyncError('protocol', `the catalog could not be read: ${error.message}`)
      : error;
  } finally {
    catalog.syncTouched = null;
    if (receiver) db.exec('DROP TABLE IF EXISTS temp.sync_stage');
  }
}
