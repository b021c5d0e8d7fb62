import {
  MAX_ACTIVE_TRADES_PER_HOLDER,
  MAX_ACTIVE_TRADES_PER_OWNER,
  PARTNER_BLOCK_THRESHOLD,
  parseTradeUrl,
} from '../../../shared/api';
import type { BuyByIdInput, BuyWarning, RecipientStanding, RecipientSummary } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { EngineError } from '../ipc/engineService';
import { ACTIVE_WARNING, STRIKE_WARNING, findRecipient, labelsByPartner } from '../operations/recipients';
import type { LocalStore } from '../store';
import type { BuyingAccount } from './buyingAccount';

/**
 * What a recipient's row means for a buy to them now, and the refusal it would most likely get. The cache sees a
 * block only in a partner_blocked answer (its `expiresAt`); 10 strikes in 24 h without one is the spec's own rule.
 */
export function recipientWarnings(recipient: RecipientSummary | null): Pick<RecipientStanding, 'warnings' | 'refusal'> {
  const warnings: BuyWarning[] = [];
  let refusal: RecipientStanding['refusal'] = null;
  if (!recipient) return { warnings, refusal };
  if (recipient.blockedUntil) {
    refusal = 'partner_blocked';
    warnings.push({
      code: 'owner-blocked',
      message: `This recipient is blocked until ${recipient.blockedUntil} after repeated declined or expired offers: this buy would be refused.`,
    });
  }
  if (recipient.active >= ACTIVE_WARNING) {
    const atCap = recipient.active >= MAX_ACTIVE_TRADES_PER_OWNER;
    refusal ??= atCap ? 'too_many_active_trades' : null;
    warnings.push({
      code: 'owner-near-limit',
      message: atCap
        ? `This recipient already has ${recipient.active} of ${MAX_ACTIVE_TRADES_PER_OWNER} active offers from you: this buy would be refused until one ends.`
        : `This recipient already has ${recipient.active} of ${MAX_ACTIVE_TRADES_PER_OWNER} active offers from you.`,
    });
  }
  if (!recipient.blockedUntil && recipient.strikes >= STRIKE_WARNING) {
    const blocks = recipient.strikes >= PARTNER_BLOCK_THRESHOLD;
    refusal ??= blocks ? 'partner_blocked' : null;
    warnings.push({
      code: 'owner-near-block',
      message: blocks
        ? `${recipient.strikes} of your offers to this recipient were declined or expired in 24 h: the marketplace blocks a recipient at ${PARTNER_BLOCK_THRESHOLD}, so this buy would most likely be refused.`
        : `${recipient.strikes} of your offers to this recipient were declined or expired in 24 h; at ${PARTNER_BLOCK_THRESHOLD} the marketplace blocks them.`,
    });
  }
  return { warnings, refusal };
}

/** A buy dialog's chosen recipient against the per-recipient limits, from the cache (offline too). */
export async function recipientStanding(store: LocalStore, tradeUrl: string, now: number): Promise<RecipientStanding> {
  const partner = parseTradeUrl(tradeUrl.trim())?.partner;
  if (!partner) {
    throw new EngineError(
      'invalid_input',
      'Not a trade offer URL: https://steamcommunity.com/tradeoffer/new/?partner=…&token=…',
    );
  }
  const row = await findRecipient(store, Number(partner), now);
  const label = row ? row.label : ((await labelsByPartner(store)).get(Number(partner)) ?? null);
  return {
    partner,
    label,
    active: row?.active ?? 0,
    activeCap: MAX_ACTIVE_TRADES_PER_OWNER,
    strikes: row?.strikes ?? 0,
    strikeLimit: PARTNER_BLOCK_THRESHOLD,
    state: row?.state ?? 'ok',
    blockedUntil: row?.blockedUntil ?? null,
    ...recipientWarnings(row),
  };
}

/** Warnings for a buy to `tradeUrl` from what we know locally; the server's answer is not guessed. */
export async function buyWarnings(
  account: BuyingAccount,
  input: BuyByIdInput,
  tradeUrl: string,
): Promise<BuyWarning[]> {
  const owner = parseTradeUrl(tradeUrl)?.partner;
  const active = await account.store.activeTrades();
  const recipient = owner ? await findRecipient(account.store, Number(owner), Date.now()) : null;
  const warnings = recipientWarnings(recipient).warnings;
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
