/**
 * Operations → Webhook health, computed from the local store (offline too). The marketplace delivers each trade
 * status to the merchant's webhook and tells, per trade, how its latest delivery settled (`webhookStatus`); its
 * breaker pauses every delivery after repeated failures, 15 min, then doubling up to 4 h, until the merchant clicks
 * Test Webhook in the portal or changes the URL. The cache cannot see the breaker: it sees failed deliveries and,
 * as proof that deliveries went through later, trades created after them whose update was delivered.
 */
import { webhookPauseMs } from '../../../shared/api';
import type { WebhookHealth, WebhookPauseGuess } from '../../../shared/ipc';
import { FAILED_LIST_LIMIT } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import type { LocalStore } from '../store';
import type { WebhookHealthRows } from '../store/worker/webhookHealthQuery';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
const DAYS_SHOWN = 30;

/**
 * The pause the breaker would be in at `now` if its first pause began at `since` and the one attempt at each pause's
 * end failed again: the n-th pause ends at since + 15 + 30 + … min (each capped at 4 h).
 */
export function guessPause(since: string, failed: number, now: number): WebhookPauseGuess {
  const start = Date.parse(since);
  let pauseNumber = 1;
  let end = start + webhookPauseMs(1);
  while (end <= now) {
    pauseNumber += 1;
    end += webhookPauseMs(pauseNumber);
  }
  return { since, failed, pauseNumber, expectedResumeAt: toUtcIso(end) };
}

/** The window of the hour and day counts ending at `now`. */
export function healthWindow(now: number): { hoursFrom: string; daysFrom: string; listLimit: number } {
  const hourStart = Math.floor(now / HOUR_MS) * HOUR_MS;
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  return {
    hoursFrom: toUtcIso(hourStart - 23 * HOUR_MS),
    daysFrom: toUtcIso(dayStart - (DAYS_SHOWN - 1) * DAY_MS),
    listLimit: FAILED_LIST_LIMIT,
  };
}

export function webhookHealthOf(rows: WebhookHealthRows, now: number, replay: WebhookHealth['replay']): WebhookHealth {
  const { since, count } = rows.unanswered;
  return {
    failedTotal: rows.byStatus.reduce((sum, row) => sum + row.count, 0),
    byStatus: rows.byStatus,
    byHour: rows.byHour.map(({ at, count: n }) => ({ at: `${at}:00:00.000Z`, count: n })),
    byDay: rows.byDay.map(({ at, count: n }) => ({ at: `${at}T00:00:00.000Z`, count: n })),
    lastDeliveredCreatedAt: rows.lastDeliveredCreatedAt,
    paused: since !== null && count > 0 ? guessPause(since, count, now) : null,
    failed: rows.failed,
    history: rows.history,
    replay,
    computedAt: toUtcIso(now),
  };
}

export async function readWebhookHealth(
  store: LocalStore,
  now: number,
  replay: WebhookHealth['replay'],
): Promise<WebhookHealth> {
  return webhookHealthOf(await store.webhookHealthRows(healthWindow(now)), now, replay);
}
