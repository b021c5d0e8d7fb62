import { type CSSProperties, useEffect, useRef, useState } from 'react';
import { EmptyState } from '../../components/EmptyState';
import { activeFilterCount } from '../../lib/catalogQuery';
import { formatInt } from '../../lib/format';
import { computeWindow, scrollTopToReveal } from '../../lib/virtual';
import { clearFilters, ensureRows, onGridScrolled, sortBy } from '../../state/actions/catalog';
import type { CatalogRow } from '../../../../shared/ipc/models';
import type { CatalogSortColumn } from '../../lib/catalogQuery';
import type { CatalogSlice } from '../../state/slices/catalog';
import { useStore } from '../../state/store';
import {
  type Column,
  COLUMNS,
  emptyColumns,
  FOLDABLE_NARROWEST,
  GRID_TEMPLATE,
  HEADER_HEIGHT,
  narrowTemplate,
  OVERSCAN,
  ROW_HEIGHT,
} from './columns';
import { GridRow, rowDomId } from './GridRow';
import { retryPage } from './retry';

function* loadedRows(catalog: Pick<CatalogSlice, 'pages' | 'rows'>): Generator<CatalogRow> {
  for (const page of Object.values(catalog.pages)) {
    for (const id of page.ids) {
      const row = catalog.rows[id];
      if (row) yield row;
    }
  }
}

const columnSortedBy = (column: CatalogSortColumn) => COLUMNS.find((c) => c.sort === column)?.id ?? null;

/**
 * The columns folded on a narrow grid because no loaded row fills them, as "phase stickers"; while a
 * query's first page loads, the last answer holds (no columns opening and closing at each keystroke).
 */
function useEmptyColumns(): string {
  const now = useStore((s) =>
    s.catalog.total === null
      ? null
      : emptyColumns(loadedRows(s.catalog), columnSortedBy(s.catalog.sort.column)).join(' '),
  );
  const [shown, setShown] = useState('');
  if (now !== null && now !== shown) setShown(now);
  return now ?? shown;
}

/** Viewport metrics the keyboard handlers need (PageUp/PageDown). */
export const gridMetrics = { rowsPerPage: 15 };

function SortHeader() {
  const sort = useStore((s) => s.catalog.sort);
  return (
    <div role="row" aria-rowindex={1} className="grid-head" style={{ height: HEADER_HEIGHT }}>
      {COLUMNS.map((c) => {
        const active = c.sort !== null && sort.column === c.sort;
        const ariaSort = active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none';
        return (
          <div
            role="columnheader"
            key={c.id}
            aria-sort={c.sort ? ariaSort : undefined}
            // Named on the header itself: a plain span's text is not announced, and a folded column's button is hidden.
            aria-label={c.label}
            title={c.sort ? undefined : c.hint}
            className={`head-cell col-${c.id} ${c.align ?? ''}`}
          >
            {c.sort ? (
              <button
                type="button"
                className={`sort-btn ${active ? 'active' : ''}`}
                aria-label={c.label}
                title={`Sort by ${c.label.toLowerCase()}`}
                onClick={() => c.sort && sortBy(c.sort)}
              >
                <span>{c.short ?? c.label}</span>
                <span className="sort-mark" aria-hidden="true">
                  {active ? (sort.direction === 'asc' ? '▲' : '▼') : ''}
                </span>
              </button>
            ) : (
              <span className="head-text">{c.short ?? c.label}</span>
            )}
          </div>
        );
      })}
    </div>
  );
}

function GridMessage() {
  const total = useStore((s) => s.catalog.total);
  const firstPage = useStore((s) => s.catalog.pages[0]);
  const filters = useStore((s) => s.catalog.filters);
  const info = useStore((s) => s.catalog.info);
  const syncing = useStore((s) => s.conn.progress.some((p) => p.kind === 'catalog-sync'));
  const filtered = activeFilterCount(filters) > 0 || filters.search.trim() !== '';
  if (total === null && firstPage?.status === 'error') {
    return (
      <EmptyState
        title="Could not load the catalog"
        tone="error"
        action={
          <button type="button" className="btn" onClick={() => retryPage(0)}>
            Retry
          </button>
        }
      >
        {firstPage.error}
      </EmptyState>
    );
  }
  if (total === null) return null;
  if (total > 0) return null;
  if (filtered) {
    return (
      <EmptyState
        title="No items match these filters"
        action={
          <button type="button" className="btn" onClick={clearFilters}>
            Clear filters
          </button>
        }
      >
        {formatInt(info.totalItems)} items are on sale; widen the price or float range, or search for less.
      </EmptyState>
    );
  }
  return (
    <EmptyState
      title={syncing ? 'Syncing the catalog…' : 'The catalog is empty'}
      tone={syncing ? 'loading' : 'neutral'}
    >
      {syncing
        ? 'Items appear as soon as the first pages are stored.'
        : 'No items are on sale yet. Check the connection in Settings, or press Refresh.'}
    </EmptyState>
  );
}

/**
 * The virtualized catalog: fixed row height, only visible rows + overscan in the
 * DOM, rows paged from the engine on demand. The scroll height comes from the
 * query's total; nothing here ever holds the whole catalog.
 */
export function CatalogGrid() {
  const total = useStore((s) => s.catalog.total);
  const key = useStore((s) => s.catalog.key);
  const generation = useStore((s) => s.catalog.generation);
  const selectedIndex = useStore((s) => (s.catalog.selectedId === null ? -1 : s.catalog.selectedIndex));
  const revealSeq = useStore((s) => s.catalog.revealSeq);
  const emptyIds = useEmptyColumns().split(' ').filter(Boolean) as Column['id'][];
  const sortedId = useStore((s) => columnSortedBy(s.catalog.sort.column));
  const scrollRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const metrics = useRef({ total: 0, viewport: 600 });

  useEffect(() => {
    metrics.current = { total: total ?? 0, viewport };
    gridMetrics.rowsPerPage = Math.max(1, Math.floor(viewport / ROW_HEIGHT) - 1);
  });

  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setViewport(Math.max(ROW_HEIGHT, el.clientHeight - HEADER_HEIGHT)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // A new query starts at the top.
  useEffect(() => {
    const el = scrollRef.current;
    if (el) el.scrollTop = 0;
  }, [key]);

  const win = computeWindow({
    scrollTop,
    viewportHeight: viewport,
    total: total ?? 0,
    rowHeight: ROW_HEIGHT,
    overscan: OVERSCAN,
  });

  // Load the pages of what is (nearly) visible; wait a beat while the scrollbar is dragged fast, but
  // not for a query's first page (start-up, a new filter): nothing is on screen yet.
  const firstPage = total === null;
  useEffect(() => {
    const timer = setTimeout(() => ensureRows(win.renderFirst, win.renderLast), firstPage ? 0 : 30);
    return () => clearTimeout(timer);
  }, [key, generation, win.renderFirst, win.renderLast, firstPage]);

  // Keyboard selection keeps the selected row in view (only keyboard moves: a row that
  // moved because the list changed never drags the viewport after it).
  useEffect(() => {
    const el = scrollRef.current;
    const index = useStore.getState().catalog.anchorIndex;
    if (!el || revealSeq === 0 || index < 0) return;
    const { total: t, viewport: vp } = metrics.current;
    const target = scrollTopToReveal(index, {
      scrollTop: el.scrollTop,
      viewportHeight: vp,
      total: t,
      rowHeight: ROW_HEIGHT,
    });
    if (target !== null) el.scrollTop = target;
  }, [revealSeq]);

  // Keyed by place in a ring at least as long as the window, not by index: a row that scrolls out
  // hands its DOM to the one that scrolls in, as a hand-written virtual list does, instead of ~40
  // rows unmounted and mounted anew on each frame of a fast drag. A row kept in view keeps its key.
  const ring = Math.ceil(viewport / ROW_HEIGHT) + 2 + 2 * OVERSCAN;
  const rows = [];
  for (let i = win.renderFirst; i <= win.renderLast; i++) {
    rows.push(<GridRow key={i % ring} index={i} top={i * ROW_HEIGHT} />);
  }

  return (
    <div className="grid-wrap">
      <div
        ref={scrollRef}
        role="grid"
        aria-label="Catalog"
        aria-rowcount={total === null ? -1 : total + 1}
        aria-colcount={COLUMNS.length}
        aria-busy={total === null}
        aria-activedescendant={
          selectedIndex >= win.renderFirst && selectedIndex <= win.renderLast ? rowDomId(selectedIndex) : undefined
        }
        tabIndex={0}
        className={[
          'grid-scroll',
          ...emptyIds.map((id) => `empty-${id}`),
          ...(sortedId ? [`sorted-${sortedId}`] : []),
        ].join(' ')}
        style={
          {
            '--cols': GRID_TEMPLATE,
            '--cols-narrow': narrowTemplate(emptyIds, sortedId),
            '--cols-narrowest': narrowTemplate(emptyIds, sortedId, FOLDABLE_NARROWEST),
          } as CSSProperties
        }
        onScroll={(e) => {
          setScrollTop(e.currentTarget.scrollTop);
          onGridScrolled();
        }}
      >
        <SortHeader />
        <div
          className="grid-body"
          style={{ height: Math.max(win.contentHeight, total === null ? ROW_HEIGHT * 12 : 0) }}
        >
          <div className="grid-rows" style={{ transform: win.offset ? `translateY(${win.offset}px)` : undefined }}>
            {total === null
              ? Array.from({ length: 12 }, (_, i) => <GridRow key={`s${i}`} index={-1 - i} top={i * ROW_HEIGHT} />)
              : rows}
          </div>
        </div>
      </div>
      <GridMessage />
    </div>
  );
}
