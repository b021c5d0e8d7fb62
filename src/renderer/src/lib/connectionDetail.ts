import type { ConnectionStatus, RateLimitStatus } from '../../../shared/ipc/models';

export { detailWithoutDelay } from '../../../shared/connectionDetail';

/**
 * When the app tries the marketplace again, as one time. In maintenance the feed's next attempt and the API's
 * Retry-After back-off are two clocks for the same wait: the feed's attempt comes first and, once connected, ends the
 * back-off, so it is the one shown (the back-off when the feed has none, as after a REST 503 with the feed still up).
 */
export function nextAttemptAt(
  connection: Pick<ConnectionStatus, 'state' | 'nextAttemptAt'>,
  rateLimit: Pick<RateLimitStatus, 'backoffUntil'> | null,
): string | null {
  if (connection.state === 'connected') return null;
  if (connection.state === 'maintenance') return connection.nextAttemptAt ?? rateLimit?.backoffUntil ?? null;
  return connection.nextAttemptAt;
}
