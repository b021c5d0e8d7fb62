import { z } from 'zod';
import {
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  MAX_ACTIVE_TRADES_PER_HOLDER,
  TRADE_DURATION_DEFAULT_SECONDS,
} from '../../shared/api';
import { DAY_MS, MINUTE_MS, SECOND_MS, fromUtcIso, utcTimestampSchema } from '../../shared/time';
import { badRequest } from '../domain/apiError';

/** Caps of a seeded history (docs/sandbox.md, "A merchant's history"). */
export const HISTORY_LIMITS = {
  maxDays: 400,
  /** One buy is one request: 300 a minute all day long. */
  maxTradesPerDay: DEFAULT_RATE_LIMIT_PER_MINUTE * (DAY_MS / MINUTE_MS),
  maxRecipients: 1_000_000,
  /** A year at 10,000 a day fits; more would take minutes and gigabytes. */
  maxTrades: 4_000_000,
  /**
   * One an hour per recipient: 12 % of trades are declines or expiries (partner strikes), so a recipient at this
   * rate gets ~3 strikes a day and is rarely blocked (10 in 24 hours); much faster, recipients spend days blocked.
   */
  maxTradesPerRecipientPerDay: 24,
} as const;

/** The busy demo (`--busy`, `npm start -- --busy`): 14 days at 10,000 trades a day. */
export const BUSY_DEFAULTS = { days: 14, tradesPerDay: 10_000, recipients: 5000 } as const;

/** An offer is active (PENDING or SENT) at most this long: the send delay plus the default tradeDurationSeconds. */
export const LONGEST_ACTIVE_MS = 6 * SECOND_MS + TRADE_DURATION_DEFAULT_SECONDS * SECOND_MS;

const positiveInt = (max: number) => z.int().min(1).max(max);

export const historyRequestSchema = z.strictObject({
  days: positiveInt(HISTORY_LIMITS.maxDays),
  tradesPerDay: positiveInt(HISTORY_LIMITS.maxTradesPerDay),
  recipients: positiveInt(HISTORY_LIMITS.maxRecipients),
  seed: z
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  endAt: utcTimestampSchema.optional(),
});
export type HistoryRequest = z.infer<typeof historyRequestSchema>;

export interface HistoryParams {
  days: number;
  tradesPerDay: number;
  recipients: number;
  seed: number;
  /** The history covers [endAt − days, endAt), sandbox clock milliseconds. */
  endAt: number;
}

/**
 * The checks a valid shape still has to pass, against the sandbox's state: the total size, the end (not in the
 * future), and the API's limits (recipients' active offers and strikes, holding accounts' 5 active offers).
 */
export function checkHistoryParams(request: HistoryRequest, now: number, holders: number): HistoryParams {
  const total = request.days * request.tradesPerDay;
  if (total > HISTORY_LIMITS.maxTrades) {
    throw badRequest(
      'invalid_request',
      `days × tradesPerDay is ${total}; at most ${HISTORY_LIMITS.maxTrades} trades can be seeded at once`,
    );
  }
  const perRecipient = HISTORY_LIMITS.maxTradesPerRecipientPerDay;
  if (request.tradesPerDay > request.recipients * perRecipient) {
    throw badRequest(
      'invalid_request',
      `${request.tradesPerDay} trades a day over ${request.recipients} recipients is more than ${perRecipient} a day per ` +
        `recipient: their declines and expiries would keep them blocked (10 strikes in 24 hours); ` +
        `use at least ${Math.ceil(request.tradesPerDay / perRecipient)} recipients`,
    );
  }
  // Every trade of the last LONGEST_ACTIVE_MS may still be active, and each holding account takes 5.
  const holderCapacity = Math.floor((holders * MAX_ACTIVE_TRADES_PER_HOLDER * DAY_MS) / LONGEST_ACTIVE_MS);
  if (request.tradesPerDay > holderCapacity) {
    throw badRequest(
      'invalid_request',
      `${request.tradesPerDay} trades a day need more holding accounts than the catalog's ${holders} ` +
        `(5 active offers each allow ${holderCapacity} a day); start the sandbox with more --items`,
    );
  }
  const endAt = request.endAt === undefined ? now : fromUtcIso(request.endAt);
  if (endAt > now) throw badRequest('invalid_request', 'endAt is in the future: a history ends at the latest now');
  return {
    days: request.days,
    tradesPerDay: request.tradesPerDay,
    recipients: request.recipients,
    seed: request.seed ?? 1,
    endAt,
  };
}
