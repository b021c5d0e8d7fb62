import type { BuyByIdInput, BuyOutcome } from '../../../shared/ipc';
import type { Trade } from '../../../shared/api';

/**
 * How long a buy whose outcome is unknown is remembered by what it bought: a retry of the same buy
 * within this window (the UI's "Try again", which may not resend the order id) reuses its externalId.
 */
export const UNKNOWN_ATTEMPT_WINDOW_MS = 30 * 60_000;

export type Recipient = BuyByIdInput['recipient'];

/** What one buy asks for: a trade answering the same order id must match it to be the same order. */
export type Order =
  | { kind: 'id'; itemId: number; assetId: string; price: number; tradeUrl: string }
  | {
      kind: 'name';
      market_hash_name: string;
      phase: string | null;
      maxPrice: number;
      itemId: number | null;
      assetId: string | null;
      tradeUrl: string;
    };

/** A buy's outcome, and whether it made a trade not counted before (auto-buy adds spend only then). */
export interface Placement {
  outcome: BuyOutcome;
  /** True when this call (or an earlier unanswered attempt of the same order id) created the trade; false for a trade already known. */
  placed: boolean;
}

function orderKey(order: Order): string {
  return JSON.stringify(order);
}

/** Whether a trade the server holds under an order id is this order (the same item, price and recipient). */
export function sameOrder(order: Order, trade: Trade): boolean {
  if (trade.tradeUrl !== order.tradeUrl) return false;
  if (order.kind === 'id')
    return trade.itemId === order.itemId && trade.assetId === order.assetId && trade.price === order.price;
  return (
    trade.market_hash_name === order.market_hash_name &&
    trade.price <= order.maxPrice &&
    (order.phase === null || trade.phase === order.phase) &&
    (order.itemId === null || (trade.itemId === order.itemId && trade.assetId === order.assetId))
  );
}

/** Our own order ids whose last attempt got no answer, remembered by id and by what they bought. */
export class UnknownAttempts {
  /** Our own order ids whose last attempt got no answer, with what they bought: looked up before a retry is sent. */
  private readonly unanswered = new Map<string, Order>();
  /** The same attempts by what they bought (orderKey), for a retry that comes without the order id. */
  private readonly unknownByOrder = new Map<string, { externalId: string; at: number }>();

  /** Whether the last attempt with this order id got no answer. */
  has(externalId: string): boolean {
    return this.unanswered.has(externalId);
  }

  /** The order id of a recent attempt at the same buy whose outcome is unknown, if any. */
  retriedId(order: Order): string | undefined {
    const now = Date.now();
    for (const [key, attempt] of this.unknownByOrder) {
      if (now - attempt.at > UNKNOWN_ATTEMPT_WINDOW_MS) {
        this.unknownByOrder.delete(key);
        this.unanswered.delete(attempt.externalId);
      }
    }
    return this.unknownByOrder.get(orderKey(order))?.externalId;
  }

  remember(externalId: string, order: Order): void {
    this.unanswered.set(externalId, order);
    this.unknownByOrder.set(orderKey(order), { externalId, at: Date.now() });
  }

  /** The outcome of this order id is known now: a later buy of the same thing is a new order. */
  settled(externalId: string): void {
    const order = this.unanswered.get(externalId);
    this.unanswered.delete(externalId);
    if (order && this.unknownByOrder.get(orderKey(order))?.externalId === externalId)
      this.unknownByOrder.delete(orderKey(order));
  }
}
