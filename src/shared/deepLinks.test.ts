import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deepLinkOf,
  describeLink,
  EMPTY_SEARCH_QUERY,
  hashRouteOf,
  MAX_LINK_LENGTH,
  readHashRoute,
  type DeepLinkResult,
  type DeepLinkTarget,
} from './deepLinks';
import { parseNumberList, WEARS } from './filters';
import { savedSearchQuerySchema, type SavedSearchQuery } from './ipc/contract';
import { parseDeepLink, parseHashRoute, parseSearchLink } from './ipc/deepLinks';

const TRADE_ID = '3f1c2a9e-7b44-4e0a-9d51-0c6a2b8e4f10';
const empty = savedSearchQuerySchema.parse({});
const search = (patch: Partial<SavedSearchQuery>): DeepLinkTarget => ({
  type: 'search',
  query: { ...empty, ...patch },
});

const target = (result: DeepLinkResult): DeepLinkTarget => {
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.target;
};
const reason = (result: DeepLinkResult): string => {
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.target)}`);
  return result.reason;
};

describe('parseDeepLink: the routes', () => {
  it.each<[string, DeepLinkTarget]>([
    [`merchantdesk://trade/${TRADE_ID}`, { type: 'trade', tradeId: TRADE_ID }],
    [`merchantdesk://trade/${TRADE_ID}/`, { type: 'trade', tradeId: TRADE_ID }],
    [`MerchantDesk://TRADE/${TRADE_ID}`, { type: 'trade', tradeId: TRADE_ID }],
    ['merchantdesk://order/md-0c6a2b8e', { type: 'order', externalId: 'md-0c6a2b8e' }],
    ['merchantdesk://order/PO:2026.11_7', { type: 'order', externalId: 'PO:2026.11_7' }],
    ['merchantdesk://item/42', { type: 'item', itemId: 42 }],
    ['merchantdesk://item/9007199254740991', { type: 'item', itemId: Number.MAX_SAFE_INTEGER }],
    ['merchantdesk://search', search({})],
    ['merchantdesk://search/', search({})],
    ['merchantdesk://search?', search({})],
    ['merchantdesk://search?search=AK-47+Redline', search({ search: 'AK-47 Redline' })],
    ['merchantdesk://search?search=M4A1-S%20%7C%20Printstream', search({ search: 'M4A1-S | Printstream' })],
    [
      'merchantdesk://search?priceMin=100&priceMax=1500&wears=FN&wears=MW&statTrak=true&seeds=661,1-25&sort=float&direction=desc',
      search({
        priceMin: 100,
        priceMax: 1500,
        wears: ['FN', 'MW'],
        statTrak: true,
        seeds: [
          [1, 25],
          [661, 661],
        ],
        sort: 'float',
        direction: 'desc',
      }),
    ],
    [
      'merchantdesk://search?floatMax=0.07&hasCharm=false&stickerNames=Crown+(Foil)&stickerNames=Titan&charmPatterns=100000&phase=Ruby',
      search({
        floatMax: 0.07,
        hasCharm: false,
        stickerNames: ['Crown (Foil)', 'Titan'],
        charmPatterns: [[100000, 100000]],
        phase: 'Ruby',
      }),
    ],
  ])('%s', (link, expected) => {
    expect(target(parseDeepLink(link))).toEqual(expected);
  });
});

describe('parseDeepLink: hostile and malformed links are refused with a reason', () => {
  it.each<[string, string | RegExp]>([
    ['', /empty/],
    ['javascript:alert(1)//merchantdesk://trade/1', /not a Merchant Desk link/],
    ['JAVASCRIPT:merchantdesk://item/1', /not a Merchant Desk link/],
    ['https://merchantdesk/trade/1', /not a Merchant Desk link/],
    ['file:///etc/passwd', /not a Merchant Desk link/],
    ['data:text/html,<script>', /not a Merchant Desk link/],
    ['merchantdesk:trade/1', /starts with merchantdesk:\/\//],
    ['merchantdesk:/trade/1', /starts with merchantdesk:\/\//],
    ['merchantdesk://', /names no place/],
    ['merchantdesk://settings', /Unknown place “settings”/],
    ['merchantdesk://buy/42', /Unknown place “buy”/],
    ['merchantdesk://trades/1', /Unknown place “trades”/],
    ['merchantdesk://user:pass@trade/1', /user name or password/],
    ['merchantdesk://@trade/1', /user name or password/],
    ['merchantdesk://trade:8080/1', /Unknown place/],
    ['merchantdesk://trade', /names no trade id/],
    ['merchantdesk://trade/', /names no trade id/],
    ['merchantdesk://trade//', /names no trade id/],
    ['merchantdesk://trade/a/b', /names no trade id/],
    ['merchantdesk://trade/..', /letters, digits/],
    ['merchantdesk://trade/a..b', /letters, digits/],
    ['merchantdesk://trade/../settings', /names no trade id/],
    ['merchantdesk://trade/%2e%2e', /letters, digits/],
    ['merchantdesk://trade/%252e', /letters, digits/],
    ['merchantdesk://trade/abc%00', /letters, digits/],
    ['merchantdesk://trade/-abc', /letters, digits/],
    [`merchantdesk://trade/${'a'.repeat(129)}`, /up to 128/],
    ['merchantdesk://trade/a\\b', /backslash/],
    ['merchantdesk://trade/1?buy=1', /takes no \?query/],
    ['merchantdesk://trade/1#x', /no #fragment/],
    ['merchantdesk://trade/a b', /spaces, control/],
    ['merchantdesk://trade/a\u0000b', /spaces, control/],
    ['merchantdesk://trade/a\nb', /spaces, control/],
    ['merchantdesk://trade/\u202eabc', /non-ASCII/],
    ['merchantdesk://trade/аbc', /non-ASCII/],
    ['merchantdesk://order/<script>', /Order ids are letters/],
    ['merchantdesk://order/a;rm', /Order ids are letters/],
    ['merchantdesk://item/0', /positive whole number/],
    ['merchantdesk://item/-1', /positive whole number/],
    ['merchantdesk://item/007', /positive whole number/],
    ['merchantdesk://item/1.5', /positive whole number/],
    ['merchantdesk://item/1e3', /positive whole number/],
    ['merchantdesk://item/99999999999999999', /positive whole number/],
    ['merchantdesk://item/abc', /positive whole number/],
    ['merchantdesk://search/x', /no path/],
    ['merchantdesk://search?autoBuy=true', /unknown filter “autoBuy”/],
    ['merchantdesk://search?__proto__=x', /unknown filter/],
    ['merchantdesk://search?constructor=x', /unknown filter/],
    ['merchantdesk://search?offset=5', /unknown filter “offset”/],
    ['merchantdesk://search?search', /has no value/],
    ['merchantdesk://search?search=%E0%A4%A', /%-encoded/],
    ['merchantdesk://search?search=a%0Ab', /control characters/],
    ['merchantdesk://search?priceMax=1&priceMax=2', /twice/],
    ['merchantdesk://search?priceMax=ten', /not a number/],
    ['merchantdesk://search?priceMax=0x10', /not a number/],
    ['merchantdesk://search?priceMax=1.5', /priceMax/],
    ['merchantdesk://search?priceMax=-1', /priceMax/],
    ['merchantdesk://search?floatMin=2', /floatMin/],
    ['merchantdesk://search?statTrak=yes', /true or false/],
    ['merchantdesk://search?seeds=1000', /past 999/],
    ['merchantdesk://search?wears=XX', /wears/],
    ['merchantdesk://search?sort=drop_table', /sort/],
    [`merchantdesk://search?${'search=a&'.repeat(81)}`, /at most 80 filters/],
    [`merchantdesk://search?search=${'a'.repeat(MAX_LINK_LENGTH)}`, /too long/],
  ])('%j', (link, expected) => {
    expect(reason(parseDeepLink(link))).toMatch(expected);
  });

  it('refuses what is not a string without throwing', () => {
    for (const value of [null, undefined, 42, {}, ['merchantdesk://item/1']])
      expect(parseDeepLink(value).ok).toBe(false);
  });
});

/** Every place a link can name (the ids as the API and the app issue them). */
const targets: fc.Arbitrary<DeepLinkTarget> = fc.oneof(
  fc.uuid().map((tradeId) => ({ type: 'trade' as const, tradeId })),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_:-]{0,60}$/).map((externalId) => ({ type: 'order' as const, externalId })),
  fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }).map((itemId) => ({ type: 'item' as const, itemId })),
  fc
    .record(
      {
        // eslint-disable-next-line no-control-regex -- a search text has no controls
        search: fc.string({ maxLength: 40 }).filter((s) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s)),
        priceMin: fc.option(fc.integer({ min: 0, max: 1e9 })),
        floatMax: fc.option(fc.double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true })),
        statTrak: fc.option(fc.boolean()),
        wears: fc.uniqueArray(fc.constantFrom(...WEARS)),
        stickerNames: fc.array(fc.stringMatching(/^[A-Za-z0-9&|() ,.'-]*[A-Za-z0-9]$/), { maxLength: 4 }),
        seeds: fc.uniqueArray(fc.integer({ min: 0, max: 999 }), { maxLength: 6 }),
        direction: fc.constantFrom('asc' as const, 'desc' as const),
      },
      { requiredKeys: [] },
    )
    .map((patch) => {
      const { seeds, floatMax, ...rest } = patch;
      const query = savedSearchQuerySchema.parse({
        ...rest,
        // -0 and 0 are the same filter; the link writes both as 0.
        ...(floatMax !== undefined ? { floatMax: floatMax === null ? null : Math.abs(floatMax) } : {}),
        // Seeds as a saved search holds them: parsed, sorted and merged.
        ...(seeds ? { seeds: rangesOf(seeds) } : {}),
      });
      return { type: 'search' as const, query };
    }),
);

describe('properties', () => {
  it('a place written as a link (and as a hash route) reads back as the same place', () => {
    fc.assert(
      fc.property(targets, (place) => {
        expect(target(parseDeepLink(deepLinkOf(place)))).toEqual(place);
        expect(target(parseHashRoute(hashRouteOf(place)) ?? { ok: false, reason: 'not a route' })).toEqual(place);
      }),
    );
  });

  it('never throws, and a refusal never quotes a link longer than a short piece', () => {
    const hostile = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 200 }).map((s) => `merchantdesk://${s}`),
      fc
        .tuple(fc.constantFrom(...['trade', 'order', 'item', 'search', 'TRADE', 'x']), fc.string({ maxLength: 100 }))
        .map(([kind, rest]) => `merchantdesk://${kind}/${rest}`),
      fc.string({ maxLength: 200 }).map((s) => `merchantdesk://search?${s}`),
    );
    fc.assert(
      fc.property(hostile, (link) => {
        const result = parseDeepLink(link);
        if (!result.ok) {
          expect(result.reason.length).toBeLessThan(200);
          if (link.length > 40) expect(result.reason).not.toContain(link);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('an accepted trade or order id is one plain segment: no path, encoding or credentials get through', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (id) => {
        const result = parseDeepLink(`merchantdesk://trade/${id}`);
        if (result.ok && result.target.type === 'trade') {
          expect(result.target.tradeId).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/);
          expect(result.target.tradeId).not.toContain('..');
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseHashRoute', () => {
  it.each<[string, DeepLinkTarget]>([
    [`#/trade/${TRADE_ID}`, { type: 'trade', tradeId: TRADE_ID }],
    ['#/order/md-1', { type: 'order', externalId: 'md-1' }],
    ['#/item/7', { type: 'item', itemId: 7 }],
    ['#/search?priceMax=500&wears=FN', search({ priceMax: 500, wears: ['FN'] })],
    ['#/search', search({})],
  ])('%s opens its place', (hash, expected) => {
    expect(target(parseHashRoute(hash) ?? { ok: false, reason: 'not a route' })).toEqual(expected);
  });

  it("leaves the screens' own routes alone", () => {
    for (const hash of ['', '#', '#/', '#/catalog', '#/trades', `#/trades/${TRADE_ID}`, '#/settings', '#/searches'])
      expect(parseHashRoute(hash)).toBeNull();
  });

  it('refuses a bad route of a link place', () => {
    expect(reason(parseHashRoute('#/trade/') ?? { ok: true, target: search({}) })).toMatch(/names no trade id/);
    expect(reason(parseHashRoute('#/item/x') ?? { ok: true, target: search({}) })).toMatch(/positive whole number/);
    expect(reason(parseHashRoute('#/trade/../settings') ?? { ok: true, target: search({}) })).toMatch(/trade id/);
    expect(reason(parseHashRoute('#/search?buy=1') ?? { ok: true, target: search({}) })).toMatch(/unknown filter/);
  });
});

describe('the split: the form is read without zod, a search is checked in main', () => {
  it("the empty search written out is the schema's parse of {}", () => {
    expect(EMPTY_SEARCH_QUERY).toEqual(savedSearchQuerySchema.parse({}));
  });

  it('reads a search route into its raw filters and leaves checking them to main', () => {
    expect(readHashRoute('#/search?floatMin=2&wears=FN')).toEqual({
      ok: true,
      target: { type: 'search', params: 'floatMin=2&wears=FN', input: { floatMin: 2, wears: ['FN'] } },
    });
    expect(reason(parseHashRoute('#/search?floatMin=2') ?? { ok: true, target: search({}) })).toMatch(
      /filters are not valid \(floatMin: /,
    );
  });

  it('refuses what needs no schema already while reading the form', () => {
    expect(readHashRoute('#/search?autoBuy=true')).toEqual({
      ok: false,
      reason: 'The search link has an unknown filter “autoBuy”.',
    });
    expect(readHashRoute('#/item/x')).toEqual({ ok: false, reason: 'An item id is a positive whole number.' });
  });

  it('parseSearchLink (links.search) answers the query or the same refusal as the whole link', () => {
    expect(parseSearchLink('priceMax=500&wears=FN')).toEqual({
      ok: true,
      query: { ...empty, priceMax: 500, wears: ['FN'] },
    });
    expect(parseSearchLink('')).toEqual({ ok: true, query: empty });
    for (const params of [
      'autoBuy=true',
      'floatMin=2',
      'statTrak=yes',
      'search=%E0%A4%A',
      'a#b',
      `search=${'x'.repeat(MAX_LINK_LENGTH)}`,
    ])
      expect(parseSearchLink(params)).toEqual(parseDeepLink(`merchantdesk://search?${params}`));
    expect(parseSearchLink('autoBuy=true')).toMatchObject({ ok: false, reason: /unknown filter “autoBuy”/ });
  });
});

describe('describeLink', () => {
  it('gives the kind and length, never the ids or filters', () => {
    expect(describeLink(`merchantdesk://trade/${TRADE_ID}`)).toBe('trade link (57 characters)');
    expect(describeLink('merchantdesk://search?search=secret-token')).toBe('search link (41 characters)');
    expect(describeLink('javascript:alert(document.cookie)')).toBe('unknown link (33 characters)');
    expect(describeLink('merchantdesk://search?search=secret-token')).not.toContain('secret');
  });
});

function rangesOf(numbers: number[]): readonly (readonly [number, number])[] {
  const parsed = parseNumberList(numbers.join(','));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.ranges;
}
