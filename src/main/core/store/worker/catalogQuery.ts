/**
 * The catalog query over a reader's snapshot: each filter narrows the list of matching slots in turn,
 * then the page is picked by the sort column's keys. A filter or a sort column is one entry in a table
 * below (and its field in the query schema).
 */
import { RARITY_COLORS } from '../../../../shared/api';
import type { ParsedCatalogQuery } from '../types';
import { asciiLower, type CatalogSnapshot, SOUVENIR, STAT_TRAK } from './snapshot';

type Query = ParsedCatalogQuery;
type SortColumn = Query['sort'];

interface CatalogFilter {
  /** Whether the query uses it. */
  active(q: Query): boolean;
  /** The test a slot must pass, made once per query. */
  test(s: CatalogSnapshot, q: Query): (slot: number) => boolean;
}

function searchTerms(search: string): string[] {
  return search.trim().split(/\s+/u).filter((term) => term !== '').map(asciiLower);
}

/** The names (by name_id) that hold every term. */
function namesMatching(s: CatalogSnapshot, terms: string[]): Uint8Array {
  const mask = new Uint8Array(s.names.length);
  s.names.forEach((name, id) => {
    if (terms.every((term) => name.includes(term))) mask[id] = 1;
  });
  return mask;
}

const FILTERS: readonly CatalogFilter[] = [
  {
    active: (q) => searchTerms(q.search).length > 0,
    test: (s, q) => {
      const mask = namesMatching(s, searchTerms(q.search));
      return (slot) => mask[s.nameId[slot] as number] === 1;
    },
  },
  { active: (q) => q.priceMin !== null, test: (s, q) => (slot) => (s.price[slot] as number) >= (q.priceMin as number) },
  { active: (q) => q.priceMax !== null, test: (s, q) => (slot) => (s.price[slot] as number) <= (q.priceMax as number) },
  // NaN (no float) fails both bounds.
  { active: (q) => q.floatMin !== null, test: (s, q) => (slot) => (s.float[slot] as number) >= (q.floatMin as number) },
  { active: (q) => q.floatMax !== null, test: (s, q) => (slot) => (s.float[slot] as number) <= (q.floatMax as number) },
  {
    active: (q) => q.rarityColors.length > 0,
    test: (s, q) => {
      const wanted = new Set(q.rarityColors.map((color) => (RARITY_COLORS as readonly string[]).indexOf(color.toLowerCase())).filter((rank) => rank >= 0));
      return (slot) => wanted.has(s.rarity[slot] as number);
    },
  },
  {
    active: (q) => q.phase !== null,
    test: (s, q) => {
      const code = s.phaseFilterCode(q.phase as string);
      return (slot) => s.phase[slot] === code;
    },
  },
  { active: (q) => q.statTrak !== null, test: (s, q) => (slot) => (((s.flags[slot] as number) & STAT_TRAK) !== 0) === q.statTrak },
  { active: (q) => q.souvenir !== null, test: (s, q) => (slot) => (((s.flags[slot] as number) & SOUVENIR) !== 0) === q.souvenir },
  { active: (q) => q.hasStickers !== null, test: (s, q) => (slot) => (s.stickers[slot] as number) > 0 === q.hasStickers },
  {
    active: (q) => q.stickerName.trim() !== '',
    test: (s, q) => {
      const text = asciiLower(q.stickerName.trim());
      return (slot) => s.stickerNamed(slot, text);
    },
  },
];

/** Each sort column's key of a slot; NaN is empty and sorts last in both directions. */
const SORT_KEYS: Record<SortColumn, (s: CatalogSnapshot, slot: number) => number> = {
  price: (s, slot) => s.price[slot] as number,
  name: (s, slot) => s.nameRank[s.nameId[slot] as number] as number,
  float: (s, slot) => s.float[slot] as number,
  // No wear (stickers, charms): the seed is not shown, so it sorts as empty.
  paintSeed: (s, slot) => (Number.isNaN(s.float[slot]) ? Number.NaN : (s.seed[slot] as number)),
  phase: (s, slot) => (s.phase[slot] === -1 ? Number.NaN : (s.phaseRank[s.phase[slot] as number] as number)),
  stickers: (s, slot) => s.stickers[slot] as number,
  keychains: (s, slot) => s.charms[slot] as number,
  listedAt: (s, slot) => s.listedAt[slot] as number,
  rarity: (s, slot) => (s.rarity[slot] === -1 ? Number.NaN : (s.rarity[slot] as number)),
};

/** A page deeper than this is cut from the whole sorted match list (kept for the next page) instead of a heap. */
const HEAP_MAX = 2000;

export class CatalogQuery {
  private keys: { column: SortColumn; generation: number; values: Float64Array } | null = null;
  private sorted: { key: string; generation: number; order: Int32Array } | null = null;

  constructor(private readonly s: CatalogSnapshot) {}

  /** The slots of the page, in order, and how many items match. */
  run(q: Query): { slots: Int32Array; total: number } {
    const s = this.s;
    let matches = new Int32Array(s.onSaleCount);
    let count = 0;
    for (let slot = 0; slot < s.size; slot++) if (s.onSale[slot] === 1) matches[count++] = slot;
    for (const filter of FILTERS) {
      if (!filter.active(q)) continue;
      const test = filter.test(s, q);
      let kept = 0;
      for (let i = 0; i < count; i++) {
        const slot = matches[i] as number;
        if (test(slot)) matches[kept++] = slot;
      }
      count = kept;
    }
    matches = matches.subarray(0, count);
    const end = Math.min(count, q.offset + q.limit);
    if (q.offset >= end) return { slots: new Int32Array(0), total: count };
    const compare = this.comparator(q.sort, q.direction);
    if (end <= HEAP_MAX) return { slots: smallest(matches, end, compare).subarray(q.offset, end), total: count };
    return { slots: this.sortedMatches(q, matches, compare).subarray(q.offset, end), total: count };
  }

  private comparator(column: SortColumn, direction: 'asc' | 'desc'): (a: number, b: number) => number {
    const s = this.s;
    if (!this.keys || this.keys.column !== column || this.keys.generation !== s.generation) {
      const values = new Float64Array(s.size);
      const key = SORT_KEYS[column];
      for (let slot = 0; slot < s.size; slot++) values[slot] = key(s, slot);
      this.keys = { column, generation: s.generation, values };
    }
    const keys = this.keys.values;
    const ids = s.itemId;
    const sign = direction === 'asc' ? 1 : -1;
    return (a, b) => {
      const x = keys[a] as number;
      const y = keys[b] as number;
      if (x !== y) {
        // NaN !== NaN: two empty values are a tie.
        const xEmpty = x !== x;
        const yEmpty = y !== y;
        if (!xEmpty || !yEmpty) {
          if (xEmpty) return 1;
          if (yEmpty) return -1;
          return x < y ? -sign : sign;
        }
      }
      return ((ids[a] as number) - (ids[b] as number)) * sign;
    };
  }

  /** Every match in order, kept while the snapshot and the query (but for its page) stay the same. */
  private sortedMatches(q: Query, matches: Int32Array, compare: (a: number, b: number) => number): Int32Array {
    const key = JSON.stringify({ ...q, offset: 0, limit: 0 });
    if (this.sorted?.key !== key || this.sorted.generation !== this.s.generation) {
      this.sorted = { key, generation: this.s.generation, order: Int32Array.from(matches).sort(compare) };
    }
    return this.sorted.order;
  }
}

/** The first `k` of `slots` in `compare` order (a bounded max-heap: one pass, k log k to finish). */
function smallest(slots: Int32Array, k: number, compare: (a: number, b: number) => number): Int32Array {
  const heap = new Int32Array(k);
  let size = 0;
  const siftDown = (from: number) => {
    let i = from;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) return;
      const right = left + 1;
      const larger = right < size && compare(heap[right] as number, heap[left] as number) > 0 ? right : left;
      if (compare(heap[larger] as number, heap[i] as number) <= 0) return;
      const swap = heap[i] as number;
      heap[i] = heap[larger] as number;
      heap[larger] = swap;
      i = larger;
    }
  };
  for (const slot of slots) {
    if (size < k) {
      let i = size++;
      heap[i] = slot;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (compare(heap[i] as number, heap[parent] as number) <= 0) break;
        const swap = heap[i] as number;
        heap[i] = heap[parent] as number;
        heap[parent] = swap;
        i = parent;
      }
    } else if (compare(slot, heap[0] as number) < 0) {
      heap[0] = slot;
      siftDown(0);
    }
  }
  return heap.subarray(0, size).sort(compare);
}
