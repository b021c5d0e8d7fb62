/**
 * Pages of trades or ledger entries (newest first) from counts by UTC day (the `trade_days` / `ledger_days`
 * roll-ups): the total is a sum, and a page at any offset reads only the days it spans, so the last page of
 * millions of rows costs what the first does. No SQLite access here.
 */

/** Rows matching a query on one UTC day (`YYYY-MM-DD`). */
export interface DayCount {
  day: string;
  n: number;
}

export interface DayPagePlan {
  total: number;
  /** The page lies in `[lo, hi)` of createdAt (null: unbounded); `skip` matching rows of that range come before it. */
  lo: string | null;
  hi: string | null;
  skip: number;
  /** False when the offset is past the last row: nothing to read. */
  read: boolean;
}

export const dayStart = (day: string): string => `${day}T00:00:00.000Z`;

export function nextDayStart(day: string): string {
  return new Date(Date.parse(dayStart(day)) + 86_400_000).toISOString();
}

/** The UTC day of a stored timestamp (UTC ISO 8601 with `Z`). */
export const dayOf = (iso: string): string => iso.slice(0, 10);

/** `days`: newest first, days without a match left out or 0. */
export function planDayPage(days: readonly DayCount[], offset: number, limit: number): DayPagePlan {
  let total = 0;
  let hi: string | null = null;
  let lo: string | null = null;
  let skip = 0;
  let first = -1;
  for (const [index, { day, n }] of days.entries()) {
    if (first < 0 && total + n > offset) {
      first = index;
      hi = index === 0 ? null : nextDayStart(day);
      skip = offset - total;
    }
    total += n;
    if (first >= 0 && lo === null && total >= offset + limit) lo = index === days.length - 1 ? null : dayStart(day);
  }
  return { total, lo, hi, skip, read: first >= 0 };
}
