import type { CatalogFilters, CatalogSort } from '../../lib/catalogQuery';
import {
  EMPTY_FILTERS,
  filtersForSort,
  nextSort,
  withFilterEdit,
  type CatalogSortColumn,
} from '../../lib/catalogQuery';
import type { CatalogQuery } from '../../../../shared/ipc/contract';
import { debounced } from '../../lib/debounce';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import {
  invalidate,
  markLoading,
  PAGE_SIZE,
  pageFailed,
  pageOf,
  pagesToFetch,
  receivePage,
  selectedRow,
  sweepMoves,
  withQuery,
  withSelection,
  withSelectionAt,
} from '../slices/catalog';
import { readWithBatches } from '../batchesSince';
import { getState, update } from '../store';
import { toast } from './toast';

const inFlight = new Set<string>();
const flightKey = (key: string, generation: number, index: number) => `${generation}|${index}|${key}`;

/** Make sure the pages holding rows first..last are loaded (or loading) for the current query. */
export function ensureRows(first: number, last: number): void {
  const slice = getState().catalog;
  const { key, generation } = slice;
  const wanted = pagesToFetch(slice, first, last, (p) => inFlight.has(flightKey(key, generation, p)));
  if (wanted.length === 0) return;
  update('catalog', (c) => markLoading(c, wanted));
  const center = pageOf(Math.max(0, Math.floor((first + Math.max(first, last)) / 2)));
  for (const index of wanted) void fetchPage(key, generation, index, center);
}

/** The current query's first page, asked for at start-up beside the snapshot (the grid then finds it loaded or on its way). */
export function prefetchFirstPage(): void {
  ensureRows(0, -1);
}

async function fetchPage(key: string, generation: number, index: number, centerPage: number): Promise<void> {
  const id = flightKey(key, generation, index);
  inFlight.add(id);
  const query = { ...(JSON.parse(key) as CatalogQuery), offset: index * PAGE_SIZE, limit: PAGE_SIZE };
  try {
    const { answer: page, since } = await readWithBatches(() => unwrap(api().catalog.query(query)));
    update('catalog', (c) => receivePage(c, { key, generation, index, page, centerPage }, since));
  } catch (error) {
    update('catalog', (c) => pageFailed(c, key, index, errorMessage(error)));
  } finally {
    inFlight.delete(id);
  }
}

/** Run the query the filter form now describes. */
export function applyFilters(): void {
  update('catalog', (c) => withQuery(c, c.filters, c.sort));
}

const applySoon = debounced(applyFilters, 120);

/** Edit the filter form; typing is debounced (~120 ms), toggles apply at once. */
export function editFilters(patch: Partial<CatalogFilters>, immediate = false): void {
  update('catalog', (c) => ({ ...c, filters: withFilterEdit(c.filters, patch) }));
  if (immediate) {
    applySoon.cancel();
    applyFilters();
  } else applySoon();
}

export function clearFilters(): void {
  applySoon.cancel();
  update('catalog', (c) => withQuery(c, EMPTY_FILTERS, c.sort));
}

export function setFilters(filters: CatalogFilters): void {
  applySoon.cancel();
  update('catalog', (c) => withQuery(c, filters, c.sort));
}

export function setSort(sort: CatalogSort): void {
  update('catalog', (c) => withQuery(c, c.filters, sort));
}

export function sortBy(column: CatalogSortColumn): void {
  update('catalog', (c) => {
    const sort = nextSort(c.sort, column);
    return withQuery(c, filtersForSort(c.filters, c.sort, sort), sort);
  });
}

/** Re-query what is on screen, keeping it visible until the answers arrive. */
export function softRefresh(): void {
  update('catalog', invalidate);
}

export const scheduleSoftRefresh = debounced(softRefresh, 900);

/**
 * The user scrolled: rows faded in place (sold) may now leave, since the rows move anyway.
 * Cheap enough for every scroll event (one field read).
 */
export function onGridScrolled(): void {
  if (getState().catalog.faded > 0) softRefresh();
}

export function sweepFlashes(): void {
  update('catalog', (c) => sweepMoves(c, Date.now() - 1500));
}

/** The oldest listing time of the cache (its first sync): ages at or before it are unknown. */
export async function loadAgeBaseline(): Promise<void> {
  try {
    const page = await unwrap(api().catalog.query({ sort: 'listedAt', direction: 'asc', offset: 0, limit: 1 }));
    const baseline = page.rows[0]?.listedAt ?? null;
    update('catalog', (c) => (c.baselineListedAt === baseline ? c : { ...c, baselineListedAt: baseline }));
  } catch {
    // Ages then show as they are; nothing else depends on it.
  }
}

export async function refreshCatalog(): Promise<void> {
  try {
    const result = await unwrap(api().catalog.refresh({}));
    if (result.started) toast('info', 'Catalog refresh started', result.reason);
    else toast('warn', 'Catalog refresh not started', result.reason);
  } catch (error) {
    toast('error', 'Catalog refresh failed', errorMessage(error));
  }
}

// ---- selection and detail

/** An open detail panel follows the selection. */
function detailFollowsSelection(): void {
  const { catalog } = getState();
  if (catalog.detail.id === null || catalog.selectedId === null || catalog.selectedId === catalog.detail.id) return;
  openDetail(catalog.selectedId, true);
}

/** Select the item a row shows (a click): the selection is the item, wherever it moves later. */
export function selectItem(itemId: number, index: number): void {
  update('catalog', (c) => withSelection(c, itemId, index));
  detailFollowsSelection();
}

/** Select by position (keyboard): at once when loaded, else when its page arrives. */
export function select(index: number): void {
  update('catalog', (c) => withSelectionAt(c, index));
  detailFollowsSelection();
}

export function moveSelection(delta: number | 'first' | 'last'): void {
  const { selectedIndex, anchorIndex, total } = getState().catalog;
  if (!total) return;
  const from = selectedIndex >= 0 ? selectedIndex : anchorIndex;
  if (delta === 'first') select(0);
  else if (delta === 'last') select(total - 1);
  else select(from < 0 ? 0 : from + delta);
}

let detailTimer: ReturnType<typeof setTimeout> | null = null;

/** Show an item's detail; `soon` waits a moment (arrowing through rows). */
export function openDetail(itemId: number, soon = false): void {
  update('catalog', (c) =>
    c.detail.id === itemId && c.detail.status !== 'error'
      ? c
      : {
          ...c,
          detail: {
            id: itemId,
            status: 'loading',
            data: c.detail.data?.item.itemId === itemId ? c.detail.data : null,
            error: null,
          },
        },
  );
  if (detailTimer !== null) clearTimeout(detailTimer);
  detailTimer = setTimeout(() => void loadDetail(itemId), soon ? 120 : 0);
}

export function openSelectedDetail(): void {
  const row = selectedRow(getState().catalog);
  if (row) openDetail(row.itemId);
}

export function closeDetail(): void {
  update('catalog', (c) =>
    c.detail.id === null ? c : { ...c, detail: { id: null, status: 'idle', data: null, error: null } },
  );
}

export async function loadDetail(itemId: number): Promise<void> {
  try {
    const { answer: data, since } = await readWithBatches(() => unwrap(api().catalog.item({ itemId })));
    update('catalog', (c) =>
      c.detail.id !== itemId
        ? c
        : { ...c, detail: { id: itemId, status: data ? 'ready' : 'missing', data, error: null } },
    );
    // The item changed while it was read: the answer may be from before (its price history too), so read it again.
    const touched = since.some(
      ({ items }) =>
        [...(items?.upserted ?? []), ...(items?.prices ?? [])].some((change) => change.itemId === itemId) ||
        items?.removed.includes(itemId),
    );
    if (touched) scheduleDetailReload();
  } catch (error) {
    update('catalog', (c) =>
      c.detail.id !== itemId ? c : { ...c, detail: { ...c.detail, status: 'error', error: errorMessage(error) } },
    );
  }
}

export const scheduleDetailReload = debounced(() => {
  const id = getState().catalog.detail.id;
  if (id !== null) void loadDetail(id);
}, 400);
