/**
 * Deep links: `merchantdesk://trade/<tradeId>`, `order/<externalId>`, `item/<itemId>` and `search?<filters>`, and
 * the web host's hash routes of the same places (`#/trade/<id>`, …), read into a typed target or a typed refusal.
 * The grammar is strict on purpose: a link comes from outside (a chat, a web page, another program), so anything
 * but the exact forms below is refused with a reason, never half-understood. A link only says where to go: what it
 * opens is a screen (never a buy, never a setting). Refusal reasons never quote the link whole (they may be
 * logged); `describeLink` is the form for logs.
 *
 * This module reads a link's form only and bundles no zod (the renderer imports it): a search link's filters are
 * checked against the saved-search schema in main, by shared/ipc/deepLinks (`parseDeepLink`, the `links.search` call).
 */
import { formatNumberList, parseNumberList, CHARM_PATTERN_MAX, SEED_MAX } from './filters';
import type { SavedSearchQuery } from './ipc/catalogSchemas';

export const DEEP_LINK_SCHEME = 'merchantdesk';
/** Longer links are refused (a saved search with hundreds of seeds fits; a flood does not). */
export const MAX_LINK_LENGTH = 4096;
/** More `key=value` pairs than any search can have (20 sticker names, 10 colours, 5 wears, 22 single filters). */
const MAX_SEARCH_PARAMS = 80;

export const LINK_KINDS = ['trade', 'order', 'item', 'search'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

export type DeepLinkTarget =
  | { type: 'trade'; tradeId: string }
  | { type: 'item'; itemId: number }
  | { type: 'order'; externalId: string }
  /** The catalog with these filters and sort (shown, not saved). */
  | { type: 'search'; query: SavedSearchQuery };

export type DeepLinkResult = { ok: true; target: DeepLinkTarget } | { ok: false; reason: string };

/** A search link's filters as its pairs give them, not yet checked against the saved-search schema. */
export type SearchLinkInput = Partial<Record<keyof SavedSearchQuery, unknown>>;

/**
 * A link as read by its form: a search's filters are raw (`params`: the text after `?`; `input`: its pairs read)
 * until main checks them.
 */
export type LinkReading =
  | {
      ok: true;
      target: Exclude<DeepLinkTarget, { type: 'search' }> | { type: 'search'; params: string; input: SearchLinkInput };
    }
  | { ok: false; reason: string };

/** What main answers for a search link's filters (`links.search`). */
export type SearchLinkResult = { ok: true; query: SavedSearchQuery } | { ok: false; reason: string };

/**
 * Trade and order ids as the API and this app issue them (UUIDs, `md-<uuid>`, a merchant's order numbers):
 * letters, digits and `. _ : -`, starting with a letter or digit. No `%` (no encoded tricks), `/`, `\` or spaces.
 */
const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** Item ids are positive integers, written plainly. */
const ITEM_ID = /^[1-9]\d{0,15}$/;
/** Printable ASCII only: controls, spaces, DEL and non-ASCII (look-alikes, bidi marks) must be percent-encoded. */
const PRINTABLE = /^[\x21-\x7e]*$/;
/** A number as JavaScript writes one (`String(n)`: up to 21 digits, then exponents). */
const NUMBER = /^-?\d{1,21}(?:\.\d{1,24})?(?:e[-+]?\d{1,3})?$/i;
// eslint-disable-next-line no-control-regex -- the controls are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** Reads a `merchantdesk://…` link's form (a search's filters stay unchecked: see parseDeepLink). Never throws. */
export function readDeepLink(link: unknown): LinkReading {
  if (typeof link !== 'string' || link === '') return refuse('The link is empty.');
  if (link.length > MAX_LINK_LENGTH) return refuse(`The link is too long (at most ${MAX_LINK_LENGTH} characters).`);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(link)?.[1];
  if (scheme?.toLowerCase() !== DEEP_LINK_SCHEME)
    return refuse(`This is not a Merchant Desk link (one starts with ${DEEP_LINK_SCHEME}://).`);
  if (!PRINTABLE.test(link)) return refuse('The link holds spaces, control or non-ASCII characters.');
  if (link.includes('\\')) return refuse('The link holds a backslash.');
  const rest = link.slice(scheme.length + 1);
  if (!rest.startsWith('//')) return refuse(`A Merchant Desk link starts with ${DEEP_LINK_SCHEME}://.`);
  if (rest.includes('#')) return refuse('A Merchant Desk link has no #fragment.');
  const queryAt = rest.indexOf('?');
  const beforeQuery = queryAt < 0 ? rest.slice(2) : rest.slice(2, queryAt);
  const query = queryAt < 0 ? null : rest.slice(queryAt + 1);
  const slash = beforeQuery.indexOf('/');
  const place = slash < 0 ? beforeQuery : beforeQuery.slice(0, slash);
  const path = slash < 0 ? '' : beforeQuery.slice(slash);
  if (place.includes('@')) return refuse('A Merchant Desk link never carries a user name or password.');
  const kind = LINK_KINDS.find((k) => k === place.toLowerCase());
  if (!kind)
    return refuse(
      place === ''
        ? 'The link names no place (trade/…, order/…, item/… or search?…).'
        : `Unknown place “${short(place)}”: a link opens trade/…, order/…, item/… or search?….`,
    );
  if (kind === 'search') {
    if (path !== '' && path !== '/') return refuse('A search link is merchantdesk://search?filters, with no path.');
    return readSearch(query ?? '');
  }
  if (query !== null) return refuse(`A ${kind} link takes no ?query.`);
  // One segment; a trailing slash is tolerated (Windows adds one to links it passes on).
  const segment = /^\/([^/]*)\/?$/.exec(path)?.[1];
  if (segment === undefined || segment === '') return refuse(`The ${kind} link names no ${idName(kind)}.`);
  if (kind === 'item') {
    const itemId = Number(segment);
    if (!ITEM_ID.test(segment) || !Number.isSafeInteger(itemId))
      return refuse('An item id is a positive whole number.');
    return { ok: true, target: { type: 'item', itemId } };
  }
  if (!ID.test(segment) || segment.includes('..'))
    return refuse(`${capital(idName(kind))}s are letters, digits and . _ : - (up to 128 characters).`);
  return {
    ok: true,
    target: kind === 'trade' ? { type: 'trade', tradeId: segment } : { type: 'order', externalId: segment },
  };
}

/**
 * The web host's routes of the same places: `#/trade/<id>`, `#/order/<id>`, `#/item/<id>`, `#/search?…`.
 * @returns null when the hash is not one of them (a screen's own route such as `#/trades/<id>`).
 */
export function readHashRoute(hash: string): LinkReading | null {
  const route = hash.replace(/^#/, '');
  const first = /^\/([A-Za-z]+)(?:[/?]|$)/.exec(route)?.[1]?.toLowerCase();
  if (!LINK_KINDS.some((k) => k === first)) return null;
  return readDeepLink(`${DEEP_LINK_SCHEME}:/${route}`);
}

/** The link of a place (what "copy link" would give): `merchantdesk://…`. */
export function deepLinkOf(target: DeepLinkTarget): string {
  return `${DEEP_LINK_SCHEME}://${routeOf(target)}`;
}

/** The web host's route of a place: `#/…`. */
export function hashRouteOf(target: DeepLinkTarget): string {
  return `#/${routeOf(target)}`;
}

/** For the log: the kind and length of a link, never its text (it may hold anything). */
export function describeLink(link: string): string {
  const place = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([A-Za-z]+)/.exec(link)?.[1]?.toLowerCase();
  const kind = LINK_KINDS.find((k) => k === place) ?? 'unknown';
  return `${kind} link (${link.length} characters)`;
}

/** Ids go in as they are: the id grammar needs no encoding (and a link with an encoded id is refused). */
function routeOf(target: DeepLinkTarget): string {
  switch (target.type) {
    case 'trade':
      return `trade/${target.tradeId}`;
    case 'order':
      return `order/${target.externalId}`;
    case 'item':
      return `item/${target.itemId}`;
    case 'search': {
      const query = searchQueryString(target.query);
      return query === '' ? 'search' : `search?${query}`;
    }
  }
}

type ParamKind = 'text' | 'number' | 'bool' | 'list' | 'seeds' | 'charmPatterns';

/** How each field of a saved search's query is written in a link (the compiler keeps it complete). */
const SEARCH_PARAMS = {
  search: 'text',
  priceMin: 'number',
  priceMax: 'number',
  rarityColors: 'list',
  floatMin: 'number',
  floatMax: 'number',
  phase: 'text',
  statTrak: 'bool',
  souvenir: 'bool',
  hasStickers: 'bool',
  stickerName: 'text',
  seeds: 'seeds',
  wears: 'list',
  hasCharm: 'bool',
  charmName: 'text',
  charmPatterns: 'charmPatterns',
  stickerCountMin: 'number',
  sameStickerMin: 'number',
  stickerNames: 'list',
  excludeWords: 'text',
  discountMin: 'number',
  floatRankMax: 'number',
  listingsMin: 'number',
  sort: 'text',
  direction: 'text',
} as const satisfies Record<keyof SavedSearchQuery, ParamKind>;
type SearchParam = keyof typeof SEARCH_PARAMS;

const isSearchParam = (key: string): key is SearchParam => Object.hasOwn(SEARCH_PARAMS, key);

/**
 * `priceMax=1500&wears=FN&wears=MW&seeds=1-25,661&statTrak=true`: one pair per filter that differs from an empty
 * search (lists repeat their key). Unknown keys are refused rather than skipped: a link from a newer version with a
 * filter this one lacks would otherwise show more items than the sender meant.
 */
function readSearch(params: string): LinkReading {
  const pairs = params.split('&').filter((pair) => pair !== '');
  if (pairs.length > MAX_SEARCH_PARAMS) return refuse(`A search link has at most ${MAX_SEARCH_PARAMS} filters.`);
  const input: SearchLinkInput = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    const key = equals < 0 ? pair : pair.slice(0, equals);
    if (!isSearchParam(key)) return refuse(`The search link has an unknown filter “${short(key)}”.`);
    if (equals < 0) return refuse(`The search link's filter “${key}” has no value.`);
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(equals + 1).replace(/\+/g, ' '));
    } catch {
      return refuse(`The search link's filter “${key}” is not properly %-encoded.`);
    }
    if (CONTROL.test(value)) return refuse(`The search link's filter “${key}” holds control characters.`);
    const kind: ParamKind = SEARCH_PARAMS[key];
    if (kind === 'list') {
      const list = input[key];
      input[key] = Array.isArray(list) ? [...(list as unknown[]), value] : [value];
      continue;
    }
    if (key in input) return refuse(`The search link gives the filter “${key}” twice.`);
    if (kind === 'text') input[key] = value;
    else if (kind === 'bool') {
      if (value !== 'true' && value !== 'false') return refuse(`The search link's “${key}” is true or false.`);
      input[key] = value === 'true';
    } else if (kind === 'number') {
      if (!NUMBER.test(value)) return refuse(`The search link's “${key}” is not a number.`);
      input[key] = Number(value);
    } else {
      const ranges = parseNumberList(value, kind === 'seeds' ? SEED_MAX : CHARM_PATTERN_MAX);
      if (!ranges.ok) return refuse(`The search link's “${key}”: ${ranges.error}.`);
      input[key] = ranges.ranges;
    }
  }
  return { ok: true, target: { type: 'search', params, input } };
}

/** An empty search: the saved-search schema's parse of `{}` (written out so this module needs no zod; a test keeps them equal). */
export const EMPTY_SEARCH_QUERY: SavedSearchQuery = {
  search: '',
  priceMin: null,
  priceMax: null,
  rarityColors: [],
  floatMin: null,
  floatMax: null,
  phase: null,
  statTrak: null,
  souvenir: null,
  hasStickers: null,
  stickerName: '',
  seeds: [],
  wears: [],
  hasCharm: null,
  charmName: '',
  charmPatterns: [],
  stickerCountMin: null,
  sameStickerMin: null,
  stickerNames: [],
  excludeWords: '',
  discountMin: null,
  floatRankMax: null,
  listingsMin: null,
  sort: 'price',
  direction: 'asc',
};

/** A saved search's query as a link's query string (only what differs from an empty search). */
export function searchQueryString(query: SavedSearchQuery): string {
  const pairs: string[] = [];
  for (const key of Object.keys(SEARCH_PARAMS) as SearchParam[]) {
    const value = query[key];
    if (JSON.stringify(value) === JSON.stringify(EMPTY_SEARCH_QUERY[key])) continue;
    const kind: ParamKind = SEARCH_PARAMS[key];
    const put = (text: string) => pairs.push(`${key}=${encodeURIComponent(text)}`);
    if (kind === 'list') for (const entry of value as readonly string[]) put(entry);
    else if (kind === 'seeds' || kind === 'charmPatterns')
      put(formatNumberList(value as readonly [number, number][]).replace(/ /g, ''));
    else if (value !== null) put(String(value));
  }
  return pairs.join('&');
}

function idName(kind: Exclude<LinkKind, 'search'>): string {
  return kind === 'trade' ? 'trade id' : kind === 'order' ? 'order id' : 'item id';
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A piece of the link quoted in a reason: short, so a reason never carries the link. */
function short(text: string): string {
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}
