/**
 * The engine's connection detail says "retrying in 16 s" once, when it schedules the retry. Next to a live countdown
 * (the status bar, the banner) it disagrees a second later, and in a kept notification it is soon false: there the
 * frozen figure goes and the rest stays.
 */
export function detailWithoutDelay(detail: string): string {
  return detail.replace(/\b(retrying(?: the feed)?|reconnecting) in \d+ (?:h|min|s)(?: \d+ (?:min|s))?/gi, '$1');
}
