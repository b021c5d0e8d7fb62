import type { TradeStatus } from './values';

/** Who rolled back a REVERSED trade (errorCode 512): the buyer (the trade URL's owner, the recipient) or the seller. */
export type Reverser = 'buyer' | 'seller';

/**
 * The spec's REVERSED failReason: `Seller reversed trade on Platform` or `Buyer reversed trade on Platform`, the
 * platform's name in place of `Platform`. Read from the leading word (spaces before it skipped, any case), so the
 * platform's name does not matter; the store's roll-up applies the same rule in SQL (store/schema.ts).
 */
const LEADING_WORD = /^ *(buyer|seller)(?![a-z])/i;

/** Who reversed the trade: null when it is not REVERSED or its failReason names neither. */
export function whoReversed(trade: { status: TradeStatus; failReason: string | null }): Reverser | null {
  if (trade.status !== 'REVERSED' || trade.failReason === null) return null;
  const word = LEADING_WORD.exec(trade.failReason)?.[1];
  return word === undefined ? null : (word.toLowerCase() as Reverser);
}
