/**
 * The time a paged job has left, at the pace of its last minute of pages: the rate limiter's window, so the
 * waits at the bulk share are in the pace once it fills (the first minute runs faster than the ones after).
 */
export const PACE_WINDOW_MS = 60_000;

/**
 * Seconds left for `pagesLeft` pages at the pace of the pages finished (`doneAt`, epoch ms) within the last
 * minute since `startedAt`; null while no pace is known (no page finished in that minute).
 */
export function secondsLeft(
  doneAt: readonly number[],
  pagesLeft: number,
  startedAt: number,
  now: number,
): number | null {
  if (pagesLeft <= 0) return 0;
  const since = Math.max(startedAt, now - PACE_WINDOW_MS);
  const pages = doneAt.filter((at) => at > since && at <= now).length;
  if (pages === 0 || now <= since) return null;
  return Math.ceil((pagesLeft * (now - since)) / pages / 1000);
}

/**
 * "about 3 min left" (`spoken`: "about 3 minutes left", for a screen reader); under a minute "less than a minute
 * left"; null (no pace yet) says nothing.
 */
export function timeLeftText(seconds: number | null, spoken = false): string | null {
  if (seconds === null) return null;
  if (seconds < 60) return 'less than a minute left';
  const unit = (n: number, short: string, word: string) => `${n} ${spoken ? `${word}${n === 1 ? '' : 's'}` : short}`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `about ${unit(minutes, 'min', 'minute')} left`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `about ${unit(hours, 'h', 'hour')}${rest > 0 ? ` ${unit(rest, 'min', 'minute')}` : ''} left`;
}
