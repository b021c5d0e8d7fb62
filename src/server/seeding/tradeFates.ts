import type { TradeStatus } from '../../shared/api';
import { TRADE_DURATION_DEFAULT_SECONDS, TRADE_ERROR_CODES } from '../../shared/api';
import type { Rng } from '../catalog/rng';
import { SANDBOX_CHOICES } from '../config';
import type { Outcome } from '../domain/lifecycle';
import { findTransition, resolveOutcome } from '../domain/lifecycle';
import type { Range, SentOutcomeWeights } from '../simulator/options';
import {
  DEFAULT_OUTCOMES,
  SEND_FAILURE_MESSAGES,
  SENT_FAILURE_MESSAGES,
  SIMULATOR_DEFAULTS,
  pickWeighted,
} from '../simulator/options';
import { DAY_MS, SECOND_MS } from '../../shared/time';

/** One move of a trade after its buy: the status it reaches, when, and the outcome row. */
export interface Move {
  status: TradeStatus;
  at: number;
  outcome: Outcome;
}

/** A trade's whole life as the simulator would have played it: sent (or not), an end, maybe a reversal. */
export interface Fate {
  createdAt: number;
  /** PENDING → SENT, or null when the trade ended before an offer went out. */
  sentAt: number | null;
  /** The move out of PENDING or SENT. */
  end: Move;
  /** COMPLETED → REVERSED days later, or null. */
  reversal: Move | null;
}

const SENT_MOVES: Record<keyof SentOutcomeWeights, { status: TradeStatus; errorCode?: number }> = {
  completed: { status: 'COMPLETED' },
  declined: { status: 'CANCELLED', errorCode: TRADE_ERROR_CODES.declined },
  countered: { status: 'CANCELLED', errorCode: TRADE_ERROR_CODES.countered },
  itemsInvalid: { status: 'CANCELLED', errorCode: TRADE_ERROR_CODES.itemsInvalid },
  failed: { status: 'FAILED', errorCode: TRADE_ERROR_CODES.failed },
  expired: { status: 'EXPIRED', errorCode: TRADE_ERROR_CODES.expired },
};

/** The outcome-table row of a move, from the transition table itself (so it cannot drift from the live code). */
function outcomeOf(from: TradeStatus, to: TradeStatus, errorCode?: number, failReason?: string): Outcome {
  const rule = findTransition(from, to);
  const outcome = rule && resolveOutcome(rule, errorCode, failReason);
  if (!outcome) throw new Error(`no ${from} → ${to} row in the transition table`);
  return outcome;
}

const delay = (rng: Rng, [lo, hi]: Range, unit: number) => Math.round(rng.float(lo * unit, hi * unit));

/** The simulator's outcome table (docs/sandbox.md, "Market simulator"), drawn for one trade bought at `createdAt`. */
export function drawFate(rng: Rng, createdAt: number): Fate {
  const d = SIMULATOR_DEFAULTS;
  const leavesPending = createdAt + delay(rng, d.sendDelaySeconds, SECOND_MS);
  const u = rng.next();
  if (u < d.sendFailProbability) {
    const outcome = outcomeOf('PENDING', 'FAILED', TRADE_ERROR_CODES.failed, rng.pick(SEND_FAILURE_MESSAGES));
    return { createdAt, sentAt: null, end: { status: 'FAILED', at: leavesPending, outcome }, reversal: null };
  }
  if (u < d.sendFailProbability + d.sendRejectProbability) {
    const outcome = outcomeOf('PENDING', 'REJECTED');
    return { createdAt, sentAt: null, end: { status: 'REJECTED', at: leavesPending, outcome }, reversal: null };
  }
  const sentAt = leavesPending;
  const kind = pickWeighted(DEFAULT_OUTCOMES, rng.next());
  const move = SENT_MOVES[kind];
  const failReason = kind === 'failed' ? rng.pick(SENT_FAILURE_MESSAGES) : undefined;
  // An expiry comes from the trade's own timer, tradeDurationSeconds after it was sent.
  const at =
    kind === 'expired'
      ? sentAt + TRADE_DURATION_DEFAULT_SECONDS * SECOND_MS
      : sentAt + delay(rng, d.outcomeDelaySeconds, SECOND_MS);
  const end: Move = { status: move.status, at, outcome: outcomeOf('SENT', move.status, move.errorCode, failReason) };
  let reversal: Move | null = null;
  if (kind === 'completed' && rng.chance(d.reversalProbability)) {
    const rule = findTransition('COMPLETED', 'REVERSED');
    const reversedAt = at + delay(rng, d.reversalDelayDays, DAY_MS);
    const outcome = rule?.outcomes[rng.chance(0.5) ? 0 : 1];
    if (!outcome || reversedAt >= at + SANDBOX_CHOICES.endProtectionMs) throw new Error('reversal outside protection');
    reversal = { status: 'REVERSED', at: reversedAt, outcome };
  }
  return { createdAt, sentAt, end, reversal };
}
