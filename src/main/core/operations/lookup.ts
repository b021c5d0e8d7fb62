/**
 * Order look-up for support: one text (an order id, trade id, trade URL or partner id, a player's steam id or profile
 * URL, offer id, or a part of an item's name) finds the trades in the local history, so it answers offline too. What
 * the text can be decides which keys are searched: a trade URL or a profile URL only its partner; a trade offer's URL
 * only its offer id; digits every id and the partner (a 17-digit steam id: its account id); other text every id and
 * the name.
 */
import { accountIdOf, parseTradeUrl } from '../../../shared/api';
import type { LookupKey, OrderLookupResult } from '../../../shared/ipc';
import type { LocalStore } from '../store';
import type { LookupKeys } from '../store/worker/orderLookup';

/** The trades shown at most, newest first. */
export const LOOKUP_LIMIT = 50;
/** A trade offer's own page: https://steamcommunity.com/tradeoffer/<offer id>/ */
const OFFER_URL = /^https?:\/\/steamcommunity\.com\/tradeoffer\/(\d{1,20})\/?(?:[?#].*)?$/i;
/** A player's profile by steam id: https://steamcommunity.com/profiles/<17 digits>/ */
const PROFILE_URL = /^https?:\/\/steamcommunity\.com\/profiles\/(\d{17})\/?(?:[?#].*)?$/i;

/** The keys a look-up text is searched by. */
export function lookupKeys(text: string): LookupKeys {
  const none: LookupKeys = { tradeId: null, externalId: null, offerId: null, partner: null, name: null };
  const tradeUrl = parseTradeUrl(text);
  if (tradeUrl) return { ...none, partner: tradeUrl.partner };
  const offer = OFFER_URL.exec(text);
  if (offer) return { ...none, offerId: offer[1] as string };
  const profile = accountIdOf(PROFILE_URL.exec(text)?.[1] ?? '');
  if (profile !== null) return { ...none, partner: String(profile) };
  const ids = { tradeId: text, externalId: text, offerId: text };
  if (/^\d{1,10}$/.test(text)) return { ...none, ...ids, partner: String(Number(text)) };
  const steamAccount = accountIdOf(text);
  if (steamAccount !== null) return { ...none, ...ids, partner: String(steamAccount) };
  return { ...none, ...ids, name: text.length >= 2 ? text : null };
}

export async function lookupOrders(store: LocalStore, query: string): Promise<OrderLookupResult> {
  const keys = lookupKeys(query);
  const searched = (Object.keys(keys) as (keyof LookupKeys)[]).filter((key) => keys[key] !== null) as LookupKey[];
  const { hits, truncated } = await store.lookupTrades(keys, LOOKUP_LIMIT);
  return { query, searched, hits, truncated, limit: LOOKUP_LIMIT };
}
