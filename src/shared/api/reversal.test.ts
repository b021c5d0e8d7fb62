import { describe, expect, it } from 'vitest';
import { type Reverser, whoReversed } from './reversal';

/** failReason → who reversed a REVERSED trade. */
const WHO_REVERSED_CASES: [string | null, Reverser | null][] = [
  // The spec's exact wording (Platform stands for the platform's name).
  ['Seller reversed trade on Platform', 'seller'],
  ['Buyer reversed trade on Platform', 'buyer'],
  // The sandbox's (src/server/domain/lifecycle.ts) and other platforms' names.
  ['Seller reversed trade on Steam', 'seller'],
  ['Buyer reversed trade on Steam', 'buyer'],
  ['Buyer reversed trade on Buyer Market', 'buyer'],
  ['Seller reversed trade on Buyer', 'seller'],
  // Any case, leading spaces, the word alone or before punctuation.
  ['BUYER REVERSED TRADE ON STEAM', 'buyer'],
  ['seller reversed trade on steam', 'seller'],
  ['  Buyer reversed trade on Steam', 'buyer'],
  ['Buyer', 'buyer'],
  ['Seller: reversed', 'seller'],
  // Unknown: none given, another word first, a longer word, the word later on.
  [null, null],
  ['', null],
  ['   ', null],
  ['Trade reversed', null],
  ['Reversed by the buyer', null],
  ['Buyers reversed trade on Steam', null],
  ['Sellerside rollback', null],
  ['\tBuyer reversed trade on Steam', null],
  ['The buyer reversed trade on Steam', null],
  ['Käufer reversed trade', null],
];

describe('whoReversed', () => {
  it.each(WHO_REVERSED_CASES)('REVERSED with failReason %j → %s', (failReason, expected) => {
    expect(whoReversed({ status: 'REVERSED', failReason })).toBe(expected);
  });

  it('is null for a trade that is not REVERSED, whatever its failReason says', () => {
    expect(whoReversed({ status: 'COMPLETED', failReason: 'Buyer reversed trade on Steam' })).toBeNull();
    expect(whoReversed({ status: 'CANCELLED', failReason: 'Buyer declined the offer' })).toBeNull();
    expect(whoReversed({ status: 'FAILED', failReason: 'Seller reversed trade on Steam' })).toBeNull();
  });
});
