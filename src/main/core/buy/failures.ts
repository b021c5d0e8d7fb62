import type { BuyFailure } from '../../../shared/ipc';
import { formatCents, parseDollarsToCents } from '../../../shared/money';

/** What the buy flow knows when the server (or our own check) says no. */
export interface FailureContext {
  code: string;
  message: string;
  retryable: boolean;
  /** Our current total available (balance + credit), for insufficient_balance. */
  available?: number | null;
  /** The price the user confirmed. */
  price?: number;
  /** A buy by name: "unavailable" then means no listing of the name (or the targeted one) is on sale. */
  byName?: boolean;
  /** A buy by name's phase: "unavailable" then means none of the name in that phase. */
  phase?: string | null;
  /** A buy by name that targeted one listing (item id and asset id). */
  targeted?: boolean;
}

/**
 * Reads the new price out of a `price_changed` message. The sandbox writes
 * `new price: 1234 ($12.34)` (cents first); a real server might write dollars
 * (`$12.34`) instead: a `$` or a decimal point means dollars.
 */
export function parseNewPrice(message: string): number | null {
  const match = /new price[^\d$]*(\$)?\s*(\d[\d,]*(?:\.\d{1,2})?)/i.exec(message);
  if (!match) return null;
  const [, dollarSign, amount = ''] = match;
  if (dollarSign || amount.includes('.')) return parseDollarsToCents(amount);
  const cents = Number(amount.replace(/,/g, ''));
  return Number.isSafeInteger(cents) && cents > 0 ? cents : null;
}

/** The first ISO 8601 UTC timestamp in a message (partner_blocked's `expiresAt`). */
export function parseExpiresAt(message: string): string | null {
  const match = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z)/.exec(message);
  return match ? new Date(match[1] as string).toISOString() : null;
}

const NEXT_STEPS: Record<string, string> = {
  invalid_request: 'Check the buy details and try again.',
  invalid_price: 'Enter a price above $0.00.',
  invalid_trade_duration: 'Choose a trade duration between 10 minutes and 12 hours.',
  invalid_tradeurl:
    "Paste the recipient's full trade offer URL (https://steamcommunity.com/tradeoffer/new/?partner=…&token=…).",
  item_unavailable: 'Pick another listing of this item — Buy by name takes the cheapest one.',
  asset_mismatch: 'The listing changed since the catalog was synced: refresh the catalog and try again.',
  price_changed: 'Buy at the new price, or cancel.',
  price_too_high: 'Raise the max price, or wait for a cheaper listing.',
  duplicate_external_id: 'This order id was used before: open that trade, or use a new order id.',
  insufficient_balance: 'Top up the balance or ask for a higher credit limit.',
  partner_blocked: 'Wait until the block ends, or ask the recipient to accept their offers.',
  too_many_active_trades: 'Wait for open offers to finish, or buy a listing held by another account.',
  rate_limited: 'The app waits for the rate limit to reset; try again in a moment.',
  maintenance: 'The marketplace is under maintenance; try again later.',
  unauthorized: 'Check the merchant id and API key in Settings.',
  ip_not_allowed: "Add this machine's address to the allowlist in the Merchant Portal.",
  not_sent: 'Nothing left this machine, so no trade was made: try again when the marketplace is reachable.',
  outcome_unknown: 'It is safe to try again: the same order id guarantees at most one trade.',
  no_listing_under_max:
    'Nothing was sent. Wait for a listing at or under the maximum, or buy it by name at a maximum you choose.',
};

/** Maps any refusal to one clear message and a next step; unknown codes keep the server's words. */
export function describeBuyFailure(context: FailureContext): BuyFailure {
  const { code, message } = context;
  const failure: BuyFailure = {
    code,
    message,
    nextStep: NEXT_STEPS[code] ?? (context.retryable ? 'Try again in a moment.' : 'See the message for details.'),
    retryable: context.retryable,
  };
  switch (code) {
    case 'price_changed': {
      const newPrice = parseNewPrice(message);
      if (newPrice !== null) {
        failure.newPrice = newPrice;
        failure.message = `The price changed to ${formatCents(newPrice)}${context.price ? ` (you confirmed ${formatCents(context.price)})` : ''}.`;
        failure.nextStep = `Buy at ${formatCents(newPrice)}, or cancel.`;
      }
      break;
    }
    case 'partner_blocked': {
      const until = parseExpiresAt(message);
      if (until) {
        failure.blockedUntil = until;
        failure.message = `The recipient is blocked until ${until} after repeated declined or expired offers.`;
      }
      break;
    }
    case 'insufficient_balance': {
      if (context.available !== undefined && context.available !== null) {
        failure.available = context.available;
        failure.message = `Not enough funds: ${formatCents(context.available)} available${context.price ? `, ${formatCents(context.price)} needed` : ''}.`;
      }
      break;
    }
    case 'item_unavailable': {
      // Say which condition found nothing: the targeted listing, the phase, or the name itself.
      if (context.byName && context.targeted) {
        failure.message = 'The targeted listing is not on sale any more (sold, or taken off sale).';
        failure.nextStep = 'Untick "Target one specific item" to buy the cheapest listing of the name instead.';
      } else if (context.byName && context.phase) {
        failure.message = `No listing of this name in ${context.phase} is on sale.`;
        failure.nextStep =
          'Choose another phase, or Any phase: the item detail lists the phases on sale in the local catalog.';
      } else if (context.byName) {
        failure.message = 'No listing of this name is on sale.';
        failure.nextStep =
          'Check the name: pick it from the suggestions, which list the names on sale in the local catalog.';
      }
      break;
    }
    case 'too_many_active_trades': {
      if (/another account|holding/i.test(message))
        failure.nextStep = 'Buy a listing of the same item held by another account.';
      else if (/owner|wait/i.test(message)) failure.nextStep = "Wait for the recipient's open offers to finish.";
      break;
    }
    default:
      break;
  }
  return failure;
}
