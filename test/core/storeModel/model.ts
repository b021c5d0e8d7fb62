/**
 * The oracle of the store model test: the catalog as a plain Map of items, and what each reader the app
 * uses must answer, computed with array filters and sorts written here (none of the store's code or SQL).
 *
 * Invariants the test checks after every command (the store must answer as this model does):
 *  1. On sale = the last full sync's list, then every live change since in order: an upsert lists or
 *     rewrites an item, a price change moves a held item's price (unknown ids are reported, not stored),
 *     a removal takes a held item off sale. An id the feed wrote while a sync downloaded keeps the feed's
 *     state (the list neither lists, changes nor sells it). A sync that fails, or a process killed before
 *     its sync commits, changes nothing; a write that returned survives a kill of the process right after.
 *  2. Totals (catalogInfo, every write's result, an unfiltered page's total) = count and sum of prices on sale.
 *  3. A catalog page = the items on sale that pass every filter, sorted by the column then by itemId in
 *     the asked direction, empty values (no float; no float or no seed; no phase; no rarity) last in both
 *     directions, sliced at offset/limit; its total counts every match. Filters: every search term a
 *     substring of the name (ASCII case ignored); price and float bounds inclusive (no float never
 *     matches a float bound); rarity one of the colours (case ignored); phase equal; StatTrak™ in the
 *     name; a name that starts with "Souvenir "; stickers or none; a sticker name holding the text.
 *  4. A row shows the item's live fields, its listing time (when it last went on sale: a new id, a
 *     re-listing after a removal or a sync that left it out) and its last move (up/down; none since listed).
 *  5. Item detail and look-up by id: an item on sale at its live price; an item that left sale (removed
 *     live or left out by a sync) at the price it left at, onSale false; an id never held: nothing.
 *  6. Price history, sorted by time, one point per instant (the last price at it): on sale, the listing
 *     (time, price) then every move since; sold, its moves in every listing (it keeps no listing time).
 *     It ends at the item's price whenever it moved since listed.
 *  7. Listing times and move times lie within the command that made them; items listed in one write share it.
 *  8. Trades and ledger entries: stored once by id, kept through everything; pages newest first (createdAt,
 *     then id, descending), the id filters a prefix of the id (ASCII case ignored, % and _ literal) (records.ts).
 *  9. Market standing: by name and phase among the items on sale, the median price of the plain ones (none
 *     without one), the counts, the discount, the float rank (among those of its seed too). An item's detail
 *     adds, of its market's listings on sale or not, how many left sale in the last 24 h and the median and count
 *     of the prices they were seen at in the last 7 days (every listing and move: a run lasts far less than both).
 */
import type { Item } from '../../../src/shared/api';
import { RARITY_COLORS } from '../../../src/shared/api';
import type { CatalogRow, ItemDetail, MarketStanding } from '../../../src/shared/ipc';
import { WEAR_BANDS, type Wear } from '../../../src/shared/filters';
import type { CATALOG_SORT_COLUMNS } from '../../../src/shared/ipc/contract';
import { RecordsModel } from './records';

export type SortColumn = (typeof CATALOG_SORT_COLUMNS)[number];

/** A full catalog query (every field set, as after the contract's defaults). */
export interface ModelQuery {
  search: string;
  priceMin: number | null;
  priceMax: number | null;
  rarityColors: string[];
  floatMin: number | null;
  floatMax: number | null;
  phase: string | null;
  statTrak: boolean | null;
  souvenir: boolean | null;
  hasStickers: boolean | null;
  stickerName: string;
  seeds: [number, number][];
  wears: Wear[];
  hasCharm: boolean | null;
  charmName: string;
  charmPatterns: [number, number][];
  stickerCountMin: number | null;
  sameStickerMin: number | null;
  stickerNames: string[];
  excludeWords: string;
  discountMin: number | null;
  floatRankMax: number | null;
  listingsMin: number | null;
  sort: SortColumn;
  direction: 'asc' | 'desc';
  offset: number;
  limit: number;
}

/** A point of an item's price history; `tick` is the command that set the price. */
export interface ModelPoint {
  tick: number;
  price: number;
}

export interface HeldItem {
  item: Item;
  listedTick: number;
  /** The price it was listed at, then its moves since (tick, new price). */
  listedPrice: number;
  moves: ModelPoint[];
  lastMove: 'up' | 'down' | null;
}

export interface SoldItem {
  item: Item;
}

/** What a catalog row must show, the listing time as the command that listed it. */
export type ExpectedRow = Omit<CatalogRow, 'listedAt'> & { listedTick: number };

export interface ExpectedDetail {
  item: Item;
  onSale: boolean;
  history: ModelPoint[];
  /** On sale: its market standing and its market's last day and week. */
  market: NonNullable<ItemDetail['market']> | null;
}

/** One point per tick: the last price at it. */
function collapsed(points: ModelPoint[]): ModelPoint[] {
  const out: ModelPoint[] = [];
  for (const point of points) {
    const last = out[out.length - 1];
    if (last && last.tick === point.tick) last.price = point.price;
    else out.push({ ...point });
  }
  return out;
}

/** The median of prices (the two middle ones' mean, rounded down); null for none. */
function medianOf(prices: number[]): number | null {
  const sorted = [...prices].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return null;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : Math.floor(((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2);
}

/** An item's market: its name and phase. */
const marketOf = (item: Item) => `${item.market_hash_name}|${item.phase}`;

/** Same item, same text: what the store keeps without a write. */
function sameItem(a: Item, b: Item): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class CatalogModel {
  readonly onSale = new Map<number, HeldItem>();
  readonly sold = new Map<number, SoldItem>();
  /** The latest version of every id ever seen (on sale or not): what a re-listing or a changed copy starts from. */
  readonly lastSeen = new Map<number, Item>();
  /** Every move of every id, across its listings (a sold item's history). */
  readonly allMoves = new Map<number, ModelPoint[]>();
  /** Every price each id was seen at: each listing's price and each move, across its listings. */
  readonly seen = new Map<number, number[]>();
  lastUpdate: string | null = null;
  /** Trades and ledger entries (records.ts). */
  readonly records = new RecordsModel();

  get totals(): { totalItems: number; totalValue: number } {
    let totalValue = 0;
    for (const held of this.onSale.values()) totalValue += held.item.price;
    return { totalItems: this.onSale.size, totalValue };
  }

  private list(item: Item, tick: number): void {
    this.changes++;
    this.seen.set(item.itemId, [...(this.seen.get(item.itemId) ?? []), item.price]);
    this.onSale.set(item.itemId, { item, listedTick: tick, listedPrice: item.price, moves: [], lastMove: null });
    this.sold.delete(item.itemId);
    this.lastSeen.set(item.itemId, item);
  }

  /** A feed upsert, or an item of a sync's list: listed (at listTick) when not on sale, else rewritten (a move if its price differs). */
  upsert(item: Item, tick: number, listTick = tick): 'listed' | 'changed' | 'unchanged' {
    const held = this.onSale.get(item.itemId);
    if (!held) {
      this.list(item, listTick);
      return 'listed';
    }
    if (sameItem(held.item, item)) return 'unchanged';
    this.changes++;
    if (item.price !== held.item.price) this.move(held, item.price, tick);
    held.item = item;
    this.lastSeen.set(item.itemId, item);
    return 'changed';
  }

  private move(held: HeldItem, price: number, tick: number): void {
    held.lastMove = price > held.item.price ? 'up' : 'down';
    held.moves.push({ tick, price });
    const all = this.allMoves.get(held.item.itemId) ?? [];
    all.push({ tick, price });
    this.allMoves.set(held.item.itemId, all);
    this.seen.get(held.item.itemId)?.push(price);
  }

  /** A live price change: the price before it, or null when the item is not on sale. */
  changePrice(itemId: number, price: number, tick: number): number | null {
    const held = this.onSale.get(itemId);
    if (!held) return null;
    this.changes++;
    const before = held.item.price;
    if (price !== before) {
      this.move(held, price, tick);
      held.item = { ...held.item, price };
      this.lastSeen.set(itemId, held.item);
    }
    return before;
  }

  /** A live removal, or an item a sync's list left out: sold at its price. Whether it was on sale. */
  remove(itemId: number): boolean {
    const held = this.onSale.get(itemId);
    if (!held) return false;
    this.changes++;
    this.onSale.delete(itemId);
    this.sold.set(itemId, { item: held.item });
    return true;
  }

  /**
   * A sync that committed: the list is the catalog from now on, but for the ids the feed wrote while it
   * downloaded (`fedDuring`: upserted, repriced or removed, held or not), which keep the feed's state.
   * Moves and new listings are at `tick` (the apply).
   */
  sync(items: Item[], lastUpdate: string, tick: number, fedDuring: ReadonlySet<number> = new Set()): void {
    const listed = new Set(items.map((item) => item.itemId));
    for (const itemId of [...this.onSale.keys()])
      if (!listed.has(itemId) && !fedDuring.has(itemId)) this.remove(itemId);
    for (const item of items) if (!fedDuring.has(item.itemId)) this.upsert(item, tick);
    this.lastUpdate = lastUpdate;
  }

  // ---- readers

  detail(itemId: number): ExpectedDetail | null {
    const held = this.onSale.get(itemId);
    if (held)
      return {
        item: held.item,
        onSale: true,
        history: collapsed([{ tick: held.listedTick, price: held.listedPrice }, ...held.moves]),
        market: { ...(this.markets().get(itemId) as MarketStanding), ...this.lastDayAndWeek(held.item) },
      };
    // A sold item keeps no listing time: its history is its moves alone, of every listing.
    const sold = this.sold.get(itemId);
    return sold
      ? { item: sold.item, onSale: false, history: collapsed(this.allMoves.get(itemId) ?? []), market: null }
      : null;
  }

  /** Of an item's market, its listings on sale or not: how many left sale, and the prices they were seen at. */
  private lastDayAndWeek(item: Item): { leftSale24h: number; median7d: number | null; observed7d: number } {
    const market = marketOf(item);
    const listings = [...this.onSale.values(), ...this.sold.values()].filter(
      (other) => marketOf(other.item) === market,
    );
    const seen = listings.flatMap((listing) => this.seen.get(listing.item.itemId) ?? []);
    const leftSale24h = listings.filter((listing) => this.sold.has(listing.item.itemId)).length;
    return { leftSale24h, median7d: medianOf(seen), observed7d: seen.length };
  }

  /** findItemsByIds: on sale or sold, in id order, each id once. */
  lookUp(itemIds: number[]): Item[] {
    return [...new Set(itemIds)]
      .sort((a, b) => a - b)
      .flatMap((itemId) => {
        const found = this.detail(itemId);
        return found ? [found.item] : [];
      });
  }

  /**
   * Every listing's market standing, recomputed from the items on sale: by name and phase, the median price of the
   * plain ones, without stickers or charms (the two middle ones' mean, rounded down; none without a plain one), the
   * counts, the discount against it and the float rank.
   */
  markets(): Map<number, MarketStanding> {
    // Computed once per state of the items on sale (a command asks for pages and details many times).
    const state = this.changes;
    if (this.marketsOf?.state === state) return this.marketsOf.standings;
    const groups = new Map<string, Item[]>();
    for (const { item } of this.onSale.values()) {
      const key = marketOf(item);
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
    const standings = new Map<number, MarketStanding>();
    for (const items of groups.values()) {
      const plain = items.filter((item) => item.stickers.length === 0 && item.keyChains.length === 0);
      const reference = medianOf(plain.map((item) => item.price));
      const byFloat = items
        .filter((item) => item.float !== null)
        .sort((a, b) => (a.float as number) - (b.float as number) || a.itemId - b.itemId);
      const ranks = new Map(byFloat.map((item, i) => [item.itemId, i + 1]));
      for (const item of items) {
        const rank = (ranks.get(item.itemId) ?? 0) - 1;
        // Among those of its seed: the same float order, kept to that seed.
        const sameSeed = byFloat.filter((other) => other.paintSeed === item.paintSeed);
        standings.set(item.itemId, {
          reference,
          listings: items.length,
          plainListings: plain.length,
          discount: reference === null ? null : reference === 0 ? 0 : ((reference - item.price) / reference) * 100,
          floatRank: rank < 0 ? null : rank + 1,
          seedRank:
            rank < 0 || item.paintSeed === null ? null : { rank: sameSeed.indexOf(item) + 1, of: sameSeed.length },
        });
      }
    }
    this.marketsOf = { state, standings };
    return standings;
  }

  private marketsOf: { state: number; standings: Map<number, MarketStanding> } | null = null;
  /** Counts every change to the items on sale (what cached markets are valid for). */
  private changes = 0;

  page(query: ModelQuery): { rows: ExpectedRow[]; total: number } {
    const markets = this.markets();
    const matching = [...this.onSale.values()].filter((held) =>
      matches(held.item, query, markets.get(held.item.itemId) as MarketStanding),
    );
    matching.sort(comparator(query.sort, query.direction, markets));
    const rows = matching.slice(query.offset, query.offset + query.limit).map((held) => rowOf(held, markets));
    // A row's seed rank is given only under a seed list.
    if (query.seeds.length === 0) for (const row of rows) if (row.market) row.market = withoutSeedRank(row.market);
    return { rows, total: matching.length };
  }
}

function withoutSeedRank({ seedRank: _seedRank, ...market }: MarketStanding): MarketStanding {
  return market;
}

function rowOf(held: HeldItem, markets: Map<number, MarketStanding>): ExpectedRow {
  const item = held.item;
  return {
    itemId: item.itemId,
    assetId: item.assetId,
    market_hash_name: item.market_hash_name,
    phase: item.phase,
    price: item.price,
    float: item.float,
    paintSeed: item.paintSeed,
    rarityColor: item.rarityColor,
    img: item.img,
    stickerCount: item.stickers.length,
    stickerNames: item.stickers.map((sticker) => sticker.name),
    keyChainNames: item.keyChains.map((charm) => charm.name),
    statTrak: item.market_hash_name.includes('StatTrak™'),
    souvenir: item.market_hash_name.startsWith('Souvenir '),
    lastMove: held.lastMove,
    market: markets.get(item.itemId) ?? null,
    listedTick: held.listedTick,
  };
}

/** Lower-casing of ASCII letters only (what SQLite's LIKE ignores). */
function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function rarityIndex(color: string | null): number | null {
  if (color === null) return null;
  const index = (RARITY_COLORS as readonly string[]).indexOf(color.toLowerCase());
  return index < 0 ? null : index;
}

function inRange(ranges: [number, number][], value: number | null | undefined): boolean {
  return typeof value === 'number' && ranges.some(([low, high]) => value >= low && value <= high);
}

function matches(item: Item, q: ModelQuery, market: MarketStanding): boolean {
  const name = asciiLower(item.market_hash_name);
  const terms = q.search
    .trim()
    .split(/\s+/u)
    .filter((term) => term !== '');
  if (!terms.every((term) => name.includes(asciiLower(term)))) return false;
  if (q.priceMin !== null && item.price < q.priceMin) return false;
  if (q.priceMax !== null && item.price > q.priceMax) return false;
  if (q.rarityColors.length > 0) {
    const wanted = q.rarityColors.map(rarityIndex);
    const rarity = rarityIndex(item.rarityColor);
    if (rarity === null || !wanted.includes(rarity)) return false;
  }
  if (q.floatMin !== null && (item.float === null || item.float < q.floatMin)) return false;
  if (q.floatMax !== null && (item.float === null || item.float > q.floatMax)) return false;
  if (q.phase !== null && item.phase !== q.phase) return false;
  if (q.statTrak !== null && item.market_hash_name.includes('StatTrak™') !== q.statTrak) return false;
  if (q.souvenir !== null && item.market_hash_name.startsWith('Souvenir ') !== q.souvenir) return false;
  if (q.hasStickers !== null && item.stickers.length > 0 !== q.hasStickers) return false;
  const sticker = asciiLower(q.stickerName.trim());
  if (sticker !== '' && !item.stickers.some((s) => asciiLower(s.name).includes(sticker))) return false;
  if (q.seeds.length > 0 && !inRange(q.seeds, item.paintSeed)) return false;
  if (
    q.wears.length > 0 &&
    !q.wears.some(
      (wear) => item.float !== null && item.float >= WEAR_BANDS[wear].min && item.float < WEAR_BANDS[wear].max,
    )
  )
    return false;
  if (q.hasCharm !== null && item.keyChains.length > 0 !== q.hasCharm) return false;
  const charm = asciiLower(q.charmName.trim());
  if (charm !== '' && !item.keyChains.some((c) => asciiLower(c.name).includes(charm))) return false;
  if (q.charmPatterns.length > 0 && !item.keyChains.some((c) => inRange(q.charmPatterns, c.pattern))) return false;
  if (q.stickerCountMin !== null && item.stickers.length < q.stickerCountMin) return false;
  if (q.sameStickerMin !== null) {
    const counts = new Map<string, number>();
    for (const s of item.stickers) counts.set(asciiLower(s.name), (counts.get(asciiLower(s.name)) ?? 0) + 1);
    if (Math.max(0, ...counts.values()) < q.sameStickerMin) return false;
  }
  if (
    q.stickerNames.length > 0 &&
    !item.stickers.some((s) => q.stickerNames.some((term) => asciiLower(s.name).includes(asciiLower(term.trim()))))
  )
    return false;
  const excluded = q.excludeWords
    .trim()
    .split(/\s+/u)
    .filter((word) => word !== '');
  if (excluded.some((word) => name.includes(asciiLower(word)))) return false;
  if (q.discountMin !== null && (market.discount === null || market.discount < q.discountMin)) return false;
  if (q.floatRankMax !== null && (market.floatRank === null || market.floatRank > q.floatRankMax)) return false;
  if (q.listingsMin !== null && market.listings < q.listingsMin) return false;
  return true;
}

/** The value an item sorts by; null = empty (goes last whatever the direction). */
function sortValue(held: HeldItem, sort: SortColumn, markets: Map<number, MarketStanding>): number | string | null {
  const item = held.item;
  switch (sort) {
    case 'price':
      return item.price;
    case 'name':
      return item.market_hash_name;
    case 'float':
      return item.float;
    case 'paintSeed':
      // No wear (stickers, charms): the seed is not shown, so it sorts as empty.
      return item.float === null ? null : item.paintSeed;
    case 'phase':
      return item.phase;
    case 'stickers':
      return item.stickers.length;
    case 'keychains':
      return item.keyChains.length;
    case 'listedAt':
      return held.listedTick;
    case 'rarity':
      return rarityIndex(item.rarityColor);
    case 'discount':
      return markets.get(item.itemId)?.discount ?? null;
    case 'floatRank':
      return markets.get(item.itemId)?.floatRank ?? null;
  }
}

function comparator(
  sort: SortColumn,
  direction: 'asc' | 'desc',
  markets: Map<number, MarketStanding>,
): (a: HeldItem, b: HeldItem) => number {
  const sign = direction === 'asc' ? 1 : -1;
  return (a, b) => {
    const x = sortValue(a, sort, markets);
    const y = sortValue(b, sort, markets);
    if (x === null && y !== null) return 1;
    if (y === null && x !== null) return -1;
    if (x !== null && y !== null && x !== y) return (x < y ? -1 : 1) * sign;
    return (a.item.itemId - b.item.itemId) * sign;
  };
}
