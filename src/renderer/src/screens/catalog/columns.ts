import type { CatalogRow } from '../../../../shared/ipc/models';
import type { CatalogSortColumn } from '../../lib/catalogQuery';

export const ROW_HEIGHT = 36;
export const HEADER_HEIGHT = 32;
export const OVERSCAN = 10;

export interface Column {
  id: 'rarity' | 'name' | 'phase' | 'float' | 'seed' | 'stickers' | 'keychains' | 'price' | 'age' | 'discount' | 'rank';
  /** Accessible name of the header (and its sort button). */
  label: string;
  /** Visible header text when shorter than the label. */
  short?: string;
  /** null: the engine cannot sort by it (yet). */
  sort: CatalogSortColumn | null;
  /** Tooltip of a header that is not a sort button. */
  hint?: string;
  width: string;
  /** Its width in the narrow grid, when less than `width`. */
  narrowWidth?: string;
  align?: 'right';
}

export const COLUMNS: readonly Column[] = [
  { id: 'rarity', label: 'Rarity', short: '', sort: 'rarity', width: '58px' },
  { id: 'name', label: 'Name', sort: 'name', width: 'minmax(170px, 2.3fr)', narrowWidth: 'minmax(150px, 2.3fr)' },
  { id: 'phase', label: 'Phase', sort: 'phase', width: 'minmax(90px, 0.6fr)' },
  { id: 'float', label: 'Float', sort: 'float', width: '86px', align: 'right' },
  { id: 'seed', label: 'Paint seed', short: 'Seed', sort: 'paintSeed', width: '56px', align: 'right' },
  {
    id: 'stickers',
    label: 'Stickers',
    sort: 'stickers',
    width: 'minmax(112px, 1.25fr)',
    narrowWidth: 'minmax(100px, 1.25fr)',
  },
  {
    id: 'keychains',
    label: 'Charms (keychains)',
    short: 'Charms',
    sort: 'keychains',
    hint: 'Keychains, charms and sticker slabs',
    width: 'minmax(80px, 0.8fr)',
  },
  { id: 'price', label: 'Price', sort: 'price', width: '102px', align: 'right' },
  { id: 'age', label: 'Age', sort: 'listedAt', width: '52px', align: 'right' },
  // After age: the columns before keep their places (scripts and tests address cells by position).
  { id: 'discount', label: 'Discount', sort: 'discount', width: '92px', align: 'right' },
  // 'Rank', not 'Float rank': a header named by a part of another's name would be ambiguous to find by name.
  { id: 'rank', label: 'Rank', sort: 'floatRank', width: '92px', align: 'right' },
];

export const GRID_TEMPLATE = COLUMNS.map((c) => c.width).join(' ');

/**
 * Columns folded away (0 wide, still in the accessibility tree) when the grid is narrow, e.g. beside the detail
 * panel (which shows their values), unless the grid is sorted by one (its header shows the sort); narrower still (a
 * laptop beside the panel), the age too. The discount stays: what a deal hunter reads beside the detail.
 */
export const FOLDABLE: readonly Column['id'][] = ['seed', 'keychains', 'rank'];
export const FOLDABLE_NARROWEST: readonly Column['id'][] = [...FOLDABLE, 'age'];

/** Whether a row shows something in a column that folds when no row does (see emptyColumns). */
const FILLED: Partial<Record<Column['id'], (row: CatalogRow) => boolean>> = {
  phase: (row) => row.phase !== null,
  float: (row) => row.float !== null,
  stickers: (row) => row.stickerCount > 0,
};

/**
 * The columns among phase, float and stickers that none of `rows` fills, so a narrow grid gives
 * their room to the name. The column sorted by never folds (its header shows the sort), and
 * without rows nothing does.
 */
export function emptyColumns(rows: Iterable<CatalogRow>, sortedBy: Column['id'] | null): Column['id'][] {
  const open = new Set(Object.keys(FILLED) as Column['id'][]);
  if (sortedBy !== null) open.delete(sortedBy);
  let any = false;
  for (const row of rows) {
    any = true;
    for (const id of open) if (FILLED[id]?.(row)) open.delete(id);
    if (open.size === 0) break;
  }
  return any ? COLUMNS.filter((c) => open.has(c.id)).map((c) => c.id) : [];
}

/** The narrow grid's columns: the `folded` ones (but the one sorted by) and the empty ones 0 wide. */
export function narrowTemplate(
  empty: readonly Column['id'][],
  sortedBy: Column['id'] | null = null,
  folded = FOLDABLE,
): string {
  return COLUMNS.map((c) =>
    (folded.includes(c.id) && c.id !== sortedBy) || empty.includes(c.id) ? '0px' : (c.narrowWidth ?? c.width),
  ).join(' ');
}
