/**
 * The reader's in-memory catalog index: the filterable and sortable columns
 * of every item in typed arrays, plus one permutation per sort column (slots
 * ordered by (key, itemId), ascending; descending walks it backwards). A
 * catalog query narrows a match array one filter a pass (filterPasses.ts; a
 * name search tests only its names' slots), counts it, then walks the sort
 * column's permutation, within the bounds a filter on that column allows,
 * until the page is full: a few ms at 1M items whatever the filters, where SQL plans degrade
 * when a filter is broad and the sort column is correlated with it (★ items
 * sorted by price, a 700k-row price range sorted by phase…). Only the page's
 * rows are then read from SQLite.
 *
 * Freshness: the writer appends every changed itemId to item_changes (0 =
 * reload all; a live price change logs its new price too). The reader applies
 * new entries before each query and on an idle timer: a logged price is taken
 * as it is, other changed rows are re-read, and each permutation whose key
 * moved is repaired (moved slots filtered out, put back by binary search).
 * Removed items are only marked dead
 * and skipped; many dead slots or a large sync trigger a rebuild, done in
 * chunks while queries fall back to SQL.
 */
import type { Db } from './open';
import { collectMatches, countMatches, narrowByEquals, narrowByFlag, narrowByLookup, narrowByPresence, narrowByMarks, narrowByRange } from './filterPasses';
import { NAME_LIST_SEPARATOR } from './rows';
import { indexOfSorted } from './sorted';

export type SortKey = 'price' | 'name' | 'float' | 'paintSeed' | 'phase' | 'stickers' | 'keychains' | 'listedAt' | 'rarity';
export const SORT_KEYS: readonly SortKey[] = ['price', 'name', 'float', 'paintSeed', 'phase', 'stickers', 'keychains', 'listedAt', 'rarity'];
/** The key of an empty value in the sort columns that have them: below every value. */
const EMPTY_KEY: Readonly<Partial<Record<SortKey, number>>> & { float: number; paintSeed: number } = {
  float: Number.NEGATIVE_INFINITY,
  paintSeed: -1,
  phase: -1,
  rarity: -1,
};

/** A query in the index's terms (the reader resolves names and stickers to ids first). */
export interface IndexQuery {
  sort: SortKey;
  desc: boolean;
  offset: number;
  limit: number;
  /** name_id → 1 when the name matches the search; null = no search. */
  names: Uint8Array | null;
  priceMin: number | null;
  priceMax: number | null;
  /** rarity rank + 1 → 1 when wanted (index 0 = no rarity); null = any. */
  rarities: Uint8Array | null;
  floatMin: number | null;
  floatMax: number | null;
  /** Wanted phase text; null = any. */
  phase: string | null;
  statTrak: boolean | null;
  souvenir: boolean | null;
  hasStickers: boolean | null;
  /** Lower-cased substring of a sticker name; null = any. */
  stickerName: string | null;
}

export interface IndexPage {
  itemIds: number[];
  total: number;
}

/** A query's filters, resolved to the index's ids and bounds (an absent bound is ±Infinity; -1 = any). */
interface MatchFilters {
  names: Uint8Array | null;
  rarities: Uint8Array | null;
  priceMin: number;
  priceMax: number;
  hasPrice: boolean;
  floatMin: number;
  floatMax: number;
  hasFloat: boolean;
  phase: number;
  wantStatTrak: number;
  wantSouvenir: number;
  wantStickers: number;
  stickerOk: Uint8Array | null;
  stickerMask: number;
}

type Row = [
  itemId: number,
  nameId: number,
  price: number,
  float: number | null,
  paintSeed: number | null,
  phase: string | null,
  rarity: number | null,
  statTrak: number,
  souvenir: number,
  stickerCount: number,
  stickerNames: string,
  listedAt: number,
  keyChainCount: number,
];

const ROW_SELECT = 'itemId, name_id, price, float, paintSeed, phase, rarity_rank, statTrak, souvenir, stickerCount, stickerNames, listed_at, keyChainCount';
const LOAD_CHUNK = 25_000;
/** Up to this many matches, the page is sorted from the match list instead of walking a permutation. */
const STICKER_SLOTS = 5;
/** Past 1/this of the slots (and at least 1024) with stickers changed since the postings were built, they are built anew. */
const STALE_STICKER_SHARE = 16;
const SMALL_RESULT = 4096;
/** A name search tests its names' slots one by one when they are at most 1/this of all slots (see candidatesFor). */
const CANDIDATE_LIST_SHARE = 8;
/** Packed sort keys: key * 2^24 + slot must stay an exact double. */
const SLOT_BITS = 16_777_216;
const MAX_PACKED_KEY = 2 ** 29;
/** More pending changes than this: rebuild instead of repairing (the writer keeps 250k log entries). */
const MAX_INCREMENTAL_CHANGES = 200_000;
/** A sort column a query used within this long has its permutation repaired at every refresh. */
const EAGER_SORT_MS = 60_000;
/** Past this many deferred moved slots, a column's permutation is sorted anew when next used (not merged). */
const MAX_DEFERRED_SLOTS = 100_000;

/**
 * The change log's first and last entry. Two subqueries: SQLite seeks a lone min() or max(), but scans the
 * whole log for both in one SELECT (~35 ms at 100k entries, every upkeep check under a flood).
 */
export const CHANGE_LOG_RANGE_SQL = 'SELECT (SELECT min(seq) FROM item_changes) AS lo, (SELECT max(seq) FROM item_changes) AS hi';

/** The statements refresh() runs before every query, prepared once per connection. */
const statementCache = new WeakMap<Db, ReturnType<typeof prepareRefresh>>();

function prepareRefresh(db: Db) {
  return {
    range: db.prepare<[], { lo: number | null; hi: number | null }>(CHANGE_LOG_RANGE_SQL),
    // A column at a time: a refresh under a flood reads 100,000+ entries, and a row as an object cost ~2 µs each
    // there, as an array ~1.5 µs; two plucked columns ~0.6 µs (read in one transaction, so they line up).
    changeIds: db.prepare<[number, number], number>('SELECT itemId FROM item_changes WHERE seq > ? AND seq <= ? ORDER BY seq').pluck(),
    changePrices: db.prepare<[number, number], number | null>('SELECT price FROM item_changes WHERE seq > ? AND seq <= ? ORDER BY seq').pluck(),
    rows: db.prepare<[string]>(`SELECT ${ROW_SELECT} FROM items_live WHERE itemId IN (SELECT value FROM json_each(?))`).raw(),
  };
}

function statementsFor(db: Db): ReturnType<typeof prepareRefresh> {
  let statements = statementCache.get(db);
  if (!statements) {
    statements = prepareRefresh(db);
    statementCache.set(db, statements);
  }
  return statements;
}

function addTo(lists: (number[] | undefined)[], key: number, slot: number): void {
  const list = lists[key];
  if (list) list.push(slot);
  else lists[key] = [slot];
}

function growFloat(a: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(size);
  b.set(a);
  return b;
}

function growInt(a: Int32Array, size: number, fill = 0): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}

function growBytes(a: Uint8Array, size: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(size);
  b.set(a);
  return b;
}

export class CatalogIndex {
  /** Slots in use (dead ones included). */
  private n = 0;
  private cap = 0;
  private aliveCount = 0;
  private itemId = new Float64Array(0);
  private alive = new Uint8Array(0);
  private price = new Float64Array(0);
  /** NaN = null. */
  private float = new Float64Array(0);
  /** -1 = null. */
  private paintSeed = new Int32Array(0);
  private nameId = new Int32Array(0);
  /** 0 = null, else an id of `phases`. */
  private phaseId = new Int32Array(0);
  /** -1 = null. */
  private rarity = new Int32Array(0);
  private statTrak = new Uint8Array(0);
  private souvenir = new Uint8Array(0);
  private stickerCount = new Int32Array(0);
  private keyChainCount = new Int32Array(0);
  private listedAt = new Float64Array(0);
  /** Sticker name ids, STICKER_SLOTS per slot (-1 = none); lists longer than that also go to stickerOverflow. */
  private stickerIdsInline = new Int32Array(0);
  private readonly stickerOverflow = new Map<number, Int32Array>();
  /** 32-bit Bloom mask of each slot's sticker ids (bit id % 32): rejects most items without reading their ids. */
  private stickerBloom = new Int32Array(0);
  /** Slots per name_id (may hold stale or repeated entries; rebuilt with the index). */
  private postings: (number[] | undefined)[] = [];
  /** Slots per sticker id, like postings; a slot in stickersStale may be listed under a sticker it no longer holds. */
  private stickerPostings: (number[] | undefined)[] = [];
  private readonly stickersStale = new Set<number>();
  /** Scratch: which slots match the current query. */
  private matchBuf = new Uint8Array(0);
  /** Scratch: slots marked by one filter's postings. */
  private markBuf = new Uint8Array(0);

  /**
   * Slots [0, sortedCount) were loaded in ascending itemId order and are found by
   * binary search; slots added later are in extraSlots. (A Map of 1M entries
   * would cost ~70 MB of heap.)
   */
  private sortedCount = 0;
  private readonly extraSlots = new Map<number, number>();
  /** name_id → rank of the name in sort order. */
  private nameRank = new Int32Array(0);
  private readonly phases: string[] = [''];
  private readonly phaseIds = new Map<string, number>();
  /** phase id → rank in sort order (null phase = -1, sorts first like SQL NULLs). */
  private phaseRank = new Int32Array([-1]);
  private readonly stickerNames: string[] = [];
  private readonly stickerIds = new Map<string, number>();
  private perms = new Map<SortKey, Int32Array>();
  /** Per sort column, the slots moved since its permutation was last repaired ('resort': too many, sort anew). */
  private readonly deferred = new Map<SortKey, number[] | 'resort'>();
  /** When a query last sorted by each column (ms): those keep their permutation repaired at each refresh. */
  private readonly sortedAt = new Map<SortKey, number>();
  private lastSeq = 0;
  /** True while the builder appends rows in itemId order. */
  private loading = true;
  ready = false;

  // ---- building

  /**
   * Builds the whole index in steps; each call to the returned function does
   * one bounded step (a chunk of rows or one sort) and returns true when done.
   */
  static builder(db: Db): { step: () => boolean; index: CatalogIndex } {
    const index = new CatalogIndex();
    index.lastSeq = (db.prepare('SELECT coalesce(max(seq), 0) FROM item_changes').pluck().get() as number) ?? 0;
    index.loadNames(db);
    // Sized once for what the table holds: growing by doubling would hold two copies of every column at a time.
    index.ensureCapacity((db.prepare('SELECT count(*) FROM items').pluck().get() as number) + 1024);
    const load = db.prepare<[number, number]>(`SELECT ${ROW_SELECT} FROM items_live WHERE itemId > ? ORDER BY itemId LIMIT ?`).raw();
    let after = 0;
    let loading = true;
    const sorts = [...SORT_KEYS];
    const step = (): boolean => {
      if (loading) {
        const rows = load.all(after, LOAD_CHUNK) as Row[];
        for (const row of rows) index.put(row);
        if (rows.length < LOAD_CHUNK) {
          loading = false;
          index.buildPostings();
        }
        else after = (rows[rows.length - 1] as Row)[0];
        return false;
      }
      const key = sorts.shift();
      if (key !== undefined) {
        index.perms.set(key, index.sortedSlots(key, index.allSlots()));
        return sorts.length === 0 ? index.finish(db) : false;
      }
      return index.finish(db);
    };
    return { step, index };
  }

  private finish(db: Db): boolean {
    this.loading = false;
    // Changes committed while we loaded are in the log after lastSeq.
    const outcome = this.refresh(db);
    this.ready = outcome !== 'rebuild';
    return true;
  }

  private loadNames(db: Db): void {
    const rows = db.prepare<[], { name_id: number; name: string }>('SELECT name_id, name FROM names').all();
    let max = 0;
    for (const row of rows) max = Math.max(max, row.name_id);
    rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const rank = new Int32Array(max + 1);
    rows.forEach((row, i) => {
      rank[row.name_id] = i;
    });
    this.nameRank = rank;
  }

  private slotOf(itemId: number): number | undefined {
    const slot = indexOfSorted(this.itemId, itemId, this.sortedCount);
    return slot >= 0 ? slot : this.extraSlots.get(itemId);
  }

  private ensureCapacity(size: number): void {
    if (size <= this.cap) return;
    const cap = Math.max(1024, this.cap * 2, size);
    this.itemId = growFloat(this.itemId, cap);
    this.alive = growBytes(this.alive, cap);
    this.price = growFloat(this.price, cap);
    this.float = growFloat(this.float, cap);
    this.paintSeed = growInt(this.paintSeed, cap);
    this.nameId = growInt(this.nameId, cap);
    this.phaseId = growInt(this.phaseId, cap);
    this.rarity = growInt(this.rarity, cap);
    this.statTrak = growBytes(this.statTrak, cap);
    this.souvenir = growBytes(this.souvenir, cap);
    this.stickerCount = growInt(this.stickerCount, cap);
    this.keyChainCount = growInt(this.keyChainCount, cap);
    this.listedAt = growFloat(this.listedAt, cap);
    this.stickerBloom = growInt(this.stickerBloom, cap);
    const inline = new Int32Array(cap * STICKER_SLOTS).fill(-1);
    inline.set(this.stickerIdsInline);
    this.stickerIdsInline = inline;
    this.matchBuf = new Uint8Array(cap);
    this.markBuf = new Uint8Array(cap);
    this.cap = cap;
  }

  private phaseIdOf(phase: string | null): number {
    if (phase === null) return 0;
    let id = this.phaseIds.get(phase);
    if (id === undefined) {
      id = this.phases.length;
      this.phases.push(phase);
      this.phaseIds.set(phase, id);
      // Ranks of the (few) phases: recomputed whole; relative order of known phases never changes.
      const order = this.phases.map((_, i) => i).slice(1);
      order.sort((a, b) => ((this.phases[a] as string) < (this.phases[b] as string) ? -1 : 1));
      const rank = new Int32Array(this.phases.length);
      rank[0] = -1;
      order.forEach((phaseIndex, i) => {
        rank[phaseIndex] = i;
      });
      this.phaseRank = rank;
    }
    return id;
  }

  /** A slot's sticker ids as stored now (inline, or the whole list when it overflowed). */
  private stickerIdsOf(slot: number): ArrayLike<number> {
    const all = this.stickerOverflow.get(slot);
    if (all) return all;
    const base = slot * STICKER_SLOTS;
    let end = base;
    while (end < base + STICKER_SLOTS && (this.stickerIdsInline[end] as number) >= 0) end++;
    return this.stickerIdsInline.subarray(base, end);
  }

  private setStickers(slot: number, text: string): void {
    const before = this.loading ? [] : Array.from(this.stickerIdsOf(slot));
    const base = slot * STICKER_SLOTS;
    this.stickerIdsInline.fill(-1, base, base + STICKER_SLOTS);
    this.stickerOverflow.delete(slot);
    this.stickerBloom[slot] = 0;
    const names = text === '' ? [] : text.split(NAME_LIST_SEPARATOR);
    let bloom = 0;
    const ids = new Int32Array(names.length);
    names.forEach((name, i) => {
      let id = this.stickerIds.get(name);
      if (id === undefined) {
        id = this.stickerNames.length;
        this.stickerNames.push(name.toLowerCase());
        this.stickerIds.set(name, id);
      }
      ids[i] = id;
      bloom |= 1 << (id & 31);
      if (i < STICKER_SLOTS) this.stickerIdsInline[base + i] = id;
    });
    this.stickerBloom[slot] = bloom;
    if (names.length > STICKER_SLOTS) this.stickerOverflow.set(slot, ids);
    // Postings are built whole after loading; later a slot joins the lists of the stickers it gains. One it
    // lost stays listed, so the slot is marked stale and tested on its own ids at each sticker query.
    if (this.loading) return;
    for (const id of ids) if (!before.includes(id)) addTo(this.stickerPostings, id, slot);
    if (before.some((id) => !ids.includes(id))) {
      this.stickersStale.add(slot);
      if (this.stickersStale.size > Math.max(1024, this.n / STALE_STICKER_SHARE)) this.buildStickerPostings();
    }
  }

  private addPosting(nameId: number, slot: number): void {
    addTo(this.postings, nameId, slot);
  }

  private buildPostings(): void {
    this.postings = [];
    for (let s = 0; s < this.n; s++) if (this.alive[s]) this.addPosting(this.nameId[s] as number, s);
    this.buildStickerPostings();
  }

  private buildStickerPostings(): void {
    this.stickerPostings = [];
    this.stickersStale.clear();
    for (let s = 0; s < this.n; s++) {
      if (this.alive[s] === 0) continue;
      const ids = this.stickerIdsOf(s);
      for (let j = 0; j < ids.length; j++) addTo(this.stickerPostings, ids[j] as number, s);
    }
  }

  /**
   * match[s] &= (slot s holds a sticker marked in `wanted`): the wanted stickers' postings mark their
   * slots (a few random writes per match), stale slots are tested on their own ids, then one pass.
   * Testing every slot's ids instead reads 20 bytes a slot: ~4–5 ms at 500k against ~1 ms.
   */
  private narrowByStickerName(match: Uint8Array, wanted: Uint8Array, mask: number, n: number): void {
    const marks = this.markBuf;
    marks.fill(0, 0, n);
    for (let id = 0; id < wanted.length; id++) {
      if (wanted[id] !== 1) continue;
      const list = this.stickerPostings[id];
      if (list) for (let k = 0; k < list.length; k++) marks[list[k] as number] = 1;
    }
    for (const s of this.stickersStale) if (s < n) marks[s] = this.hasStickerOf(s, wanted, mask);
    narrowByMarks(match, marks, n);
  }

  /**
   * The slots to test for a name search: the postings of the matched names when
   * they hold few items (a specific search), else null (test every slot). A listed slot costs
   * ~10–25 ns (its columns read forwards, skipping) against ~2 ns a slot for each filter pass over
   * every slot, so lists longer than ~1/8 of the slots lose to the passes (measured at 500k).
   */
  private candidatesFor(names: Uint8Array): Int32Array | null {
    let total = 0;
    for (let id = 0; id < names.length; id++) if (names[id] === 1) total += this.postings[id]?.length ?? 0;
    if (total > this.n / CANDIDATE_LIST_SHARE) return null;
    // Set in a bitset (1/8 of a byte per slot, so it stays in cache), then read back in slot order:
    // the filters then read each column forwards instead of at random, 2–3× faster with a price
    // filter (measured at 500k), and a slot listed under two names (renamed) comes out once.
    const bits = new Uint32Array((this.n >>> 5) + 1);
    for (let id = 0; id < names.length; id++) {
      if (names[id] !== 1) continue;
      const list = this.postings[id];
      if (list) for (let k = 0; k < list.length; k++) {
        const s = list[k] as number;
        bits[s >>> 5] = (bits[s >>> 5] as number) | (1 << (s & 31));
      }
    }
    const out = new Int32Array(total);
    let k = 0;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w] as number;
      while (word !== 0) {
        const low = word & -word;
        out[k++] = w * 32 + 31 - Math.clz32(low);
        word ^= low;
      }
    }
    return out.subarray(0, k);
  }

  /** Writes a row into its slot (a new slot for an unknown item); returns the slot. */
  private put(row: Row): number {
    const [itemId, nameId, price, float, paintSeed, phase, rarity, statTrak, souvenir, stickerCount, stickerNames, listedAt, keyChainCount] = row;
    let slot = this.loading ? undefined : this.slotOf(itemId);
    const isNew = slot === undefined;
    if (slot === undefined) {
      slot = this.n++;
      this.ensureCapacity(this.n);
      if (this.loading) this.sortedCount = this.n;
      else this.extraSlots.set(itemId, slot);
      this.itemId[slot] = itemId;
    }
    // Postings are built whole after loading; later a slot joins its name's list when
    // it is new or renamed (a stale entry in the old list fails the name test).
    if (!this.loading && (isNew || this.nameId[slot] !== nameId)) this.addPosting(nameId, slot);
    if (!this.alive[slot]) this.aliveCount++;
    this.alive[slot] = 1;
    this.price[slot] = price;
    this.float[slot] = float ?? Number.NaN;
    this.paintSeed[slot] = paintSeed ?? -1;
    this.nameId[slot] = nameId;
    this.phaseId[slot] = this.phaseIdOf(phase);
    this.rarity[slot] = rarity ?? -1;
    this.statTrak[slot] = statTrak;
    this.souvenir[slot] = souvenir;
    this.stickerCount[slot] = stickerCount;
    this.keyChainCount[slot] = keyChainCount;
    this.listedAt[slot] = listedAt;
    this.setStickers(slot, stickerNames);
    return slot;
  }

  private allSlots(): Int32Array {
    const slots = new Int32Array(this.aliveCount);
    let k = 0;
    for (let s = 0; s < this.n; s++) if (this.alive[s]) slots[k++] = s;
    return slots;
  }

  /**
   * The sort key of a slot for a column. An empty value (null) has the column's EMPTY_KEY, below
   * every other key: a permutation holds the empty slots first, and an ascending walk takes them last.
   */
  private keyArray(key: SortKey): (slot: number) => number {
    switch (key) {
      case 'price':
        return (s) => this.price[s] as number;
      case 'name':
        return (s) => this.nameRank[this.nameId[s] as number] ?? 0;
      case 'float':
        return (s) => {
          const f = this.float[s] as number;
          return f === f ? f : EMPTY_KEY.float;
        };
      case 'paintSeed':
        // No wear (sticker, charm, vanilla knife): seed 0 but no pattern, so empty.
        return (s) => {
          const f = this.float[s] as number;
          return f === f ? (this.paintSeed[s] as number) : EMPTY_KEY.paintSeed;
        };
      case 'phase':
        return (s) => this.phaseRank[this.phaseId[s] as number] as number;
      case 'stickers':
        return (s) => this.stickerCount[s] as number;
      case 'keychains':
        return (s) => this.keyChainCount[s] as number;
      case 'listedAt':
        return (s) => this.listedAt[s] as number;
      case 'rarity':
        return (s) => this.rarity[s] as number;
    }
  }

  private comparator(key: SortKey): (a: number, b: number) => number {
    const k = this.keyArray(key);
    const ids = this.itemId;
    return (a, b) => k(a) - k(b) || (ids[a] as number) - (ids[b] as number);
  }

  /**
   * Slots sorted by (key, itemId). At build time slots are numbered in itemId
   * order, so when the key is a small integer the pair packs into one double
   * (key * 2^24 + slot) and a plain numeric sort does it, ~3x faster than a
   * comparator; other keys (float, big prices or times) use the comparator.
   */
  private sortedSlots(key: SortKey, slots: Int32Array): Int32Array {
    const keyOf = this.keyArray(key);
    if (this.n < SLOT_BITS && slots.length > 0) {
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      let integral = true;
      for (let i = 0; i < slots.length; i++) {
        const k = keyOf(slots[i] as number);
        if (k < min) min = k;
        if (k > max) max = k;
        if (integral && !Number.isInteger(k)) integral = false;
      }
      if (integral && max - min < MAX_PACKED_KEY && this.slotsInItemIdOrder(slots)) {
        const packed = new Float64Array(slots.length);
        for (let i = 0; i < slots.length; i++) {
          const slot = slots[i] as number;
          packed[i] = (keyOf(slot) - min) * SLOT_BITS + slot;
        }
        packed.sort();
        const out = new Int32Array(slots.length);
        for (let i = 0; i < packed.length; i++) out[i] = (packed[i] as number) % SLOT_BITS;
        return out;
      }
    }
    return slots.slice().sort(this.comparator(key));
  }

  private slotsInItemIdOrder(slots: Int32Array): boolean {
    for (let i = 1; i < slots.length; i++) {
      if ((this.itemId[slots[i] as number] as number) <= (this.itemId[slots[i - 1] as number] as number)) return false;
    }
    return true;
  }

  // ---- keeping fresh

  /** Log entries committed since the last refresh (an upper bound: what a refresh would read now). */
  pendingChanges(db: Db): number {
    return ((statementsFor(db).range.get() as { hi: number | null }).hi ?? 0) - this.lastSeq;
  }

  /**
   * Applies the change log since the last call. Returns 'rebuild' when the
   * index cannot be repaired (reload marker, log trimmed past us, too many
   * changes, too many dead slots): the caller must build a new one.
   */
  refresh(db: Db): 'fresh' | 'updated' | 'rebuild' {
    const s = statementsFor(db);
    // One read transaction: the range and both columns from one snapshot (a trim between them would misalign them).
    const read = db.transaction((after: number) => {
      const range = s.range.get() as { lo: number | null; hi: number | null };
      if (range.hi === null || range.hi <= after) return 'fresh';
      // The log's sequence has no holes (appended, trimmed from its start): hi - after entries are pending.
      if ((range.lo !== null && range.lo > after + 1) || range.hi - after > MAX_INCREMENTAL_CHANGES) return 'rebuild';
      return { hi: range.hi, ids: s.changeIds.all(after, range.hi), prices: s.changePrices.all(after, range.hi) };
    });
    const changes = read(this.lastSeq);
    if (changes === 'fresh' || changes === 'rebuild') return changes;
    const { ids, prices } = changes;
    if (ids.length === 0) return 'fresh';
    if (ids.includes(0)) return 'rebuild';
    this.lastSeq = changes.hi;

    // Slots whose key changed, per sort column; new slots go into every permutation.
    const moved = new Map<SortKey, number[]>(SORT_KEYS.map((key) => [key, []]));
    const movedPrice = moved.get('price') as number[];
    // In log order: a live price change of an item the index holds moves only its price, no row to read
    // (the last one wins; a slot moved twice is repaired once). An item with an entry without a price, or
    // one the index does not hold, has its row read below, and the row overrides any price set here.
    const rereadIds = new Set<number>();
    for (let i = 0; i < ids.length; i++) {
      const itemId = ids[i] as number;
      const price = prices[i] as number | null;
      const slot = price === null ? undefined : this.slotOf(itemId);
      if (price === null || slot === undefined || !this.alive[slot]) {
        rereadIds.add(itemId);
      } else if (this.price[slot] !== price) {
        this.price[slot] = price;
        movedPrice.push(slot);
      }
    }
    const reread = [...rereadIds];

    const rows = reread.length > 0 ? (s.rows.all(JSON.stringify(reread)) as Row[]) : [];
    const found = new Map<number, Row>(rows.map((row) => [row[0], row]));
    if (rows.some((row) => (this.nameRank[row[1]] ?? -1) === -1 || row[1] >= this.nameRank.length)) this.loadNames(db);
    const keyFns = SORT_KEYS.map((key) => this.keyArray(key));
    const before = new Float64Array(SORT_KEYS.length);
    for (const itemId of reread) {
      const row = found.get(itemId);
      const existing = this.slotOf(itemId);
      if (row === undefined) {
        if (existing !== undefined && this.alive[existing]) {
          this.alive[existing] = 0;
          this.aliveCount--;
        }
        continue;
      }
      if (existing !== undefined && this.alive[existing]) {
        for (let i = 0; i < keyFns.length; i++) before[i] = (keyFns[i] as (s: number) => number)(existing);
        this.put(row);
        for (let i = 0; i < keyFns.length; i++) {
          if (!Object.is((keyFns[i] as (s: number) => number)(existing), before[i])) (moved.get(SORT_KEYS[i] as SortKey) as number[]).push(existing);
        }
      } else {
        // New (or back from dead, where it is still in the permutations but must move).
        const slot = this.put(row);
        for (const key of SORT_KEYS) (moved.get(key) as number[]).push(slot);
      }
    }
    // Each repair is a pass over every slot, nine columns per refresh under a flood: only the columns queries
    // sorted by lately are repaired now; the others collect their moved slots until a query sorts by them.
    const now = Date.now();
    for (const [key, slots] of moved) {
      if (slots.length === 0) continue;
      this.defer(key, slots);
      if (now - (this.sortedAt.get(key) ?? Number.NEGATIVE_INFINITY) < EAGER_SORT_MS) this.permutation(key);
    }
    if (this.n - this.aliveCount > Math.max(10_000, this.n / 5)) return 'rebuild';
    return 'updated';
  }

  private defer(key: SortKey, slots: number[]): void {
    const waiting = this.deferred.get(key) ?? [];
    if (waiting === 'resort') return;
    for (const slot of slots) waiting.push(slot);
    this.deferred.set(key, waiting.length > MAX_DEFERRED_SLOTS ? 'resort' : waiting);
  }

  /** One sort column's permutation, with the moves deferred since it was last used applied. */
  private permutation(key: SortKey): Int32Array {
    const waiting = this.deferred.get(key);
    if (waiting !== undefined) {
      this.deferred.delete(key);
      if (waiting === 'resort') this.perms.set(key, this.sortedSlots(key, this.allSlots()));
      else this.repair(key, waiting);
    }
    return this.perms.get(key) as Int32Array;
  }

  /** Each slot's key for one sort column as one array, so the repair's merge reads it without a call per slot. */
  private keyValues(key: SortKey): Float64Array | Int32Array {
    switch (key) {
      case 'price':
        return this.price;
      case 'stickers':
        return this.stickerCount;
      case 'keychains':
        return this.keyChainCount;
      case 'listedAt':
        return this.listedAt;
      case 'rarity':
        return this.rarity;
      default: {
        const keyOf = this.keyArray(key);
        const values = new Float64Array(this.n);
        for (let s = 0; s < this.n; s++) values[s] = keyOf(s);
        return values;
      }
    }
  }

  /** One bit per slot, set for the moved and the dead: 1/8 of a byte array, so the filter pass's random reads stay in cache. */
  private skipBits(movedSlots: number[]): Uint32Array {
    const bits = new Uint32Array((this.n >>> 5) + 1);
    const alive = this.alive;
    for (let s = 0; s < this.n; s++) if (alive[s] === 0) bits[s >>> 5] = (bits[s >>> 5] as number) | (1 << (s & 31));
    for (const s of movedSlots) bits[s >>> 5] = (bits[s >>> 5] as number) | (1 << (s & 31));
    return bits;
  }

  /**
   * One permutation: drop the moved and dead slots (a pass over a bitset that stays in cache), then
   * put each moved slot back at the place a binary search finds, copying the runs between: no
   * per-slot key read over the whole permutation, whose slots are in random memory order.
   */
  private repair(key: SortKey, movedSlots: number[]): void {
    const perm = this.perms.get(key) as Int32Array;
    const keys = this.keyValues(key);
    const ids = this.itemId;
    const skip = this.skipBits(movedSlots);
    const kept = new Int32Array(perm.length);
    let keptCount = 0;
    for (let i = 0; i < perm.length; i++) {
      const s = perm[i] as number;
      if (((skip[s >>> 5] as number) & (1 << (s & 31))) === 0) kept[keptCount++] = s;
    }
    const insert = Int32Array.from(new Set(movedSlots)).sort(
      (a, b) => (keys[a] as number) - (keys[b] as number) || (ids[a] as number) - (ids[b] as number),
    );
    const out = new Int32Array(keptCount + insert.length);
    let from = 0;
    let k = 0;
    for (let j = 0; j < insert.length; j++) {
      const slot = insert[j] as number;
      const slotKey = keys[slot] as number;
      const slotId = ids[slot] as number;
      // The first kept slot ordered after this one.
      let low = from;
      let high = keptCount;
      while (low < high) {
        const mid = (low + high) >>> 1;
        const other = kept[mid] as number;
        const otherKey = keys[other] as number;
        if (otherKey < slotKey || (otherKey === slotKey && (ids[other] as number) < slotId)) low = mid + 1;
        else high = mid;
      }
      out.set(kept.subarray(from, low), k);
      k += low - from;
      from = low;
      out[k++] = slot;
    }
    out.set(kept.subarray(from, keptCount), k);
    this.perms.set(key, out);
  }

  // ---- querying

  get size(): number {
    return this.aliveCount;
  }

  query(q: IndexQuery): IndexPage {
    this.sortedAt.set(q.sort, Date.now());
    const perm = this.permutation(q.sort);
    const from = q.offset;
    const to = q.offset + q.limit;
    const len = perm.length;
    // Empty values go last in both directions: ascending, the permutation's leading empty slots come after the rest.
    const emptyEnd = q.desc ? 0 : this.emptyEnd(q.sort, perm);
    const pick = (i: number) => perm[q.desc ? len - 1 - i : (i + emptyEnd) % len] as number;

    let phase = -1;
    if (q.phase !== null) {
      const id = this.phaseIds.get(q.phase);
      if (id === undefined) return { itemIds: [], total: 0 };
      phase = id;
    }
    let stickerOk: Uint8Array | null = null;
    let stickerMask = 0;
    if (q.stickerName !== null) {
      const wanted = q.stickerName;
      stickerOk = new Uint8Array(this.stickerNames.length);
      this.stickerNames.forEach((name, id) => {
        if (name.includes(wanted)) {
          (stickerOk as Uint8Array)[id] = 1;
          stickerMask |= 1 << (id & 31);
        }
      });
      if (stickerMask === 0) return { itemIds: [], total: 0 };
    }
    const hasPrice = q.priceMin !== null || q.priceMax !== null;
    const hasFloat = q.floatMin !== null || q.floatMax !== null;
    const wantStatTrak = q.statTrak === null ? -1 : q.statTrak ? 1 : 0;
    const wantSouvenir = q.souvenir === null ? -1 : q.souvenir ? 1 : 0;
    const wantStickers = q.hasStickers === null ? -1 : q.hasStickers ? 1 : 0;
    const filtered =
      q.names !== null ||
      q.rarities !== null ||
      hasPrice ||
      hasFloat ||
      phase !== -1 ||
      wantStatTrak !== -1 ||
      wantSouvenir !== -1 ||
      wantStickers !== -1 ||
      stickerOk !== null;

    const page: number[] = [];
    if (!filtered) {
      if (this.aliveCount === len) {
        for (let i = from; i < to && i < len; i++) page.push(this.itemId[pick(i)] as number);
        return { itemIds: page, total: len };
      }
      let count = 0;
      for (let i = 0; i < len && count < to; i++) {
        const s = pick(i);
        if (this.alive[s] === 0) continue;
        if (count >= from) page.push(this.itemId[s] as number);
        count++;
      }
      return { itemIds: page, total: this.aliveCount };
    }

    // Pass 1, in slot order (sequential memory): test every filter, count, mark matches.
    const match = this.matchBuf;
    const hits = new Int32Array(SMALL_RESULT);
    const filters: MatchFilters = {
      names: q.names,
      rarities: q.rarities,
      priceMin: q.priceMin ?? Number.NEGATIVE_INFINITY,
      priceMax: q.priceMax ?? Number.POSITIVE_INFINITY,
      hasPrice,
      floatMin: q.floatMin ?? Number.NEGATIVE_INFINITY,
      floatMax: q.floatMax ?? Number.POSITIVE_INFINITY,
      hasFloat,
      phase,
      wantStatTrak,
      wantSouvenir,
      wantStickers,
      stickerOk,
      stickerMask,
    };
    const total = this.markMatches(match, hits, filters);
    if (total === 0 || from >= total) return { itemIds: [], total };

    if (total <= SMALL_RESULT) {
      // Few matches: sort them directly.
      const compare = this.comparator(q.sort);
      const sorted = Array.from(hits.subarray(0, total)).sort(q.desc ? (a, b) => compare(b, a) : compare);
      const empty = q.desc ? 0 : this.emptyEnd(q.sort, sorted);
      for (let i = from; i < to && i < total; i++) page.push(this.itemId[sorted[(i + empty) % total] as number] as number);
      return { itemIds: page, total };
    }
    // Pass 2: walk the sort order until the page is full, only where the sort key can match.
    const [first, end] = this.keyWindow(q.sort, perm, filters);
    // Descending: the window backwards. Ascending: its part with values, then its empty part.
    const runs = q.desc ? [[first, end]] : [[Math.max(first, emptyEnd), end], [first, Math.min(emptyEnd, end)]];
    let count = 0;
    for (const [low, high] of runs as [number, number][]) {
      for (let i = q.desc ? high - 1 : low; i >= low && i < high && count < to; i += q.desc ? -1 : 1) {
        const s = perm[i] as number;
        if (match[s] !== 1) continue;
        if (count >= from) page.push(this.itemId[s] as number);
        count++;
      }
    }
    return { itemIds: page, total };
  }

  /** How many of `slots`, sorted ascending by `key`, lead with an empty value (0 for a column never empty). */
  private emptyEnd(key: SortKey, slots: ArrayLike<number>): number {
    const empty = EMPTY_KEY[key];
    if (empty === undefined) return 0;
    const keyOf = this.keyArray(key);
    let low = 0;
    let high = slots.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (keyOf(slots[mid] as number) <= empty) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /**
   * The positions [first, end) of a permutation whose sort key the filters allow: a filter on the sort
   * column itself (a price range sorted by price, "has stickers" sorted by sticker count…) would
   * otherwise walk every non-matching slot below or above the range, hundreds of thousands of
   * random reads.
   */
  private keyWindow(key: SortKey, perm: Int32Array, f: MatchFilters): [number, number] {
    let low = Number.NEGATIVE_INFINITY;
    let high = Number.POSITIVE_INFINITY;
    if (key === 'price' && f.hasPrice) [low, high] = [f.priceMin, f.priceMax];
    else if (key === 'float' && f.hasFloat) [low, high] = [f.floatMin, f.floatMax];
    else if (key === 'stickers' && f.wantStickers !== -1) [low, high] = f.wantStickers === 1 ? [1, Number.POSITIVE_INFINITY] : [0, 0];
    else if (key === 'rarity' && f.rarities !== null) {
      // rarities[rank + 1]: the lowest and highest wanted rank.
      const wanted = f.rarities;
      const ranks = Array.from(wanted.keys()).filter((i) => wanted[i] === 1).map((i) => i - 1);
      if (ranks.length > 0) [low, high] = [Math.min(...ranks), Math.max(...ranks)];
    } else if (key === 'phase' && f.phase !== -1) low = high = this.phaseRank[f.phase] as number;
    else if (key === 'name' && f.names !== null) {
      // The matched names' ranks: a search's names sit in runs of the name order ("AK-47 | …", "StatTrak™ AK-47 | …").
      [low, high] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
      for (let id = 0; id < f.names.length; id++) {
        if (f.names[id] !== 1) continue;
        const rank = this.nameRank[id] ?? 0;
        if (rank < low) low = rank;
        if (rank > high) high = rank;
      }
    }
    if (low === Number.NEGATIVE_INFINITY && high === Number.POSITIVE_INFINITY) return [0, perm.length];
    const keyOf = this.keyArray(key);
    // First position whose key is >= bound (inclusive) or > bound (not inclusive).
    const search = (bound: number, inclusive: boolean): number => {
      let lo = 0;
      let hi = perm.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const k = keyOf(perm[mid] as number);
        if (k < bound || (!inclusive && k === bound)) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    return [search(low, true), search(high, false)];
  }

  private markMatches(match: Uint8Array, hits: Int32Array, f: MatchFilters): number {
    // A specific search tests only its names' slots; anything else narrows every slot, one filter a pass.
    const list = f.names !== null ? this.candidatesFor(f.names) : null;
    if (list !== null) return this.markCandidates(match, hits, list, f);
    const n = this.n;
    match.set(this.alive.subarray(0, n));
    if (f.names !== null) narrowByLookup(match, this.nameId, f.names, 0, n);
    if (f.hasPrice) narrowByRange(match, this.price, f.priceMin, f.priceMax, n);
    if (f.hasFloat) narrowByRange(match, this.float, f.floatMin, f.floatMax, n);
    if (f.rarities !== null) narrowByLookup(match, this.rarity, f.rarities, 1, n);
    if (f.phase !== -1) narrowByEquals(match, this.phaseId, f.phase, n);
    if (f.wantStatTrak !== -1) narrowByFlag(match, this.statTrak, f.wantStatTrak, n);
    if (f.wantSouvenir !== -1) narrowByFlag(match, this.souvenir, f.wantSouvenir, n);
    if (f.wantStickers !== -1) narrowByPresence(match, this.stickerCount, f.wantStickers, n);
    if (f.stickerOk !== null) this.narrowByStickerName(match, f.stickerOk, f.stickerMask, n);
    const count = countMatches(match, n);
    if (count <= hits.length) collectMatches(match, n, hits);
    return count;
  }

  /** 1 when slot s holds a sticker whose id is marked in `wanted` (mask: their Bloom bits), else 0. */
  private hasStickerOf(s: number, wanted: Uint8Array, mask: number): number {
    if (((this.stickerBloom[s] as number) & mask) === 0) return 0;
    const held = this.stickerCount[s] as number;
    const base = s * STICKER_SLOTS;
    const end = base + (held < STICKER_SLOTS ? held : STICKER_SLOTS);
    for (let j = base; j < end; j++) {
      const id = this.stickerIdsInline[j] as number;
      if (id >= 0 && wanted[id] === 1) return 1;
    }
    if (held > STICKER_SLOTS) {
      const all = this.stickerOverflow.get(s);
      if (all) for (let j = 0; j < all.length; j++) if (wanted[all[j] as number] === 1) return 1;
    }
    return 0;
  }

  /** The filters tested on each listed slot (a name search's postings); the first hits.length matches go to hits. */
  private markCandidates(match: Uint8Array, hits: Int32Array, list: Int32Array, f: MatchFilters): number {
    const { alive, nameId, price, float, phaseId, rarity, statTrak, souvenir, stickerCount } = this;
    const { names, rarities, priceMin, priceMax, hasPrice, floatMin, floatMax, hasFloat, phase, wantStatTrak, wantSouvenir, wantStickers, stickerOk, stickerMask } =
      f;
    match.fill(0, 0, this.n);
    let count = 0;
    for (let k = 0; k < list.length; k++) {
      const s = list[k] as number;
      let ok = alive[s] as number;
      if (names !== null) ok &= names[nameId[s] as number] as number;
      if (hasPrice) {
        const v = price[s] as number;
        ok &= +(v >= priceMin) & +(v <= priceMax);
      }
      if (hasFloat) {
        const v = float[s] as number;
        ok &= +(v >= floatMin) & +(v <= floatMax);
      }
      if (rarities !== null) ok &= rarities[(rarity[s] as number) + 1] as number;
      if (phase !== -1) ok &= +(phaseId[s] === phase);
      if (wantStatTrak !== -1) ok &= +(statTrak[s] === wantStatTrak);
      if (wantSouvenir !== -1) ok &= +(souvenir[s] === wantSouvenir);
      if (wantStickers !== -1) ok &= +(+((stickerCount[s] as number) > 0) === wantStickers);
      if (stickerOk !== null && ok === 1) ok = this.hasStickerOf(s, stickerOk, stickerMask);
      match[s] = ok;
      if (count < hits.length) hits[count] = s;
      count += ok;
    }
    return count;
  }
}
