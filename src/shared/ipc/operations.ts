/**
 * The Operations screen's models (the engine computes them from the local store; see docs/operations.md).
 * Types only: the inputs' schemas are in contract.ts.
 */
import type { Reverser, Trade, TradeStatus } from '../api';
import type { BuyWarning } from './models';

/** A count of failed deliveries in one hour or one UTC day (`at`: the bucket's start). */
export interface WebhookFailureBucket {
  at: string;
  count: number;
}

/**
 * What the cache suggests about the marketplace's webhook breaker. The cache knows each trade's latest delivery
 * outcome (`webhookStatus`) and when the trade last changed, not when each delivery was tried: failed deliveries
 * with no trade created after them whose update was delivered look like a pause.
 */
export interface WebhookPauseGuess {
  /** The status time of the oldest failed delivery with no delivered one after it. */
  since: string;
  /** Failed deliveries since then. */
  failed: number;
  /** Which pause this would be if the first began at `since` and every attempt at a pause's end failed again. */
  pauseNumber: number;
  /** That pause's end: the next attempt the marketplace makes by itself (15 min doubling up to 4 h). */
  expectedResumeAt: string;
}

/** One replay of missed trade_updated bodies to the merchant's webhook (kept in the account's store). */
export interface WebhookReplayRecord {
  id: string;
  at: string;
  /** The chosen range (status times), or null when trades were chosen one by one. */
  range: { from: string; to: string } | null;
  /** The receiver's host only (a webhook URL may carry a token). */
  host: string;
  /** Bodies sent, and of those answered 2xx. */
  sent: number;
  delivered: number;
  /** Trades left out because an earlier replay had sent that status (not asked to send again). */
  skipped: number;
  results: { tradeId: string; status: TradeStatus; httpStatus: number | null; error: string | null }[];
}

export interface WebhookHealth {
  /** Cached trades whose webhookStatus is failed. */
  failedTotal: number;
  byStatus: { status: TradeStatus; count: number }[];
  /** The last 24 hours, hour by hour (hours with none left out), by the failed status's time. */
  byHour: WebhookFailureBucket[];
  /** The last 30 UTC days. */
  byDay: WebhookFailureBucket[];
  /** The creation time of the newest trade whose update was delivered (webhookStatus sent); null when none. */
  lastDeliveredCreatedAt: string | null;
  paused: WebhookPauseGuess | null;
  /** The failed trades, newest status first (at most FAILED_LIST_LIMIT). */
  failed: Trade[];
  /** The cached history, from its first trade's creation to its last change: a replay range lies within. */
  history: { from: string | null; to: string | null };
  replay: { enabled: boolean; url: string | null; log: WebhookReplayRecord[] };
  computedAt: string;
}

/** What a replay would send (`dryRun`) or sent. */
export interface WebhookReplayOutcome {
  /** Failed deliveries the choice names. */
  chosen: number;
  /** Of those, sent by an earlier replay. */
  alreadyReplayed: number;
  /** Bodies that go (or went) out. */
  toSend: number;
  host: string;
  /** Null for a dry run. */
  record: WebhookReplayRecord | null;
}

export const FAILED_LIST_LIMIT = 200;
/** One replay sends at most this many bodies: a longer range is chosen in parts. */
export const MAX_REPLAY_TRADES = 1000;

/** A column of the failures board: a failed trade's outcome (status and errorCode) or a buy refusal's code. */
export interface FailureReason {
  /** `trade:<status>:<errorCode>` (0 for none) or `refusal:<code>`. */
  key: string;
  kind: 'trade' | 'refusal';
  label: string;
  status: TradeStatus | null;
  /** The outcome code; null for a refusal, or a failed trade that has none. */
  errorCode: number | null;
  /** The refusal's code; null for a trade outcome. */
  code: string | null;
}

/** Failed trades or refusals in one bucket: how many, and their value (cents; a refusal's confirmed or maximum price). */
export interface FailureCell {
  count: number;
  value: number;
}

/** One row of the board: a UTC day (2026-11-29) or an hour of today (2026-11-29T08); cells by reason key. */
export interface FailureBoardRow {
  at: string;
  cells: Record<string, FailureCell>;
  total: FailureCell;
}

export interface FailuresBoard {
  /** The UTC days shown, inclusive (trades by their creation day, refusals by when they were seen). */
  from: string;
  to: string;
  today: string;
  reasons: FailureReason[];
  /** Newest first, every day of the range (empty ones too). */
  days: FailureBoardRow[];
  /** Today's hours up to now, newest first. */
  hours: FailureBoardRow[];
  totals: Record<string, FailureCell>;
  computedAt: string;
}

/** A buy the desk saw refused (Operations → Failures). */
export interface BuyRefusal {
  id: number;
  at: string;
  code: string;
  itemId: number | null;
  market_hash_name: string | null;
  /** The price confirmed (buy by id) or the maximum price (by name), cents. */
  price: number;
  partner: number | null;
  externalId: string | null;
  detail: string;
}

/** The board's days span at most this many (refusals are kept 400 days). */
export const MAX_FAILURE_DAYS = 400;
/** A refusal cell lists at most this many. */
export const REFUSAL_LIST_LIMIT = 500;
/** Operations → Recipients: where a recipient stands against the marketplace's per-recipient limits. */
export type RecipientState = 'ok' | 'near' | 'at-cap' | 'blocked';

/** One trade-URL owner (partner number), from the cached trades and the blocks the desk was answered. */
export interface RecipientSummary {
  /** The partner number of their trade URL (what Trades' recipient filter takes). */
  partner: string;
  /** A saved recipient's label when one has this partner number. */
  label: string | null;
  /** Active offers (PENDING, SENT), against `activeCap` (30). */
  active: number;
  activeCap: number;
  /** Declines (CANCELLED 504) and expiries (EXPIRED 503) with a status time in the last 24 h, against `strikeLimit` (10). */
  strikes: number;
  strikeLimit: number;
  /** `blocked`: a partner_blocked answer's block has not ended; `at-cap`: 30 active; `near`: 7+ strikes or 27+ active. */
  state: RecipientState;
  /** The end of the block (`expiresAt` of the last partner_blocked answer for them), while it lasts. */
  blockedUntil: string | null;
  trades: number;
  delivered: number;
  /** Ended without delivery: cancelled, declined, expired, failed, rejected. */
  cancelled: number;
  /** Reversed by either side; `buyerReversed` of them by the recipient (the buyer), not the seller. */
  reversed: number;
  buyerReversed: number;
  /** The value of the delivered trades, cents. */
  value: number;
  /** The newest ended trade's status and code, and its status time (null while none has ended). */
  last: { status: TradeStatus; errorCode: number | null; at: string } | null;
}

/**
 * A buy dialog's chosen recipient against the per-recipient limits, before Review (`buy.recipient`): the counts of
 * their row (zero while the cache holds no trade to them) and what they mean for a buy to them now.
 */
export interface RecipientStanding extends Pick<
  RecipientSummary,
  'partner' | 'label' | 'active' | 'activeCap' | 'strikes' | 'strikeLimit' | 'state' | 'blockedUntil'
> {
  /** `owner-blocked`, `owner-near-limit`, `owner-near-block` (the review's own words); empty when none applies. */
  warnings: BuyWarning[];
  /** The refusal a buy to them now would most likely get (blocked, or at the 30 cap), else null. */
  refusal: 'partner_blocked' | 'too_many_active_trades' | null;
}

export interface RecipientsPage {
  rows: RecipientSummary[];
  total: number;
  offset: number;
  computedAt: string;
}

/**
 * The reversed trades a page lists (newest first; at a year tens of thousands: the view carries a page and the total),
 * and the recipients who reversed shown (most reversals of their own first; at a year thousands: the view carries the
 * first ones and the count, the CSV every one up to the export's cap).
 */
export const REVERSED_PAGE = 50;
export const REVERSERS_SHOWN = 25;
export const REVERSERS_LIMIT = 10_000;

/** Operations → Reversals: what a platform reversal could still take back, and what it took. */
export interface ReversalExposure {
  /** Completed trades still reversible now (stage 1, protection not ended): count and value, cents. */
  exposure: { count: number; value: number };
  /** Of those, the ones with no `endProtection` (the API's "no data"): no release day known. */
  undated: { count: number; value: number };
  /** When the exposure is released: by UTC day of each trade's `endProtection`. */
  schedule: { day: string; count: number; value: number }[];
  reversedTotal: number;
  /** Where the page of reversed trades starts in the newest-first list. */
  reversedOffset: number;
  /**
   * A page of the reversed trades (REVERSED_PAGE), each with its recipient (partner, label), who reversed it (the buyer,
   * that is the recipient, or the seller; null when the failReason names neither) and its TRADE ROLLBACK ledger entry.
   */
  reversed: {
    trade: Trade;
    partner: string | null;
    label: string | null;
    reversedBy: Reverser | null;
    rollback: { id: number; amount: number; createdAt: string } | null;
  }[];
  /**
   * The recipients who reversed a trade themselves (as the buyer; a seller's rollback is not theirs), most such reversals
   * first, with their reversals by either side (a merchant's own ban list starts here).
   */
  reversers: {
    partner: string;
    label: string | null;
    buyerReversed: number;
    reversed: number;
    delivered: number;
    trades: number;
  }[];
  /** How many recipients reversed a trade themselves (the list holds the first REVERSERS_SHOWN). */
  reversersTotal: number;
  computedAt: string;
}
