/**
 * "Buy the next one" chains: the attempts at one order carry the original order id, then `ORDER#2`, `ORDER#3`…
 * (order ids are unique per merchant, so each attempt needs its own). Pure, shared by the engine and the views.
 */
import { MAX_EXTERNAL_ID_LENGTH } from './api/requests';

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

/** Why attempt `n` of `root` cannot have an order id (the marketplace takes at most 128 characters), or null. */
export function chainOrderIdProblem(root: string, n: number): string | null {
  const id = chainOrderId(root, n);
  return id.length > MAX_EXTERNAL_ID_LENGTH
    ? `The order id ${root.length > 24 ? `${root.slice(0, 24)}…` : root} is ${root.length} characters: with "#${n}" it would pass the ${MAX_EXTERNAL_ID_LENGTH} the marketplace allows. Buy it by name with a new order id instead.`
    : null;
}
