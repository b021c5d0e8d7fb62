import { describe, expect, it } from 'vitest';
import {
  applyCatalogBatch,
  type CatalogSlice,
  indexOfId,
  initialCatalog,
  invalidate,
  markLoading,
  MAX_PAGES,
  PAGE_SIZE,
  pagesToFetch,
  receivePage,
  removedOnScreen,
  rowAt,
  rowIdAt,
  selectedRow,
  sweepMoves,
  withQuery,
  withSelection,
  withSelectionAt,
} from '../../src/renderer/src/state/slices/catalog';
import {
  activeFilterCount,
  catalogQueryKey,
  DEFAULT_SORT,
  EMPTY_FILTERS,
  filterProblems,
  nextSort,
  toCatalogQuery,
} from '../../src/renderer/src/lib/catalogQuery';
import { batch, items, page, row } from './fixtures';

const none = () => false;

function loaded(total = 500_000, pages: number[] = [0]): CatalogSlice {
  let s = initialCatalog;
  for (const p of pages) {
    s = markLoading(s, [p]);
    s = receivePage(s, {
      key: s.key,
      generation: s.generation,
      index: p,
      page: page(p * PAGE_SIZE + 1, PAGE_SIZE, total),
      centerPage: p,
    });
  }
  return s;
}

describe('catalog page cache', () => {
  it('asks for the first page before the total is known', () => {
    expect(pagesToFetch(initialCatalog, 0, -1, none)).toEqual([0]);
    // Asked already (the boot's prefetch): not again while it is under way.
    expect(pagesToFetch(initialCatalog, 0, -1, (p) => p === 0)).toEqual([]);
  });

  it('fetches only missing or stale pages of the visible range', () => {
    const s = loaded(500_000, [0]);
    expect(pagesToFetch(s, 0, 99, none)).toEqual([]);
    expect(pagesToFetch(s, 90, 130, none)).toEqual([1]);
    expect(pagesToFetch(s, 90, 130, (p) => p === 1)).toEqual([]);
    const stale = { ...s, generation: s.generation + 1 };
    expect(pagesToFetch(stale, 0, 99, none)).toEqual([0]);
  });

  it('maps indexes to rows through pages and sets the total', () => {
    const s = loaded(500_000, [0, 3]);
    expect(s.total).toBe(500_000);
    expect(rowIdAt(s, 0)).toBe(1);
    expect(rowIdAt(s, 305)).toBe(306);
    expect(rowIdAt(s, 150)).toBeUndefined();
    expect(rowAt(s, 99)?.itemId).toBe(100);
  });

  it('keeps stale ids visible while a page reloads', () => {
    const s = markLoading({ ...loaded(), generation: 5 }, [0]);
    expect(s.pages[0]?.status).toBe('loading');
    expect(rowIdAt(s, 0)).toBe(1);
  });

  it('ignores answers for an old query or an older generation', () => {
    const s = loaded();
    const other = receivePage(s, {
      key: 'other',
      generation: s.generation,
      index: 1,
      page: page(101, 100, 10),
      centerPage: 0,
    });
    expect(other).toBe(s);
    const newer = { ...s, generation: s.generation + 2 };
    const refreshed = receivePage(newer, {
      key: s.key,
      generation: newer.generation,
      index: 0,
      page: page(1, 100, 500_000),
      centerPage: 0,
    });
    const late = receivePage(refreshed, {
      key: s.key,
      generation: s.generation,
      index: 0,
      page: page(9001, 100, 500_000),
      centerPage: 0,
    });
    expect(rowIdAt(late, 0)).toBe(1);
  });

  it('never holds more than MAX_PAGES pages, nor rows they do not reference', () => {
    const many = Array.from({ length: MAX_PAGES + 10 }, (_, i) => i);
    const s = loaded(500_000, many);
    expect(Object.keys(s.pages).length).toBe(MAX_PAGES);
    expect(Object.keys(s.rows).length).toBe(MAX_PAGES * PAGE_SIZE);
    // The pages nearest the last viewed one stay.
    expect(s.pages[MAX_PAGES + 9]).toBeDefined();
    expect(s.pages[0]).toBeUndefined();
  });

  it('drops pages past a shrunken total', () => {
    let s = loaded(1000, [0, 5]);
    s = receivePage(s, { key: s.key, generation: s.generation, index: 0, page: page(1, 100, 150), centerPage: 0 });
    expect(s.pages[5]).toBeUndefined();
    expect(s.total).toBe(150);
  });

  it('a new query starts empty; the same query keeps its pages', () => {
    const s = loaded();
    const same = withQuery(s, { ...EMPTY_FILTERS }, DEFAULT_SORT);
    expect(same.pages).toBe(s.pages);
    const next = withQuery(s, { ...EMPTY_FILTERS, search: 'karambit' }, DEFAULT_SORT);
    expect(next.pages).toEqual({});
    expect(next.total).toBeNull();
    expect(next.key).not.toBe(s.key);
    expect(next.selectedIndex).toBe(-1);
  });
});

describe('live catalog updates', () => {
  it('updates prices in place with a flash direction, without reordering', () => {
    const s = loaded();
    const next = applyCatalogBatch(
      s,
      batch(7, {
        items: items({
          prices: [
            { itemId: 5, price: 1200, previous: 1000 },
            { itemId: 6, price: 900, previous: null },
          ],
        }),
      }),
      1000,
    );
    expect(next.rows[5]?.price).toBe(1200);
    expect(next.rows[5]?.lastMove).toBe('up');
    expect(next.moves[5]).toEqual({ dir: 'up', seq: 7, at: 1000 });
    expect(next.moves[6]?.dir).toBe('down');
    expect(next.pages).toBe(s.pages);
  });

  it('ignores prices of rows it does not hold, counts unseen upserts', () => {
    const s = loaded();
    const next = applyCatalogBatch(
      s,
      batch(2, { items: items({ prices: [{ itemId: 999_999, price: 1, previous: 2 }], upserted: [row(424_242)] }) }),
      0,
    );
    expect(next.rows[999_999]).toBeUndefined();
    expect(next.moves[999_999]).toBeUndefined();
    expect(next.pendingNew).toBe(1);
  });

  it('replaces upserted rows it holds', () => {
    const s = loaded();
    const next = applyCatalogBatch(s, batch(2, { items: items({ upserted: [row(3, 4242, { float: 0.01 })] }) }), 0);
    expect(next.rows[3]?.float).toBe(0.01);
    expect(next.pendingNew).toBe(0);
  });

  it('keeps the market standing it shows when a live row brings none, and moves the discount with the price', () => {
    const s = loaded();
    const shown = s.rows[3]?.market;
    expect(shown).toEqual({ reference: 1000, listings: 5, plainListings: 5, discount: 0, floatRank: 1 });
    const upserted = applyCatalogBatch(
      s,
      batch(2, { items: items({ upserted: [row(3, 1000, { float: 0.01, market: null })] }) }),
      0,
    );
    expect(upserted.rows[3]?.float).toBe(0.01);
    expect(upserted.rows[3]?.market).toEqual(shown);
    // A live price of 800 against the shown reference of 1000: 20 % under it until the next page read.
    const moved = applyCatalogBatch(
      upserted,
      batch(3, { items: items({ prices: [{ itemId: 3, price: 800, previous: 1000 }] }) }),
      0,
    );
    expect(moved.rows[3]?.market).toEqual({
      reference: 1000,
      listings: 5,
      plainListings: 5,
      discount: 20,
      floatRank: 1,
    });
    // A page read brings the engine's own numbers.
    const fresh = row(3, 800, {
      market: { reference: 950, listings: 6, plainListings: 6, discount: 15.78, floatRank: 2 },
    });
    const read = receivePage(
      { ...moved, generation: moved.generation + 1 },
      {
        key: moved.key,
        generation: moved.generation + 1,
        index: 0,
        page: { rows: [fresh], total: 500_000, offset: 0, limit: 100 },
        centerPage: 0,
      },
    );
    expect(read.rows[3]?.market).toEqual(fresh.market);
  });

  it("moves the detail panel's discount with a live price", () => {
    const market = {
      reference: 2000,
      listings: 9,
      plainListings: 7,
      discount: 0,
      floatRank: 4,
      leftSale24h: 2,
      median7d: 2100,
      observed7d: 30,
    };
    const s = {
      ...loaded(),
      detail: {
        id: 9,
        status: 'ready' as const,
        data: { item: { itemId: 9, price: 2000 } as never, priceHistory: [], onSale: true, market },
        error: null,
      },
    };
    const next = applyCatalogBatch(
      s,
      batch(3, { items: items({ prices: [{ itemId: 9, price: 2500, previous: 2000 }] }) }),
      0,
    );
    expect(next.detail.data?.market).toEqual({ ...market, discount: -25 });
  });

  it('moves the reference and discount of every held row and the detail of a name whose market moved, and no other', () => {
    const s = loaded();
    const name = 'Tec-9 | Zzyzx Glow (Field-Tested)';
    // Rows 3 and 100 share a name; row 4 (its own name) keeps its numbers.
    const rows: CatalogSlice['rows'] = {
      ...s.rows,
      3: row(3, 1000, { market_hash_name: name }),
      100: row(100, 1200, { market_hash_name: name }),
    };
    const market = {
      reference: 1000,
      listings: 5,
      plainListings: 5,
      discount: 0,
      floatRank: 4,
      leftSale24h: 2,
      median7d: 1000,
      observed7d: 30,
    };
    const held = {
      ...s,
      rows,
      detail: {
        id: 3,
        status: 'ready' as const,
        data: {
          item: { itemId: 3, market_hash_name: name, phase: null, price: 1000 } as never,
          priceHistory: [],
          onSale: true,
          market,
        },
        error: null,
      },
    };
    const next = applyCatalogBatch(
      held,
      batch(4, { markets: [{ name, phase: null, reference: 800, listings: 6, plainListings: 4 }] }),
      0,
    );
    expect(next.rows[3]?.market).toEqual({
      reference: 800,
      listings: 6,
      plainListings: 4,
      discount: -25,
      floatRank: 1,
    });
    expect(next.rows[100]?.market).toEqual({
      reference: 800,
      listings: 6,
      plainListings: 4,
      discount: -50,
      floatRank: 1,
    });
    expect(next.rows[4]).toBe(held.rows[4]);
    expect(next.detail.data?.market).toEqual({
      ...market,
      reference: 800,
      listings: 6,
      plainListings: 4,
      discount: -25,
    });
    // The same name in another phase is another market (nothing on screen changes); a name none of whose listings
    // is plain has no reference.
    expect(
      applyCatalogBatch(
        held,
        batch(5, { markets: [{ name, phase: 'Ruby', reference: 9, listings: 1, plainListings: 1 }] }),
        0,
      ),
    ).toBe(held);
    const bare = applyCatalogBatch(
      held,
      batch(6, { markets: [{ name, phase: null, reference: null, listings: 6, plainListings: 0 }] }),
      0,
    );
    expect(bare.rows[3]?.market).toMatchObject({ reference: null, discount: null, plainListings: 0 });
  });

  it('marks removed rows (they fade) and the detail as off sale', () => {
    const s = {
      ...loaded(),
      detail: {
        id: 4,
        status: 'ready' as const,
        data: { item: {} as never, priceHistory: [], onSale: true, market: null },
        error: null,
      },
    };
    const next = applyCatalogBatch(s, batch(3, { items: items({ removed: [4, 777_777] }) }), 0);
    expect(next.removed).toEqual({ 4: true });
    expect(next.detail.data?.onSale).toBe(false);
    expect(removedOnScreen(next, 0, 10)).toBe(true);
    expect(removedOnScreen(next, 10, 20)).toBe(false);
  });

  it('an answered row is no longer marked removed', () => {
    const s = applyCatalogBatch(loaded(), batch(3, { items: items({ removed: [4] }) }), 0);
    const refreshed = receivePage(
      { ...s, generation: s.generation + 1 },
      { key: s.key, generation: s.generation + 1, index: 0, page: page(1, 100, 500_000), centerPage: 0 },
    );
    expect(refreshed.removed).toEqual({});
  });

  it('appends detail price history on a move', () => {
    const item = { itemId: 9, price: 1000 } as never;
    const s = {
      ...loaded(),
      detail: {
        id: 9,
        status: 'ready' as const,
        data: { item, priceHistory: [{ at: 'x', price: 1000 }], onSale: true, market: null },
        error: null,
      },
    };
    const next = applyCatalogBatch(
      s,
      batch(3, { items: items({ prices: [{ itemId: 9, price: 1100, previous: 1000 }] }) }),
      0,
    );
    expect(next.detail.data?.item.price).toBe(1100);
    expect(next.detail.data?.priceHistory).toHaveLength(2);
  });

  it('invalidation bumps the generation (visible pages refetch) and keeps rows', () => {
    const s = loaded();
    const next = applyCatalogBatch(s, batch(4, { items: items({ invalidated: true }) }), 0);
    expect(next.generation).toBe(s.generation + 1);
    expect(rowIdAt(next, 0)).toBe(1);
    expect(pagesToFetch(next, 0, 50, none)).toEqual([0]);
  });

  it('takes catalog info and sweeps old flashes', () => {
    const info = { totalItems: 5, totalValue: 500, lastUpdate: null, syncedAt: null };
    const s = applyCatalogBatch(
      loaded(),
      batch(1, { catalog: info, items: items({ prices: [{ itemId: 1, price: 5, previous: 4 }] }) }),
      1000,
    );
    expect(s.info).toBe(info);
    expect(sweepMoves(s, 500)).toBe(s);
    expect(sweepMoves(s, 1500).moves).toEqual({});
  });
});

describe('catalog query', () => {
  it('turns the typed form into an engine query, leaving out what does not parse', () => {
    const q = toCatalogQuery(
      {
        ...EMPTY_FILTERS,
        search: ' karambit ',
        priceMin: '12.5',
        priceMax: 'abc',
        floatMax: '0.07',
        rarityColors: ['#eb4b4b', '#4b69ff'],
        statTrak: 'yes',
        hasStickers: 'no',
        phase: 'Ruby',
      },
      { column: 'float', direction: 'desc' },
    );
    expect(q).toMatchObject({
      search: 'karambit',
      priceMin: 1250,
      priceMax: null,
      floatMin: null,
      floatMax: 0.07,
      rarityColors: ['#4b69ff', '#eb4b4b'],
      statTrak: true,
      souvenir: null,
      hasStickers: false,
      phase: 'Ruby',
      sort: 'float',
      direction: 'desc',
    });
    expect(filterProblems({ ...EMPTY_FILTERS, priceMax: 'abc', floatMin: '2' })).toEqual({
      priceMax: expect.any(String),
      floatMin: expect.any(String),
    });
  });

  it('keys queries by content, not by rarity order', () => {
    const a = catalogQueryKey({ ...EMPTY_FILTERS, rarityColors: ['#eb4b4b', '#4b69ff'] }, DEFAULT_SORT);
    const b = catalogQueryKey({ ...EMPTY_FILTERS, rarityColors: ['#4b69ff', '#eb4b4b'] }, DEFAULT_SORT);
    expect(a).toBe(b);
  });

  it('counts active filters and cycles sort direction', () => {
    expect(activeFilterCount(EMPTY_FILTERS)).toBe(0);
    expect(activeFilterCount({ ...EMPTY_FILTERS, priceMin: '1', priceMax: '2', souvenir: 'no' })).toBe(2);
    expect(nextSort({ column: 'price', direction: 'asc' }, 'price')).toEqual({ column: 'price', direction: 'desc' });
    expect(nextSort({ column: 'price', direction: 'desc' }, 'name')).toEqual({ column: 'name', direction: 'asc' });
    expect(nextSort({ column: 'price', direction: 'asc' }, 'listedAt')).toEqual({
      column: 'listedAt',
      direction: 'desc',
    });
  });
});

describe('selection follows the item, not the row position', () => {
  /** Page 0 answered again without `gone` (sold and dropped by a re-query): every row below moves up one. */
  function withoutItem(s: CatalogSlice, gone: number): CatalogSlice {
    const next = invalidate(s);
    const rows = page(1, PAGE_SIZE + 1, 500_000)
      .rows.filter((r) => r.itemId !== gone)
      .slice(0, PAGE_SIZE);
    return receivePage(next, {
      key: next.key,
      generation: next.generation,
      index: 0,
      page: { rows, total: 499_999, offset: 0, limit: PAGE_SIZE },
      centerPage: 0,
    });
  }

  it('keeps the selected item when rows above it leave, and moves its position with it', () => {
    let s = withSelection(loaded(), 11, 10);
    expect(selectedRow(s)?.itemId).toBe(11);
    s = withoutItem(s, 4);
    expect(rowIdAt(s, 10)).toBe(12); // another item now sits at the old position…
    expect(s.selectedId).toBe(11); // …the selection stayed on the item
    expect(s.selectedIndex).toBe(9);
    expect(selectedRow(s)?.itemId).toBe(11);
  });

  it('an item that left the loaded rows keeps the selection (unplaced) and its last position as the anchor', () => {
    let s = withSelection(loaded(), 11, 10);
    s = withoutItem(s, 11);
    expect(s.selectedId).toBe(11);
    expect(s.selectedIndex).toBe(-1);
    expect(s.anchorIndex).toBe(10);
  });

  it('selects a position whose page is not loaded yet once the page arrives', () => {
    let s = withSelectionAt(loaded(), 450);
    expect(s.selectedId).toBeNull();
    expect(s.selectedIndex).toBe(450);
    expect(s.revealSeq).toBe(1);
    s = markLoading(s, [4]);
    s = receivePage(s, {
      key: s.key,
      generation: s.generation,
      index: 4,
      page: page(401, PAGE_SIZE, 500_000),
      centerPage: 4,
    });
    expect(s.selectedId).toBe(451);
    expect(s.selectedIndex).toBe(450);
  });

  it('finds an id anywhere in the cached pages, the hint first', () => {
    const s = loaded(500_000, [0, 3]);
    expect(indexOfId(s, 306, 305)).toBe(305);
    expect(indexOfId(s, 306)).toBe(305);
    expect(indexOfId(s, 5)).toBe(4);
    expect(indexOfId(s, 999_999)).toBe(-1);
  });

  it('keeps the selected row through eviction', () => {
    let s = withSelection(loaded(500_000, [0]), 3, 2);
    for (let p = 1; p < MAX_PAGES + 5; p++) {
      s = markLoading(s, [p]);
      s = receivePage(s, {
        key: s.key,
        generation: s.generation,
        index: p,
        page: page(p * PAGE_SIZE + 1, PAGE_SIZE, 500_000),
        centerPage: p,
      });
    }
    expect(s.pages[0]).toBeUndefined();
    expect(selectedRow(s)?.itemId).toBe(3);
    expect(s.selectedIndex).toBe(-1);
  });

  it('sold rows fade in place: no re-query, counted until the next one', () => {
    const s = loaded();
    const next = applyCatalogBatch(s, batch(3, { items: items({ removed: [4, 5] }) }), 0);
    expect(next.pages).toBe(s.pages);
    expect(next.generation).toBe(s.generation);
    expect(next.faded).toBe(2);
    expect(rowIdAt(next, 3)).toBe(4);
    expect(invalidate(next).faded).toBe(0);
  });
});
