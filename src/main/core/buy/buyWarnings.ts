import {
  MAX_ACTIVE_TRADES_PER_HOLDER,
  MAX_ACTIVE_TRADES_PER_OWNER,
  PARTNER_BLOCK_THRESHOLD,
  parseTradeUrl,
} from '../../../shared/api';
import type { BuyByIdInput, BuyWarning } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { ACTIVE_WARNING, STRIKE_WARNING, findRecipient } from '../operations/recipients';
import type { BuyingAccount } from './buyingAccount';

/** Warnings for a buy to `tradeUrl` from what we know locally; the server's answer is not guessed. */
export async function buyWarnings(
  account: BuyingAccount,
  input: BuyByIdInput,
  tradeUrl: string,
): Promise<BuyWarning[]> {
  const warnings: BuyWarning[] = [];
  const owner = parseTradeUrl(tradeUrl)?.partner;
  const active = await account.store.activeTrades();
  const recipient = owner ? await findRecipient(account.store, Number(owner), Date.now()) : null;
  if (recipient?.blockedUntil) {
    warnings.push({
      code: 'owner-blocked',
      message: `This recipient is blocked until ${recipient.blockedUntil} after repeated declined or expired offers: this buy would be refused.`,
    });
  }
  if (recipient && recipient.active >= ACTIVE_WARNING) {
    warnings.push({
      code: 'owner-near-limit',
      message:
        recipient.active >= MAX_ACTIVE_TRADES_PER_OWNER
          ? `This recipient already has ${recipient.active} of ${MAX_ACTIVE_TRADES_PER_OWNER} active offers from you: this buy would be refused until one ends.`
          : `This recipient already has ${recipient.active} of ${MAX_ACTIVE_TRADES_PER_OWNER} active offers from you.`,
    });
  }
  if (recipient && !recipient.blockedUntil && recipient.strikes >= STRIKE_WARNING) {
    warnings.push({
      code: 'owner-near-block',
      message: `${recipient.strikes} of your offers to this recipient were declined or expired in 24 h; at ${PARTNER_BLOCK_THRESHOLD} the marketplace blocks them.`,
    });
  }
  const [item] = await account.store.findItemsByIds([input.itemId]);
  if (item?.steamId) {
    // Only what the cache still knows: items of our active trades (on sale no more, kept a while as sold).
    const activeItems = await account.store.findItemsByIds(active.map((t) => t.itemId));
    const sameHolder = activeItems.filter((i) => i.steamId === item.steamId).length;
    if (sameHolder >= MAX_ACTIVE_TRADES_PER_HOLDER - 1) {
      warnings.push({
        code: 'holder-near-limit',
        message: `The account holding this item has at least ${sameHolder} of ${MAX_ACTIVE_TRADES_PER_HOLDER} active offers.`,
      });
    }
  }
  const available = account.balance ? account.balance.total_available : null;
  if (available !== null && input.price > available) {
    warnings.push({
      code: 'low-funds',
      message: `Only ${formatCents(available)} available for a ${formatCents(input.price)} buy.`,
    });
  }
  // An order id names one trade for good: one the cache already holds is said at review, not first at the refusal.
  const used = input.externalId ? await account.store.findTradeByExternalId(input.externalId) : null;
  if (used) {
    warnings.push({
      code: 'order-id-used',
      message:
        `Order id ${used.externalId ?? ''} is already used by trade ${used.tradeId} (${used.market_hash_name}, ${formatCents(used.price)}, ${used.status.toLowerCase()}): ` +
        'this buy would be refused, or answered with that trade if it is the same order. Use a new order id to buy again.',
    });
  }
  return warnings;
}
