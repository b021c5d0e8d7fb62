import type { BalanceRunway } from './ipc/models';
import { formatCents } from './money';

/** The runway alert's threshold is at most 30 days: past that a day's rate says little. */
export const RUNWAY_ALERT_MAX_HOURS = 720;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A runway rounded as a person says it: "45 min", "6 h", "3 d" (hours up to two days, then days). */
export function formatRunway(ms: number): string {
  if (ms < MINUTE_MS) return 'less than a minute';
  if (ms < HOUR_MS) return `${Math.round(ms / MINUTE_MS)} min`;
  if (ms < 2 * DAY_MS) return `${Math.round(ms / HOUR_MS)} h`;
  return `${Math.round(ms / DAY_MS)} d`;
}

/** The shorter of the two runways (the one the alert watches); null when nothing was spent in the last day. */
export function shortestRunwayMs(runway: Pick<BalanceRunway, 'lastHour' | 'lastDay'>): number | null {
  const known = [runway.lastHour.runwayMs, runway.lastDay.runwayMs].filter((ms): ms is number => ms !== null);
  return known.length > 0 ? Math.min(...known) : null;
}

/** "About 6 h of buying left at the last hour's rate (2 d at the last day's)", or why there is no such figure. */
export function runwaySentence(runway: BalanceRunway): string {
  const { lastHour, lastDay } = runway;
  if (runway.available <= 0) return `Nothing left to buy with: ${formatCents(runway.available)} available`;
  if (lastHour.runwayMs === null && lastDay.runwayMs === null)
    return 'No recent spending: nothing bought in the last day';
  if (lastHour.runwayMs === null)
    return `About ${formatRunway(lastDay.runwayMs as number)} of buying left at the last day's rate (nothing bought in the last hour)`;
  const day = lastDay.runwayMs === null ? '' : ` (${formatRunway(lastDay.runwayMs)} at the last day's)`;
  return `About ${formatRunway(lastHour.runwayMs)} of buying left at the last hour's rate${day}`;
}

/** "6 h", "1.5 h": a threshold as it was set. */
export function formatThresholdHours(hours: number): string {
  return `${Number(hours.toFixed(2))} h`;
}
