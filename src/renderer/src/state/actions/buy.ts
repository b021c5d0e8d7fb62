import type { BuyByIdInput, BuyByNameInput } from '../../../../shared/ipc/contract';
import type { BuyOutcome, BuyWarning, CatalogRow } from '../../../../shared/ipc/models';
import { nameKey, nameSearchText } from '../../../../shared/itemNames';
import { formatCents } from '../../lib/format';
import { api, unwrap } from '../../lib/ipc';
import { writePref } from '../../lib/persist';
import { closeDialog } from './dialogs';
import { navigate } from './navigation';
import { toast } from './toast';
import { selectTrade } from './trades';

export async function checkBuy(input: BuyByIdInput): Promise<BuyWarning[]> {
  return unwrap(api().buy.check(input));
}

/** The recipient's own warnings (limits and blocks), which need no item: a buy by name with no local match. */
async function checkRecipient(recipient: BuyByNameInput['recipient']): Promise<BuyWarning[]> {
  return (await unwrap(api().buy.recipient({ recipient }))).warnings;
}

/** A pre-buy note of buy by name: the engine's warnings plus what the local catalog says. */
export interface NameCheckWarning {
  code: BuyWarning['code'] | 'no-local-match';
  message: string;
}

export interface NameCheck {
  warnings: NameCheckWarning[];
  /** The listing the marketplace will most likely sell (the cheapest local match), when the cache has one. */
  candidate: Pick<CatalogRow, 'itemId' | 'assetId' | 'price' | 'phase' | 'float'> | null;
}

/**
 * Buy by name runs the same pre-checks as buy by id (recipient limits and blocks, holder
 * limit, funds) against the listing it will most likely get: the targeted item, else the
 * cheapest local listing of that name (and phase) at or below the maximum.
 */
export async function checkBuyByName(input: BuyByNameInput): Promise<NameCheck> {
  const common = {
    recipient: input.recipient,
    ...(input.tradeDurationSeconds !== undefined ? { tradeDurationSeconds: input.tradeDurationSeconds } : {}),
    ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
  };
  if (input.itemId !== undefined && input.assetId !== undefined) {
    const warnings = await checkBuy({ itemId: input.itemId, assetId: input.assetId, price: input.maxPrice, ...common });
    return { warnings, candidate: null };
  }
  // Every cached listing of the name (in the phase), cheapest first: "no such name", "not in that phase" and "all above
  // the maximum" are told apart.
  const named = await cachedListings(input.market_hash_name, input.phase ?? null);
  const match = named.find((row) => row.price <= input.maxPrice);
  if (!match) {
    const recipientWarnings = await checkRecipient(input.recipient);
    const cheapest = named[0];
    if (cheapest) {
      const message = `The cheapest listing of this name${input.phase ? ` (${input.phase})` : ''} in the local catalog costs ${formatCents(cheapest.price)}, above ${formatCents(input.maxPrice)}: the marketplace will most likely refuse (price_too_high).`;
      return { candidate: null, warnings: [{ code: 'no-local-match', message }, ...recipientWarnings] };
    }
    // None in the phase: the name may well be right, and the phase the thing to change.
    const otherPhases =
      input.phase === undefined
        ? []
        : [...new Set((await cachedListings(input.market_hash_name, null)).map((row) => row.phase ?? 'no phase'))];
    const message =
      otherPhases.length > 0
        ? `No listing of this name in ${input.phase} in the local catalog; it is on sale in ${otherPhases.join(', ')}: choose one of those, or Any phase.`
        : `No listing named ${input.market_hash_name} in the local catalog: check the name (pick it from the suggestions).`;
    return { candidate: null, warnings: [{ code: 'no-local-match', message }, ...recipientWarnings] };
  }
  const warnings = await checkBuy({ itemId: match.itemId, assetId: match.assetId, price: match.price, ...common });
  return { warnings, candidate: match };
}

/** The local catalog's listings of exactly this name (and phase, unless null), cheapest first. */
async function cachedListings(name: string, phase: string | null): Promise<CatalogRow[]> {
  const page = await unwrap(
    api().catalog.query({
      search: nameSearchText(name),
      phase,
      sort: 'price',
      direction: 'asc',
      offset: 0,
      limit: 400,
    }),
  );
  return page.rows.filter(
    (row) => nameKey(row.market_hash_name) === nameKey(name) && (phase === null || row.phase === phase),
  );
}

function remember(input: BuyByIdInput | BuyByNameInput) {
  writePref('lastRecipient', 'recipientId' in input.recipient ? input.recipient.recipientId : null);
}

/** A successful buy: toast, close the dialog, open the new trade. */
export function onBought(outcome: BuyOutcome): void {
  if (!outcome.ok) return;
  const t = outcome.trade;
  toast('success', `Bought ${t.market_hash_name}`, `${formatCents(t.price)} · trade ${t.tradeId} is ${t.status}`, {
    type: 'trade',
    tradeId: t.tradeId,
  });
  closeDialog();
  navigate('trades', t.tradeId);
  selectTrade(t.tradeId);
}

export async function buyById(input: BuyByIdInput): Promise<BuyOutcome> {
  const outcome = await unwrap(api().buy.byId(input));
  if (outcome.ok) {
    remember(input);
    onBought(outcome);
  }
  return outcome;
}

export async function buyByName(input: BuyByNameInput): Promise<BuyOutcome> {
  const outcome = await unwrap(api().buy.byName(input));
  if (outcome.ok) {
    remember(input);
    onBought(outcome);
  }
  return outcome;
}
