/**
 * The engine's connection detail says "retrying in 16 s" once, when it schedules the retry; the UI
 * counts down to `nextAttemptAt` itself. Shown together they disagree a second later, so the frozen
 * figure goes and the live countdown stays.
 */
export function detailWithoutDelay(detail: string): string {
  return detail.replace(/\b(retrying(?: the feed)?|reconnecting) in \d+ (?:h|min|s)(?: \d+ (?:min|s))?/gi, '$1');
}
