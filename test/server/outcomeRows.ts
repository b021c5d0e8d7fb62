import type { TradeStatus } from '../../src/shared/api';
import type { adminApi } from '../support/sandboxHttp';

/** A raw platform message, as FAILED carries it. */
export const RAW_PLATFORM_MESSAGE = 'Steam Trade Offer error: (15) Target cannot trade';
/** Trades of the outcome rows are bought with this duration; EXPIRED comes from the clock. */
export const ROW_TRADE_DURATION_SECONDS = 600;

export interface OutcomeStep {
  status: TradeStatus;
  errorCode?: number;
  failReason?: string;
}

/** One row of the spec's outcome table (plus REJECTED), the moves that reach it, and what every event must carry. */
export interface OutcomeRow {
  name: string;
  /** Admin transitions after the buy; `expire` advances the clock past the trade's duration instead. */
  steps: (OutcomeStep | 'expire')[];
  /** Statuses announced, in order, from PENDING. */
  statuses: TradeStatus[];
  final: { status: TradeStatus; errorCode: number | null; failReason: string | null };
}

export const OUTCOME_ROWS: readonly OutcomeRow[] = [
  {
    name: 'COMPLETED',
    steps: [{ status: 'SENT' }, { status: 'COMPLETED' }],
    statuses: ['PENDING', 'SENT', 'COMPLETED'],
    final: { status: 'COMPLETED', errorCode: null, failReason: null },
  },
  {
    name: 'CANCELLED 504 declined',
    steps: [{ status: 'SENT' }, { status: 'CANCELLED', errorCode: 504 }],
    statuses: ['PENDING', 'SENT', 'CANCELLED'],
    final: { status: 'CANCELLED', errorCode: 504, failReason: 'Trade declined by user' },
  },
  {
    name: 'CANCELLED 505 items no longer valid',
    steps: [{ status: 'SENT' }, { status: 'CANCELLED', errorCode: 505 }],
    statuses: ['PENDING', 'SENT', 'CANCELLED'],
    final: { status: 'CANCELLED', errorCode: 505, failReason: 'Items no longer valid' },
  },
  {
    name: 'CANCELLED 506 countered',
    steps: [{ status: 'SENT' }, { status: 'CANCELLED', errorCode: 506 }],
    statuses: ['PENDING', 'SENT', 'CANCELLED'],
    final: { status: 'CANCELLED', errorCode: 506, failReason: 'Trade countered' },
  },
  {
    name: 'EXPIRED 503 (the clock)',
    steps: [{ status: 'SENT' }, 'expire'],
    statuses: ['PENDING', 'SENT', 'EXPIRED'],
    final: { status: 'EXPIRED', errorCode: 503, failReason: 'Trade offer expired' },
  },
  {
    name: 'FAILED 500 with the raw platform message',
    steps: [{ status: 'SENT' }, { status: 'FAILED', failReason: RAW_PLATFORM_MESSAGE }],
    statuses: ['PENDING', 'SENT', 'FAILED'],
    final: { status: 'FAILED', errorCode: 500, failReason: RAW_PLATFORM_MESSAGE },
  },
  {
    name: 'REJECTED',
    steps: [{ status: 'REJECTED' }],
    statuses: ['PENDING', 'REJECTED'],
    final: { status: 'REJECTED', errorCode: null, failReason: 'Trade rejected before the request was received' },
  },
  {
    name: 'REVERSED 512 by the seller',
    steps: [
      { status: 'SENT' },
      { status: 'COMPLETED' },
      { status: 'REVERSED', failReason: 'Seller reversed trade on Steam' },
    ],
    statuses: ['PENDING', 'SENT', 'COMPLETED', 'REVERSED'],
    final: { status: 'REVERSED', errorCode: 512, failReason: 'Seller reversed trade on Steam' },
  },
  {
    name: 'REVERSED 512 by the buyer',
    steps: [
      { status: 'SENT' },
      { status: 'COMPLETED' },
      { status: 'REVERSED', errorCode: 512, failReason: 'Buyer reversed trade on Steam' },
    ],
    statuses: ['PENDING', 'SENT', 'COMPLETED', 'REVERSED'],
    final: { status: 'REVERSED', errorCode: 512, failReason: 'Buyer reversed trade on Steam' },
  },
];

/** Moves a freshly bought trade along a row; returns the offerId it got when SENT (null if never sent). */
export async function driveRow(
  admin: ReturnType<typeof adminApi>,
  tradeId: string,
  row: OutcomeRow,
): Promise<string | null> {
  let offerId: string | null = null;
  for (const step of row.steps) {
    if (step === 'expire') {
      await admin.advance(ROW_TRADE_DURATION_SECONDS + 1);
      continue;
    }
    const trade = await admin.transition(tradeId, { ...step });
    if (step.status === 'SENT') offerId = trade.offerId as string;
  }
  return offerId;
}

/** What every trade_updated (webhook body or frame, without `type`) of a row's trade must be, status by status. */
export function expectedUpdates(row: OutcomeRow, tradeId: string, externalId: string, offerId: string | null) {
  return row.statuses.map((status) => {
    const final = status === row.final.status;
    return {
      tradeId,
      status,
      externalId,
      offerId: status === 'PENDING' || status === 'REJECTED' ? null : offerId,
      failReason: final ? row.final.failReason : null,
      errorCode: final ? row.final.errorCode : null,
    };
  });
}
