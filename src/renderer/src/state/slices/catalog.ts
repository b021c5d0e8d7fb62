import type {
  CatalogInfo,
  CatalogRow,
  ItemDetail,
  MarketStanding,
  NameMarket,
  Page,
} from '../../../../shared/ipc/models';
import type { EngineEventBatch } from '../../../../shared/ipc/events';
import {
  type CatalogFilters,
  type CatalogSort,
  catalogQueryKey,
  DEFAULT_SORT,
  EMPTY_FILTERS,
} from '../../lib/catalogQuery';
import { filterRecord } from '../../lib/records';

/**
 * The catalog view: never the whole catalog, only a small cache of pages of the
 * current query (keyed by page index; the query key guards against late answers),
 * the rows those pages reference (normalized by itemId), and live-update marks.
 */
export const PAGE_SIZE = 100;
export const MAX_PAGES = 24;

export interface CatalogPage {
  ids: number[];
  status: 'loading' | 'ready' | 'error';
  /** The slice generation the ids were fetched for; older = stale, shown until replaced. */
  generation: number;
  error: string | null;
}

export interface PriceMove {
  dir: 'up' | 'down';
  /** Batch seq it arrived in: a new seq restarts the flash. */
  seq: number;
  /** Wall-clock ms it was applied, for sweeping. */
  at: number;
}

export interface DetailState {
  id: number | null;
  status: 'idle' | 'loading' | 'ready' | 'missing' | 'error';
  data: ItemDetail | null;
  error: string | null;
}

export interface CatalogSlice {
  info: CatalogInfo;
  filters: CatalogFilters;
  sort: CatalogSort;
  key: string;
  generation: number;
  /** Matching rows on the engine, from the latest page; null until the first page of this query. */
  total: number | null;
  pages: Record<number, CatalogPage>;
  rows: Record<number, CatalogRow>;
  moves: Record<number, PriceMove>;
  /** Items that left sale while on screen: they fade out until the next refresh drops them. */
  removed: Record<number, true>;
  /** Items added or changed off-screen since the last query (a refresh shows them). */
  pendingNew: number;
  /**
   * Sold rows faded in place since the last re-query: they keep their slot (no row jumps
   * under the pointer) until the user refreshes, scrolls or filters.
   */
  faded: number;
  /** The selected item: the selection follows it, never a row position. */
  selectedId: number | null;
  /**
   * Where the selected item is among the loaded rows (derived from selectedId; -1 when not
   * loaded). While selectedId is null, a position waiting for its page (End on 500k rows).
   */
  selectedIndex: number;
  /** The last known position of the selection: where arrow keys continue from when the item is not loaded. */
  anchorIndex: number;
  /** Bumped by keyboard moves: the grid scrolls the selection into view then, and only then. */
  revealSeq: number;
  /**
   * When this cache first saw the market (the oldest listedAt): items listed then were
   * already on sale, so their age is unknown ("—"), not "just listed".
   */
  baselineListedAt: string | null;
  detail: DetailState;
}

export const emptyInfo: CatalogInfo = { totalItems: 0, totalValue: 0, lastUpdate: null, syncedAt: null };

export const initialCatalog: CatalogSlice = {
  info: emptyInfo,
  filters: EMPTY_FILTERS,
  sort: DEFAULT_SORT,
  key: catalogQueryKey(EMPTY_FILTERS, DEFAULT_SORT),
  generation: 0,
  total: null,
  pages: {},
  rows: {},
  moves: {},
  removed: {},
  pendingNew: 0,
  faded: 0,
  selectedId: null,
  selectedIndex: -1,
  anchorIndex: -1,
  revealSeq: 0,
  baselineListedAt: null,
  detail: { id: null, status: 'idle', data: null, error: null },
};

export function pageOf(index: number): number {
  return Math.floor(index / PAGE_SIZE);
}

export function rowIdAt(slice: Pick<CatalogSlice, 'pages'>, index: number): number | undefined {
  if (index < 0) return undefined;
  return slice.pages[pageOf(index)]?.ids[index % PAGE_SIZE];
}

export function rowAt(slice: Pick<CatalogSlice, 'pages' | 'rows'>, index: number): CatalogRow | undefined {
  const id = rowIdAt(slice, index);
  return id === undefined ? undefined : slice.rows[id];
}

/** A new query: drop every page (the grid scrolls to the top). */
export function withQuery(slice: CatalogSlice, filters: CatalogFilters, sort: CatalogSort): CatalogSlice {
  const key = catalogQueryKey(filters, sort);
  if (key === slice.key) return { ...slice, filters, sort };
  return {
    ...slice,
    filters,
    sort,
    key,
    generation: slice.generation + 1,
    total: null,
    pages: {},
    rows: {},
    moves: {},
    removed: {},
    pendingNew: 0,
    faded: 0,
    selectedId: null,
    selectedIndex: -1,
    anchorIndex: -1,
  };
}

/** Everything on screen may be out of date: keep showing it, refetch what is visible (sold rows leave then). */
export function invalidate(slice: CatalogSlice): CatalogSlice {
  return { ...slice, generation: slice.generation + 1, pendingNew: 0, faded: 0 };
}

/**
 * The position of `id` among the loaded rows, or -1. Looks at `hint` first (the common
 * case: nothing moved), then at every cached page (at most MAX_PAGES × PAGE_SIZE ids; only
 * on page answers and selection changes, never per scrolled row).
 */
export function indexOfId(slice: Pick<CatalogSlice, 'pages'>, id: number, hint = -1): number {
  if (hint >= 0 && rowIdAt(slice, hint) === id) return hint;
  for (const [key, page] of Object.entries(slice.pages)) {
    const at = page.ids.indexOf(id);
    if (at >= 0) return Number(key) * PAGE_SIZE + at;
  }
  return -1;
}

/** Select an item (by id; `index` where it was seen). */
export function withSelection(slice: CatalogSlice, id: number, index: number): CatalogSlice {
  if (slice.selectedId === id && slice.selectedIndex === index) return slice;
  return { ...slice, selectedId: id, selectedIndex: index, anchorIndex: index };
}

/**
 * Select whatever is at a position (keyboard moves): at once when its page is loaded,
 * else once the page arrives. Always reveals it.
 */
export function withSelectionAt(slice: CatalogSlice, index: number): CatalogSlice {
  const clamped = clampSelection(index, slice.total);
  if (clamped < 0) return slice;
  const id = rowIdAt(slice, clamped);
  return {
    ...slice,
    selectedId: id ?? null,
    selectedIndex: clamped,
    anchorIndex: clamped,
    revealSeq: slice.revealSeq + 1,
  };
}

/** The selection after the pages changed: the item keeps it wherever it moved; a pending position resolves. */
function locateSelection(slice: CatalogSlice): CatalogSlice {
  if (slice.selectedId === null) {
    if (slice.selectedIndex < 0) return slice;
    const index = clampSelection(slice.selectedIndex, slice.total);
    const id = rowIdAt(slice, index);
    return id === undefined
      ? { ...slice, selectedIndex: index, anchorIndex: index }
      : { ...slice, selectedId: id, selectedIndex: index, anchorIndex: index };
  }
  const index = indexOfId(slice, slice.selectedId, slice.selectedIndex >= 0 ? slice.selectedIndex : slice.anchorIndex);
  if (index === slice.selectedIndex) return slice;
  return { ...slice, selectedIndex: index, anchorIndex: index >= 0 ? index : slice.anchorIndex };
}

/** Pages (by index) that must be fetched to show rows first..last. */
export function pagesToFetch(
  slice: CatalogSlice,
  first: number,
  last: number,
  inFlight: (index: number) => boolean,
): number[] {
  if (last < first) {
    // Nothing on screen: page 0 still tells whether the query has (re)gained rows. Without
    // this an empty answer (a first run before the first sync) was never asked again.
    if (slice.total === null) return inFlight(0) ? [] : [0];
    const page = slice.pages[0];
    const fresh = page && page.generation === slice.generation && page.status !== 'error';
    return fresh || inFlight(0) ? [] : [0];
  }
  const wanted: number[] = [];
  for (let p = pageOf(first); p <= pageOf(last); p++) {
    const page = slice.pages[p];
    const fresh = page && page.generation === slice.generation && page.status !== 'error';
    if (!fresh && !inFlight(p)) wanted.push(p);
  }
  return wanted;
}

export function markLoading(slice: CatalogSlice, indexes: number[]): CatalogSlice {
  if (indexes.length === 0) return slice;
  const pages = { ...slice.pages };
  for (const p of indexes) {
    const old = pages[p];
    // Stale ids stay visible while the fresh page loads (no blank flash).
    pages[p] = { ids: old?.ids ?? [], status: 'loading', generation: old?.generation ?? -1, error: null };
  }
  return { ...slice, pages };
}

/** Keep the MAX_PAGES pages nearest to `centerPage`; drop rows no page references. */
export function evict(slice: CatalogSlice, centerPage: number): CatalogSlice {
  const indexes = Object.keys(slice.pages).map(Number);
  if (indexes.length <= MAX_PAGES) return slice;
  indexes.sort((a, b) => Math.abs(a - centerPage) - Math.abs(b - centerPage) || a - b);
  const keep = new Set(indexes.slice(0, MAX_PAGES));
  const pages: Record<number, CatalogPage> = {};
  const referenced = new Set<number>();
  for (const p of keep) {
    const page = slice.pages[p] as CatalogPage;
    pages[p] = page;
    for (const id of page.ids) referenced.add(id);
  }
  const rows: Record<number, CatalogRow> = {};
  const moves: Record<number, PriceMove> = {};
  const removed: Record<number, true> = {};
  // The selected item stays known even scrolled far away: B still buys exactly it.
  if (slice.selectedId !== null) referenced.add(slice.selectedId);
  for (const id of referenced) {
    const row = slice.rows[id];
    if (row) rows[id] = row;
    const move = slice.moves[id];
    if (move) moves[id] = move;
    if (slice.removed[id]) removed[id] = true;
  }
  return { ...slice, pages, rows, moves, removed };
}

export interface PageAnswer {
  key: string;
  generation: number;
  index: number;
  page: Page<CatalogRow>;
  /** The page at the middle of the viewport, for eviction. */
  centerPage: number;
}

/** A page read; `since`: the batches applied while it was out, whose item news is laid over its rows. */
export function receivePage(
  slice: CatalogSlice,
  answer: PageAnswer,
  since: readonly EngineEventBatch[] = [],
): CatalogSlice {
  if (answer.key !== slice.key) return slice;
  const current = slice.pages[answer.index];
  // An older generation's answer must not replace a newer one.
  if (current && current.status === 'ready' && current.generation > answer.generation) return slice;
  const rows = { ...slice.rows };
  const fresh = new Set<number>();
  const ids = answer.page.rows.map((row) => {
    rows[row.itemId] = row;
    fresh.add(row.itemId);
    return row.itemId;
  });
  // An item answered again is on sale again.
  const removed = filterRecord(slice.removed, (id) => !fresh.has(id)) as Record<number, true>;
  const total = answer.page.total;
  // Pages past the new end are gone (an empty page 0 stays: it records which generation found nothing).
  const lastPage = total === 0 ? 0 : pageOf(total - 1);
  const pages = filterRecord(
    { ...slice.pages, [answer.index]: { ids, status: 'ready' as const, generation: answer.generation, error: null } },
    (index) => index <= lastPage,
  );
  const anchorIndex = Math.min(slice.anchorIndex, total - 1);
  const read = withItemNews({ ...slice, pages, rows, removed, total, anchorIndex }, fresh, since);
  return locateSelection(evict(read, answer.centerPage));
}

/**
 * Item news of batches applied while a page was read (its rows may be older), laid over the page's rows (`ids`) as
 * applyCatalogBatch lays it over rows held; no flash, the rows were not on screen.
 */
function withItemNews(slice: CatalogSlice, ids: ReadonlySet<number>, since: readonly EngineEventBatch[]): CatalogSlice {
  const news = since.flatMap((batch) => (batch.items ? [batch.items] : []));
  if (news.length === 0) return slice;
  const rows = { ...slice.rows };
  const removed = { ...slice.removed };
  let faded = slice.faded;
  for (const items of news) {
    for (const row of items.upserted) {
      const held = rows[row.itemId];
      if (ids.has(row.itemId) && held) rows[row.itemId] = row.market ? row : { ...row, market: held.market };
    }
    for (const move of items.prices) {
      const row = rows[move.itemId];
      if (!ids.has(move.itemId) || !row) continue;
      const before = move.previous ?? row.price;
      const dir = move.price === before ? null : move.price > before ? 'up' : 'down';
      rows[move.itemId] = {
        ...row,
        price: move.price,
        lastMove: dir ?? row.lastMove,
        market: repriced(row.market, move.price),
      };
    }
    for (const id of items.removed) {
      if (ids.has(id) && !removed[id]) {
        removed[id] = true;
        faded++;
      }
    }
  }
  return { ...slice, rows, removed, faded };
}

export function pageFailed(slice: CatalogSlice, key: string, index: number, error: string): CatalogSlice {
  if (key !== slice.key) return slice;
  const old = slice.pages[index];
  return {
    ...slice,
    pages: {
      ...slice.pages,
      [index]: { ids: old?.ids ?? [], status: 'error', generation: old?.generation ?? -1, error },
    },
  };
}

/** A standing after a live price move: its discount against the reference shown (its name's market follows in `markets`). */
function repriced<M extends MarketStanding>(market: M | null, price: number): M | null {
  if (!market || market.reference === null || market.reference <= 0) return market;
  return { ...market, discount: ((market.reference - price) / market.reference) * 100 };
}

/** A standing after its name's market moved: the new reference and counts, and its discount against them. */
function remarketed<M extends MarketStanding>(
  market: M | null,
  moved: NameMarket | undefined,
  price: number,
): M | null {
  if (!market || !moved || moved.listings === 0) return market;
  const { reference } = moved;
  const discount = reference === null ? null : reference === 0 ? 0 : ((reference - price) / reference) * 100;
  return { ...market, reference, listings: moved.listings, plainListings: moved.plainListings, discount };
}

const marketKey = (name: string, phase: string | null) => `${name}\u0000${phase ?? ''}`;

/** The rows and the detail of the names whose market moved, each against the new reference (in place, no reorder). */
function withMarkets(slice: CatalogSlice, markets: readonly NameMarket[]): CatalogSlice {
  const moved = new Map(markets.map((market) => [marketKey(market.name, market.phase), market]));
  let rows = slice.rows;
  for (const row of Object.values(slice.rows)) {
    const market = remarketed(row.market, moved.get(marketKey(row.market_hash_name, row.phase)), row.price);
    if (market === row.market) continue;
    if (rows === slice.rows) rows = { ...rows };
    rows[row.itemId] = { ...row, market };
  }
  const data = slice.detail.data;
  const detailMarket = data
    ? remarketed(data.market, moved.get(marketKey(data.item.market_hash_name, data.item.phase)), data.item.price)
    : null;
  const detail =
    data && detailMarket !== data.market ? { ...slice.detail, data: { ...data, market: detailMarket } } : slice.detail;
  return rows === slice.rows && detail === slice.detail ? slice : { ...slice, rows, detail };
}

/** Live item changes: update what we hold in place; never reorder (no layout shift). */
export function applyCatalogBatch(slice: CatalogSlice, batch: EngineEventBatch, nowMs: number): CatalogSlice {
  const items = batch.items;
  if (!items && !batch.catalog && !batch.markets) return slice;
  // Unchanged (a market of names not on screen) stays the same object: nothing re-renders.
  let next: CatalogSlice = batch.catalog ? { ...slice, info: batch.catalog } : slice;
  if (!items) return batch.markets ? withMarkets(next, batch.markets) : next;

  let rows = next.rows;
  let moves = next.moves;
  let removed = next.removed;
  let detail = next.detail;
  let pendingNew = next.pendingNew;
  const touchRows = () => {
    if (rows === next.rows) rows = { ...rows };
  };

  for (const row of items.upserted) {
    const held = rows[row.itemId];
    if (held) {
      touchRows();
      // A live row carries no market standing (only a page read ranks the market): the shown one stays.
      rows[row.itemId] = row.market ? row : { ...row, market: held.market };
    } else {
      pendingNew++;
    }
  }
  for (const move of items.prices) {
    const row = rows[move.itemId];
    const before = move.previous ?? row?.price ?? null;
    const dir = before === null || move.price === before ? null : move.price > before ? 'up' : 'down';
    if (row) {
      touchRows();
      rows[move.itemId] = {
        ...row,
        price: move.price,
        lastMove: dir ?? row.lastMove,
        market: repriced(row.market, move.price),
      };
      if (dir) {
        if (moves === next.moves) moves = { ...moves };
        moves[move.itemId] = { dir, seq: batch.seq, at: nowMs };
      }
    }
    if (detail.id === move.itemId && detail.data) {
      const history = detail.data.priceHistory;
      detail = {
        ...detail,
        data: {
          ...detail.data,
          item: { ...detail.data.item, price: move.price },
          market: repriced(detail.data.market, move.price),
          priceHistory: [...history, { at: batch.at, price: move.price }],
        },
      };
    }
  }
  let faded = next.faded;
  for (const id of items.removed) {
    if (rows[id] && !removed[id]) {
      if (removed === next.removed) removed = { ...removed };
      removed[id] = true;
      faded++;
    }
    if (detail.id === id && detail.data) detail = { ...detail, data: { ...detail.data, onSale: false } };
  }
  next = { ...next, rows, moves, removed, detail, pendingNew, faded };
  if (batch.markets) next = withMarkets(next, batch.markets);
  if (items.invalidated) next = invalidate(next);
  return next;
}

/** Forget flashes applied before `cutoffMs` (bounded memory; a row scrolled back in does not replay them). */
export function sweepMoves(slice: CatalogSlice, cutoffMs: number): CatalogSlice {
  let changed = false;
  const moves: Record<number, PriceMove> = {};
  for (const [id, move] of Object.entries(slice.moves)) {
    if (move.at >= cutoffMs) moves[Number(id)] = move;
    else changed = true;
  }
  return changed ? { ...slice, moves } : slice;
}

/** Ids of rows on the given pages that are marked removed (for a soft refresh decision). */
export function removedOnScreen(slice: CatalogSlice, first: number, last: number): boolean {
  for (let i = Math.max(0, first); i <= last; i++) {
    const id = rowIdAt(slice, i);
    if (id !== undefined && slice.removed[id]) return true;
  }
  return false;
}

/** The selected item's row, wherever it is (loaded rows only). */
export function selectedRow(slice: Pick<CatalogSlice, 'rows' | 'selectedId'>): CatalogRow | undefined {
  return slice.selectedId === null ? undefined : slice.rows[slice.selectedId];
}

export function clampSelection(index: number, total: number | null): number {
  if (!total) return -1;
  return Math.max(0, Math.min(total - 1, index));
}
