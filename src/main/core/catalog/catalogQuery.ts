/**
 * The catalog query over a reader's snapshot: each filter narrows the matching slots in turn, then the page is picked by
 * the sort column's keys. A filter or sort column is one entry below; a filter's `item` test is what alert rules use on a frame.
 */
import type { Item } from '../../../shared/api';
import { RARITY_COLORS } from '../../../shared/api';
import { inRanges, WEAR_BANDS } from '../../../shared/filters';
import type { CatalogFilters } from '../../../shared/ipc/contract';
import type { MarketStanding } from '../../../shared/ipc/models';
import type { ParsedCatalogQuery } from '../store/types';
import { rarityRankOf, SOUVENIR_PREFIX, STATTRAK_MARK } from './itemRows';
import { asciiLower, type CatalogSnapshot, SOUVENIR, STAT_TRAK } from './snapshot';
import type { SlotLists } from './slotLists';

type Query = ParsedCatalogQuery;
type Filters = CatalogFilters;
type SortColumn = Query['sort'];

/** How a filter narrows the matches: one of a few loops, each its own function so the engine compiles it for one column type. */
type Narrowing =
  | { kind: 'range'; column: Float64Array; min: number; max: number }
  | { kind: 'lookup'; column: Int32Array | Int8Array; wanted: Uint8Array }
  | { kind: 'values'; column: Float64Array; wanted: Uint8Array }
  | { kind: 'listed'; lists: SlotLists; wanted: Uint8Array }
  | { kind: 'bands'; column: Float64Array; bands: readonly { min: number; max: number }[] }
  | { kind: 'flag'; column: Uint8Array; bit: number; set: boolean };

/** A filter's test of one item; `standing`: its market standing (null: not known, which a filter that needs it fails). */
export type ItemTest = (item: Item, standing: MarketStanding | null) => boolean;

interface CatalogFilter {
  active(f: Filters): boolean;
  narrowing(s: CatalogSnapshot, f: Filters): Narrowing;
  /** The same filter over one item. */
  item(f: Filters): ItemTest;
  /** It reads the market standing (which a feed frame's item does not carry). */
  needsStanding?: true;
}

function searchTerms(search: string): string[] {
  return search
    .trim()
    .split(/\s+/u)
    .filter((term) => term !== '')
    .map(asciiLower);
}

/** A table of wanted values, 1 for those in the ranges. */
function wantedValues(ranges: readonly (readonly [number, number])[]): Uint8Array {
  const wanted = new Uint8Array(Math.max(0, ...ranges.map(([, high]) => high)) + 1);
  for (const [low, high] of ranges) wanted.fill(1, low, high + 1);
  return wanted;
}

/** A table of wanted codes (code + 1, so -1, "none", is index 0 and never wanted). */
function wantedCodes(size: number, codes: Iterable<number>): Uint8Array {
  const wanted = new Uint8Array(size + 1);
  for (const code of codes) if (code >= 0 && code < size) wanted[code + 1] = 1;
  return wanted;
}

const within = (value: number | null, min: number | null, max: number | null) =>
  value !== null && value >= (min ?? -Infinity) && value <= (max ?? Infinity);
/** Whether one of the names (stickers, charms), ASCII-lowered, holds one of the texts. */
const anyHolding = (names: readonly { name: string }[], texts: readonly string[]) =>
  names.some(({ name }) => texts.some((text) => asciiLower(name).includes(text)));
const rarityCode = (color: string | null) => rarityRankOf(color) ?? -1;

type Bounds = (f: Filters) => readonly [number | null, number | null];

interface NumberFilter {
  bounds: Bounds;
  column: (s: CatalogSnapshot) => Float64Array;
  value: (item: Item, standing: MarketStanding | null) => number | null;
  needsStanding?: true;
}

/** A filter on a number column within bounds (null: open), asked for when a bound is set; NaN is outside every range. */
function between({ bounds, column, value, needsStanding }: NumberFilter): CatalogFilter {
  return {
    active: (f) => bounds(f).some((bound) => bound !== null),
    narrowing: (s, f) => {
      const [min, max] = bounds(f);
      return { kind: 'range', column: column(s), min: min ?? -Infinity, max: max ?? Infinity };
    },
    item: (f) => {
      const [min, max] = bounds(f);
      return (item, standing) => within(value(item, standing), min, max);
    },
    ...(needsStanding && { needsStanding }),
  };
}

/** A bound on a column of the market standing (which a feed frame's item does not carry: it is looked up). */
const marketBetween = (bounds: Bounds, key: 'discount' | 'floatRank' | 'listings') =>
  between({
    bounds,
    column: (s) => s.markets[key],
    value: (_item, standing) => standing?.[key] ?? null,
    needsStanding: true,
  });

/** Items one of whose sticker (or charm) names holds one of the texts (ASCII-lowered). */
function namesHolding(texts: (f: Filters) => string[], of: 'stickers' | 'charms'): CatalogFilter {
  const lists = (s: CatalogSnapshot) => (of === 'stickers' ? s.stickerNames : s.charmNames);
  return {
    active: (f) => texts(f).length > 0,
    narrowing: (s, f) => {
      const wanted = texts(f).map((text) => lists(s).holding(text));
      const any = wanted.reduce((all, one) => all.map((hit, id) => hit | (one[id] as number)));
      return { kind: 'listed', lists: lists(s).bySlot, wanted: any };
    },
    item: (f) => (item) => anyHolding(of === 'stickers' ? item.stickers : item.keyChains, texts(f)),
  };
}

/** A name filter's text, trimmed and ASCII-lowered, as a list (empty: not asked for). */
const textOf = (text: string) => (text.trim() === '' ? [] : [asciiLower(text.trim())]);

/** "Has one" (at least 1) or "has none" (0) of a count, or either (null). */
const presence = (wanted: boolean | null) =>
  wanted === null ? ([null, null] as const) : wanted ? ([1, null] as const) : ([0, 0] as const);

const FILTERS: readonly CatalogFilter[] = [
  {
    active: (f) => searchTerms(f.search).length > 0,
    narrowing: (s, f) => {
      const terms = searchTerms(f.search);
      const ids = s.names.flatMap((name, id) => (terms.every((term) => name.includes(term)) ? [id] : []));
      return { kind: 'lookup', column: s.nameId, wanted: wantedCodes(s.names.length, ids) };
    },
    item: (f) => {
      const terms = searchTerms(f.search);
      return (item) => terms.every((term) => asciiLower(item.market_hash_name).includes(term));
    },
  },
  between({ bounds: (f) => [f.priceMin, f.priceMax], column: (s) => s.price, value: (item) => item.price }),
  between({ bounds: (f) => [f.floatMin, f.floatMax], column: (s) => s.float, value: (item) => item.float }),
  {
    active: (f) => f.rarityColors.length > 0,
    narrowing: (s, f) => ({
      kind: 'lookup',
      column: s.rarity,
      wanted: wantedCodes(RARITY_COLORS.length, f.rarityColors.map(rarityCode)),
    }),
    item: (f) => {
      const wanted = new Set(f.rarityColors.map(rarityCode));
      return (item) => rarityCode(item.rarityColor) >= 0 && wanted.has(rarityCode(item.rarityColor));
    },
  },
  {
    active: (f) => f.phase !== null,
    narrowing: (s, f) => ({
      kind: 'lookup',
      column: s.phase,
      wanted: wantedCodes(s.phases.length, [s.phaseFilterCode(f.phase as string)]),
    }),
    item: (f) => (item) => item.phase === f.phase,
  },
  {
    active: (f) => f.statTrak !== null,
    narrowing: (s, f) => ({ kind: 'flag', column: s.flags, bit: STAT_TRAK, set: f.statTrak === true }),
    item: (f) => (item) => item.market_hash_name.includes(STATTRAK_MARK) === f.statTrak,
  },
  {
    active: (f) => f.souvenir !== null,
    narrowing: (s, f) => ({ kind: 'flag', column: s.flags, bit: SOUVENIR, set: f.souvenir === true }),
    item: (f) => (item) => item.market_hash_name.startsWith(SOUVENIR_PREFIX) === f.souvenir,
  },
  between({ bounds: (f) => presence(f.hasStickers), column: (s) => s.stickers, value: (item) => item.stickers.length }),
  namesHolding((f) => textOf(f.stickerName), 'stickers'),
  namesHolding((f) => f.stickerNames.map(asciiLower), 'stickers'),
  between({
    bounds: (f) => [f.stickerCountMin, null],
    column: (s) => s.stickers,
    value: (item) => item.stickers.length,
  }),
  between({
    bounds: (f) => [f.sameStickerMin, null],
    column: (s) => s.sameStickers,
    value: (item) => {
      const counts = new Map<string, number>();
      for (const { name } of item.stickers) counts.set(asciiLower(name), (counts.get(asciiLower(name)) ?? 0) + 1);
      return Math.max(0, ...counts.values());
    },
  }),
  between({ bounds: (f) => presence(f.hasCharm), column: (s) => s.charms, value: (item) => item.keyChains.length }),
  namesHolding((f) => textOf(f.charmName), 'charms'),
  {
    active: (f) => f.charmPatterns.length > 0,
    narrowing: (s, f) => ({ kind: 'listed', lists: s.charmPatterns, wanted: wantedValues(f.charmPatterns) }),
    item: (f) => (item) =>
      item.keyChains.some(({ pattern }) => Number.isInteger(pattern) && inRanges(f.charmPatterns, pattern as number)),
  },
  {
    active: (f) => f.seeds.length > 0,
    narrowing: (s, f) => ({ kind: 'values', column: s.seed, wanted: wantedValues(f.seeds) }),
    item: (f) => (item) =>
      item.paintSeed !== null && Number.isInteger(item.paintSeed) && inRanges(f.seeds, item.paintSeed),
  },
  {
    active: (f) => f.wears.length > 0,
    narrowing: (s, f) => ({ kind: 'bands', column: s.float, bands: f.wears.map((wear) => WEAR_BANDS[wear]) }),
    item: (f) => (item) =>
      item.float !== null &&
      f.wears.some(
        (wear) => (item.float as number) >= WEAR_BANDS[wear].min && (item.float as number) < WEAR_BANDS[wear].max,
      ),
  },
  {
    active: (f) => f.excludeWords.trim() !== '',
    narrowing: (s, f) => {
      const words = searchTerms(f.excludeWords);
      const ids = s.names.flatMap((name, id) => (words.some((word) => name.includes(word)) ? [] : [id]));
      return { kind: 'lookup', column: s.nameId, wanted: wantedCodes(s.names.length, ids) };
    },
    item: (f) => {
      const words = searchTerms(f.excludeWords);
      return (item) => !words.some((word) => asciiLower(item.market_hash_name).includes(word));
    },
  },
  marketBetween((f) => [f.discountMin, null], 'discount'),
  marketBetween((f) => (f.floatRankMax === null ? [null, null] : [1, f.floatRankMax]), 'floatRank'),
  marketBetween((f) => [f.listingsMin, null], 'listings'),
];

/** The filters as one test of an item, and whether it needs the item's market standing (see ItemTest). */
export function itemFilter(f: Filters): { test: ItemTest; needsStanding: boolean } {
  const used = FILTERS.filter((filter) => filter.active(f));
  const tests = used.map((filter) => filter.item(f));
  return {
    test: (item, standing) => tests.every((test) => test(item, standing)),
    needsStanding: used.some((filter) => filter.needsStanding === true),
  };
}

function narrowRange(matches: Int32Array, count: number, column: Float64Array, min: number, max: number): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const slot = matches[i] as number;
    const value = column[slot] as number;
    if (value >= min && value <= max) matches[kept++] = slot;
  }
  return kept;
}

function narrowLookup(matches: Int32Array, count: number, column: Int32Array | Int8Array, wanted: Uint8Array): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const slot = matches[i] as number;
    if (wanted[(column[slot] as number) + 1] === 1) matches[kept++] = slot;
  }
  return kept;
}

function narrowFlag(matches: Int32Array, count: number, column: Uint8Array, bit: number, set: boolean): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const slot = matches[i] as number;
    if ((((column[slot] as number) & bit) !== 0) === set) matches[kept++] = slot;
  }
  return kept;
}

/** A lookup of its own: a Float64Array column in narrowLookup's loop made every lookup slower (seen in filter-sort). */
function narrowValues(matches: Int32Array, count: number, column: Float64Array, wanted: Uint8Array): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const slot = matches[i] as number;
    const value = column[slot] as number;
    // An integer index (NaN, a fraction or a negative number is never wanted): a table read with a double key is slow.
    const index = value | 0;
    if (index === value && index >= 0 && wanted[index] === 1) matches[kept++] = slot;
  }
  return kept;
}

function narrowListed(
  matches: Int32Array,
  count: number,
  { start, length, pool }: SlotLists,
  wanted: Uint8Array,
): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const slot = matches[i] as number;
    const first = start[slot] as number;
    const end = first + (length[slot] as number);
    for (let at = first; at < end; at++) {
      if (wanted[pool[at] as number] === 1) {
        matches[kept++] = slot;
        break;
      }
    }
  }
  return kept;
}

/** In one of the bands, each [min, max). */
function narrowBands(
  matches: Int32Array,
  count: number,
  column: Float64Array,
  bands: readonly { min: number; max: number }[],
): number {
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const slot = matches[i] as number;
    const value = column[slot] as number;
    for (const band of bands) {
      if (value >= band.min && value < band.max) {
        matches[kept++] = slot;
        break;
      }
    }
  }
  return kept;
}

function narrow(matches: Int32Array, count: number, n: Narrowing): number {
  if (n.kind === 'range') return narrowRange(matches, count, n.column, n.min, n.max);
  if (n.kind === 'lookup') return narrowLookup(matches, count, n.column, n.wanted);
  if (n.kind === 'flag') return narrowFlag(matches, count, n.column, n.bit, n.set);
  if (n.kind === 'values') return narrowValues(matches, count, n.column, n.wanted);
  if (n.kind === 'listed') return narrowListed(matches, count, n.lists, n.wanted);
  return narrowBands(matches, count, n.column, n.bands);
}

function narrowAll(s: CatalogSnapshot, f: Filters, matches: Int32Array, count: number): number {
  for (const filter of FILTERS) if (filter.active(f)) count = narrow(matches, count, filter.narrowing(s, f));
  return count;
}

/** Each sort column's key of a slot; NaN is empty. */
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
  discount: (s, slot) => s.markets.discount[slot] as number,
  floatRank: (s, slot) => s.markets.floatRank[slot] as number,
};

/** A page deeper than this is cut from the whole sorted match list (kept for the next page) instead of a heap. */
const HEAP_MAX = 2000;

/** Slots in page order: by key in the direction (`sign`; an empty key, +Infinity, last either way), then by itemId in the direction. */
interface Order {
  keys: Float64Array;
  ids: Float64Array;
  sign: number;
}

function keyOf(o: Order, slot: number): number {
  const key = o.keys[slot] as number;
  return key === Infinity ? key : key * o.sign;
}

function before(o: Order, a: number, b: number): boolean {
  const x = keyOf(o, a);
  const y = keyOf(o, b);
  return x < y || (x === y && ((o.ids[a] as number) - (o.ids[b] as number)) * o.sign < 0);
}

export class CatalogQuery {
  /** Sort keys by column (empty: +Infinity), for the snapshot's generation they were made in. */
  private keys = new Map<SortColumn, Float64Array>();
  private keysGeneration = -1;
  private sorted: { key: string; generation: number; order: Int32Array } | null = null;
  /** The slots on sale, for the snapshot's generation they were listed in; each query narrows a copy in `scratch`. */
  private onSale = { generation: -1, slots: new Int32Array(0) };
  private scratch = new Int32Array(0);

  constructor(private readonly s: CatalogSnapshot) {}

  run(q: Query): { slots: Int32Array; total: number } {
    const s = this.s;
    if (this.onSale.generation !== s.generation) {
      const slots = new Int32Array(s.onSaleCount);
      for (let slot = 0, n = 0; slot < s.size; slot++) if (s.onSale[slot] === 1) slots[n++] = slot;
      this.onSale = { generation: s.generation, slots };
      if (this.scratch.length < slots.length) this.scratch = new Int32Array(s.itemId.length);
    }
    const all = this.scratch;
    all.set(this.onSale.slots);
    const count = narrowAll(s, q, all, this.onSale.slots.length);
    const matches = all.subarray(0, count);
    const end = Math.min(count, q.offset + q.limit);
    if (q.offset >= end) return { slots: new Int32Array(0), total: count };
    const order: Order = { keys: this.keysFor(q.sort), ids: s.itemId, sign: q.direction === 'asc' ? 1 : -1 };
    const page = end <= HEAP_MAX ? smallest(matches, end, order) : this.sortedMatches(q, matches, order);
    return { slots: page.subarray(q.offset, end), total: count };
  }

  /** Which of these items (those on sale) the filters match, by the same narrowings over their slots alone. */
  matchingIds(f: Filters, itemIds: readonly number[]): number[] {
    const s = this.s;
    const slots = Int32Array.from(
      itemIds.map((itemId) => s.slotOf(itemId)).filter((slot) => slot >= 0 && s.onSale[slot] === 1),
    );
    return Array.from(slots.subarray(0, narrowAll(s, f, slots, slots.length)), (slot) => s.itemId[slot] as number);
  }

  private keysFor(column: SortColumn): Float64Array {
    const s = this.s;
    if (this.keysGeneration !== s.generation) {
      this.keys.clear();
      this.keysGeneration = s.generation;
    }
    let keys = this.keys.get(column);
    if (!keys) {
      keys = new Float64Array(s.size);
      const key = SORT_KEYS[column];
      for (let slot = 0; slot < s.size; slot++) {
        const value = key(s, slot);
        keys[slot] = Number.isNaN(value) ? Infinity : value;
      }
      this.keys.set(column, keys);
    }
    return keys;
  }

  /** Every match in order, kept while the snapshot and the query (but for its page) stay the same. */
  private sortedMatches(q: Query, matches: Int32Array, order: Order): Int32Array {
    const key = JSON.stringify({ ...q, offset: 0, limit: 0 });
    if (this.sorted?.key !== key || this.sorted.generation !== this.s.generation) {
      this.sorted = {
        key,
        generation: this.s.generation,
        order: Int32Array.from(matches).sort((a, b) => (before(order, a, b) ? -1 : before(order, b, a) ? 1 : 0)),
      };
    }
    return this.sorted.order;
  }
}

/** The first `k` of `slots` in page order: a bounded max-heap, one pass (most slots fail one compare with its top). */
function smallest(slots: Int32Array, k: number, order: Order): Int32Array {
  const heap = new Int32Array(k);
  let size = 0;
  const { keys, ids, sign } = order;
  const swap = (i: number, j: number) => {
    const t = heap[i] as number;
    heap[i] = heap[j] as number;
    heap[j] = t;
  };
  // The top's key and id, read again only when the top changes: the compare with them is most of a broad query's time.
  let topKey = Number.NaN;
  let topId = 0;
  const readTop = () => {
    topKey = keyOf(order, heap[0] as number);
    topId = ids[heap[0] as number] as number;
  };
  // Slots are mostly in itemId order: walked in the direction, ties on the key (items listed at one instant) lose at once.
  const last = slots.length - 1;
  for (let i = 0; i <= last; i++) {
    const slot = slots[sign > 0 ? i : last - i] as number;
    if (size < k) {
      let at = size++;
      heap[at] = slot;
      for (
        let parent = (at - 1) >> 1;
        at > 0 && before(order, heap[parent] as number, heap[at] as number);
        at = parent, parent = (at - 1) >> 1
      )
        swap(at, parent);
      if (size === k) readTop();
      continue;
    }
    const raw = keys[slot] as number;
    const key = raw === Infinity ? raw : raw * sign;
    if (key > topKey || (key === topKey && ((ids[slot] as number) - topId) * sign > 0)) continue;
    heap[0] = slot;
    for (let at = 0; ;) {
      const left = 2 * at + 1;
      if (left >= size) break;
      const larger = left + 1 < size && before(order, heap[left] as number, heap[left + 1] as number) ? left + 1 : left;
      if (!before(order, heap[at] as number, heap[larger] as number)) break;
      swap(at, larger);
      at = larger;
    }
    readTop();
  }
  return heap.subarray(0, size).sort((a, b) => (before(order, a, b) ? -1 : 1));
}
