import type { TradeStatus, TransactionType } from '../../shared/api';
import { TRADE_ERROR_CODES } from '../../shared/api';

/** The platform's name in the REVERSED failReasons (the spec writes `Platform`). */
export const PLATFORM_NAME = 'Steam';

export interface Outcome {
  errorCode: number | null;
  failReason: string | null;
}

interface TransitionRule {
  from: TradeStatus;
  to: TradeStatus;
  /** errorCode values allowed for this move, the first being the default. */
  outcomes: readonly Outcome[];
  /** Whether the admin may give a free-text failReason (FAILED carries the platform's raw message). */
  freeReason?: boolean;
  ledger: { type: TransactionType; refund: boolean } | null;
}

const NONE: Outcome = { errorCode: null, failReason: null };
const release = { type: 'BUY CANCELLED', refund: true } as const;

/** Every allowed move of a trade; anything else is refused. */
export const TRADE_TRANSITIONS: readonly TransitionRule[] = [
  { from: 'PENDING', to: 'SENT', outcomes: [NONE], ledger: null },
  {
    from: 'PENDING',
    to: 'FAILED',
    outcomes: [{ errorCode: TRADE_ERROR_CODES.failed, failReason: 'Failed to create trade offer' }],
    freeReason: true,
    ledger: release,
  },
  {
    from: 'PENDING',
    to: 'REJECTED',
    outcomes: [{ errorCode: null, failReason: 'Trade rejected before the request was received' }],
    freeReason: true,
    ledger: release,
  },
  { from: 'SENT', to: 'COMPLETED', outcomes: [NONE], ledger: { type: 'BUY COMPLETED', refund: false } },
  {
    from: 'SENT',
    to: 'CANCELLED',
    outcomes: [
      { errorCode: TRADE_ERROR_CODES.declined, failReason: 'Trade declined by user' },
      { errorCode: TRADE_ERROR_CODES.itemsInvalid, failReason: 'Items no longer valid' },
      { errorCode: TRADE_ERROR_CODES.countered, failReason: 'Trade countered' },
    ],
    ledger: release,
  },
  {
    from: 'SENT',
    to: 'EXPIRED',
    outcomes: [{ errorCode: TRADE_ERROR_CODES.expired, failReason: 'Trade offer expired' }],
    ledger: release,
  },
  {
    from: 'SENT',
    to: 'FAILED',
    outcomes: [{ errorCode: TRADE_ERROR_CODES.failed, failReason: 'Trade offer failed on the platform' }],
    freeReason: true,
    ledger: release,
  },
  {
    from: 'COMPLETED',
    to: 'REVERSED',
    outcomes: [
      { errorCode: TRADE_ERROR_CODES.reversed, failReason: `Seller reversed trade on ${PLATFORM_NAME}` },
      { errorCode: TRADE_ERROR_CODES.reversed, failReason: `Buyer reversed trade on ${PLATFORM_NAME}` },
    ],
    ledger: { type: 'TRADE ROLLBACK', refund: true },
  },
];

export function findTransition(from: TradeStatus, to: TradeStatus): TransitionRule | null {
  return TRADE_TRANSITIONS.find((rule) => rule.from === from && rule.to === to) ?? null;
}

/**
 * The outcome for a move: the default, or the row matching the requested
 * errorCode / failReason. Null when the request matches no row of the table.
 */
export function resolveOutcome(
  rule: TransitionRule,
  errorCode?: number | null,
  failReason?: string | null,
): Outcome | null {
  const candidates = rule.outcomes.filter((o) => errorCode === undefined || o.errorCode === errorCode);
  if (candidates.length === 0) return null;
  if (failReason === undefined || failReason === null) return candidates[0] as Outcome;
  if (rule.freeReason) return { errorCode: (candidates[0] as Outcome).errorCode, failReason };
  return candidates.find((o) => o.failReason === failReason) ?? null;
}

/** Declines and expiries count toward the partner block. */
export function isPartnerStrike(status: TradeStatus, errorCode: number | null): boolean {
  return (
    (status === 'CANCELLED' && errorCode === TRADE_ERROR_CODES.declined) ||
    (status === 'EXPIRED' && errorCode === TRADE_ERROR_CODES.expired)
  );
}

/** Ended trades whose item the seller still holds go back on sale; 505 means it was sold elsewhere. */
export function returnsItemToSale(status: TradeStatus, errorCode: number | null): boolean {
  if (status === 'CANCELLED') return errorCode !== TRADE_ERROR_CODES.itemsInvalid;
  return status === 'EXPIRED' || status === 'FAILED' || status === 'REJECTED';
}
