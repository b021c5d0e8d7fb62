/**
 * Live price changes between the host and the writer thread as typed arrays: a
 * burst of 10,000 as objects cost ~1 µs each to clone across and back on this
 * machine (two objects an event, both ways), as a Float64Array a copy of its bytes.
 */
import type { PriceChange } from '../../../shared/api';
import type { PriceMove } from '../store/types';

/** Price changes as (itemId, price) pairs. */
export function packPriceChanges(changes: readonly PriceChange[]): Float64Array<ArrayBuffer> {
  const packed = new Float64Array(changes.length * 2);
  changes.forEach((change, i) => {
    packed[2 * i] = change.itemId;
    packed[2 * i + 1] = change.price;
  });
  return packed;
}

/**
 * The moves and unknown items of packed changes, given each change's price before it (`previous`, as the
 * writer returns it: NaN for an item not held, the same price for no move), in the changes' order.
 */
export function priceChangeOutcome(
  packed: Float64Array,
  previous: Float64Array,
): { prices: PriceMove[]; unknown: number[] } {
  const prices: PriceMove[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < previous.length; i++) {
    const itemId = packed[2 * i] as number;
    const before = previous[i] as number;
    if (Number.isNaN(before)) unknown.push(itemId);
    else if (before !== packed[2 * i + 1])
      prices.push({ itemId, price: packed[2 * i + 1] as number, previous: before });
  }
  return { prices, unknown };
}
