/**
 * Hand-written windowing for a fixed-row-height list of up to millions of rows.
 * Browsers cap an element's height (~33.5M px in Chromium, less elsewhere), so past
 * MAX_SCROLL_PX the scroll range is compressed: the scrollbar moves through a shorter
 * virtual height and rows are placed relative to the mapped position.
 */
export const MAX_SCROLL_PX = 15_000_000;

export interface WindowInput {
  scrollTop: number;
  viewportHeight: number;
  total: number;
  rowHeight: number;
  overscan: number;
}

export interface RowWindow {
  /** First and last row indexes at least partly visible (last < first when empty). */
  first: number;
  last: number;
  /** The rows to render: visible plus overscan, clamped. */
  renderFirst: number;
  renderLast: number;
  /** Height of the scrollable content. */
  contentHeight: number;
  /** Add to `index * rowHeight` to get a row's top inside the content. */
  offset: number;
}

function scale(total: number, rowHeight: number, viewportHeight: number) {
  const real = total * rowHeight;
  const virtual = Math.min(real, MAX_SCROLL_PX);
  const realRange = Math.max(0, real - viewportHeight);
  const virtualRange = Math.max(0, virtual - viewportHeight);
  const ratio = virtualRange > 0 ? realRange / virtualRange : 1;
  return { real, virtual, realRange, ratio };
}

export function computeWindow({ scrollTop, viewportHeight, total, rowHeight, overscan }: WindowInput): RowWindow {
  const { virtual, realRange, ratio } = scale(total, rowHeight, viewportHeight);
  if (total <= 0) return { first: 0, last: -1, renderFirst: 0, renderLast: -1, contentHeight: 0, offset: 0 };
  const top = Math.max(0, scrollTop);
  const realTop = Math.min(realRange, top * ratio);
  const first = Math.min(total - 1, Math.floor(realTop / rowHeight));
  const last = Math.min(total - 1, Math.max(first, Math.ceil((realTop + viewportHeight) / rowHeight) - 1));
  return {
    first,
    last,
    renderFirst: Math.max(0, first - overscan),
    renderLast: Math.min(total - 1, last + overscan),
    contentHeight: virtual,
    offset: top - realTop,
  };
}

/**
 * The scrollTop that brings `index` fully into view, or null when it already is.
 * `align` 'nearest' scrolls the least; 'start' puts the row at the top.
 */
export function scrollTopToReveal(
  index: number,
  input: Omit<WindowInput, 'overscan'>,
  align: 'nearest' | 'start' = 'nearest',
): number | null {
  const { scrollTop, viewportHeight, total, rowHeight } = input;
  if (index < 0 || index >= total) return null;
  const { realRange, ratio } = scale(total, rowHeight, viewportHeight);
  const realTop = Math.min(realRange, Math.max(0, scrollTop) * ratio);
  const rowTop = index * rowHeight;
  const rowBottom = rowTop + rowHeight;
  let targetReal: number;
  if (align === 'start') targetReal = rowTop;
  else if (rowTop < realTop) targetReal = rowTop;
  else if (rowBottom > realTop + viewportHeight) targetReal = rowBottom - viewportHeight;
  else return null;
  targetReal = Math.min(realRange, Math.max(0, targetReal));
  return targetReal / ratio;
}

/** Rows per viewport, for PageUp/PageDown. */
export function rowsPerPage(viewportHeight: number, rowHeight: number): number {
  return Math.max(1, Math.floor(viewportHeight / rowHeight) - 1);
}
