/**
 * "Buy the next one" chains: the attempts at one order carry the original order id, then `ORDER#2`, `ORDER#3`…
 * (order ids are unique per merchant, so each attempt needs its own). Pure, shared by the engine and the views.
 */
/** A chained attempt's suffix: `#` and a number from 2 (the original is attempt 1 and has none). */
const CHAIN_SUFFIX = /#([2-9]|[1-9]\d{1,5})$/;

/** The attempt's place in its chain: 1 for an order id without a suffix, else the suffix's number. */
export function chainNumber(externalId: string): number {
  const match = CHAIN_SUFFIX.exec(externalId);
  return match ? Number(match[1]) : 1;
}

/** The original order id of the chain an order id belongs to (itself when it has no suffix). */
export function chainRoot(externalId: string): string {
  return externalId.replace(CHAIN_SUFFIX, '');
}

/** The order id of attempt `n` (≥ 2) of the chain of `root`. */
export function chainOrderId(root: string, n: number): string {
  return n <= 1 ? root : `${root}#${n}`;
}
