/**
 * The deal-finding filters' shared pieces (catalog queries, saved searches, the UI): number lists pasted as
 * text (paint seeds from a guide, charm patterns) and the wear bands. No node, no DOM.
 */

/** An inclusive range of whole numbers. */
export type NumberRange = readonly [min: number, max: number];

/** Paint seeds run 0 to 999 (the API's range); charm patterns up to 100,000. */
export const SEED_MAX = 999;
export const CHARM_PATTERN_MAX = 100_000;
/** The largest "at least N of its name on sale" a filter takes. */
export const LISTINGS_MIN_MAX = 100_000;
/** A pasted list holds at most this many entries (ranges count once). */
export const MAX_LIST_ENTRIES = 500;

export type ParsedNumberList = { ok: true; ranges: NumberRange[] } | { ok: false; error: string };

/**
 * Reads `661, 670, 955, 1-25` (commas, spaces, semicolons or new lines between entries; `a-b` or `a–b` a
 * range) into sorted, merged ranges within 0..max. Anything else is refused with the entry it stopped at.
 */
export function parseNumberList(text: string, max: number = SEED_MAX): ParsedNumberList {
  const entries = text.split(/[\s,;]+/u).filter((entry) => entry !== '');
  if (entries.length > MAX_LIST_ENTRIES)
    return { ok: false, error: `at most ${MAX_LIST_ENTRIES} entries (got ${entries.length})` };
  const ranges: [number, number][] = [];
  for (const entry of entries) {
    const match = /^(\d{1,7})(?:[-–](\d{1,7}))?$/u.exec(entry);
    if (!match) return { ok: false, error: `"${entry.slice(0, 20)}" is not a number or a range like 1-25` };
    const low = Number(match[1]);
    const high = match[2] === undefined ? low : Number(match[2]);
    if (high < low) return { ok: false, error: `"${entry}" runs backwards` };
    if (high > max) return { ok: false, error: `"${entry}" is past ${max}` };
    ranges.push([low, high]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged[merged.length - 1];
    if (last && range[0] <= last[1] + 1) last[1] = Math.max(last[1], range[1]);
    else merged.push([range[0], range[1]]);
  }
  return { ok: true, ranges: merged };
}

/** Ranges written back as a list (`1-25, 661, 670`). */
export function formatNumberList(ranges: readonly NumberRange[]): string {
  return ranges.map(([low, high]) => (low === high ? String(low) : `${low}-${high}`)).join(', ');
}

/** Whether `value` lies in one of the (sorted, merged) ranges. */
export function inRanges(ranges: readonly NumberRange[], value: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const [from, to] = ranges[mid] as NumberRange;
    if (value < from) high = mid - 1;
    else if (value > to) low = mid + 1;
    else return true;
  }
  return false;
}

/** The exterior wear bands by float (CS2's), lower bound inclusive, upper exclusive (Battle-Scarred includes 1). */
export const WEARS = ['FN', 'MW', 'FT', 'WW', 'BS'] as const;
export type Wear = (typeof WEARS)[number];
export const WEAR_BANDS: Record<Wear, { label: string; min: number; max: number }> = {
  FN: { label: 'Factory New', min: 0, max: 0.07 },
  MW: { label: 'Minimal Wear', min: 0.07, max: 0.15 },
  FT: { label: 'Field-Tested', min: 0.15, max: 0.38 },
  WW: { label: 'Well-Worn', min: 0.38, max: 0.45 },
  BS: { label: 'Battle-Scarred', min: 0.45, max: 1.000001 },
};

/** The wear band of a float, or null for none. */
export function wearOf(float: number | null): Wear | null {
  if (float === null || Number.isNaN(float)) return null;
  return WEARS.find((wear) => float >= WEAR_BANDS[wear].min && float < WEAR_BANDS[wear].max) ?? null;
}
