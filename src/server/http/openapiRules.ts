import type { EndpointName } from '../../shared/api';
import {
  HISTORY_DEFAULT_LIMIT,
  HISTORY_DEFAULT_PAGE,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_TRADE_URL_LENGTH,
  SEARCH_MAX_ITEM_IDS,
  SEARCH_MAX_NAMES,
  TRADE_DURATION_DEFAULT_SECONDS,
  TRADE_DURATION_MAX_SECONDS,
  TRADE_DURATION_MIN_SECONDS,
} from '../../shared/api';

/**
 * What the zod shapes of src/shared/api cannot show in JSON Schema: the value checks that have
 * their own error codes (price > 0, the duration range, the trade URL format), cross-field rules
 * (exactly one search field, itemId with assetId) and formats. The sandbox enforces each of them
 * (requests.ts); this only states them, so that a request valid by the document is accepted.
 * test/server/openapi-requests.test.ts sends requests generated from the document to hold it to that.
 */

type JsonSchema = Record<string, unknown>;

/** Account ids are 1 to 4294967295 (unsigned 32-bit, 0 is no account): spelled out digit by digit. */
const PARTNER_PATTERN =
  '(?:[1-9]\\d{0,8}|[1-3]\\d{9}|4[01]\\d{8}|42[0-8]\\d{7}|429[0-3]\\d{6}|4294[0-8]\\d{5}|42949[0-5]\\d{4}|429496[0-6]\\d{3}|4294967[01]\\d{2}|42949672[0-8]\\d|429496729[0-5])';
export const TRADE_URL_DOCUMENTED_PATTERN = `^https://steamcommunity\\.com/tradeoffer/new/\\?partner=${PARTNER_PATTERN}&token=[A-Za-z0-9_-]{8}$`;

/** A query timestamp in UTC, seconds with up to 3 decimals; `format: date-time` adds real calendar days. */
export const QUERY_TIMESTAMP_DOCUMENTED_PATTERN =
  '^\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,3})?Z$';

const utf16 = (max: number) =>
  `at most ${max} UTF-16 code units (a character outside the Basic Multilingual Plane counts as 2)`;

const tradeUrl: JsonSchema = {
  pattern: TRADE_URL_DOCUMENTED_PATTERN,
  description: `Recipient's trade URL, https://steamcommunity.com/tradeoffer/new/?partner=<1..4294967295>&token=<8 of A-Z a-z 0-9 _ ->; otherwise 400 invalid_tradeurl. At most ${MAX_TRADE_URL_LENGTH} characters.`,
};

const tradeDurationSeconds: JsonSchema = {
  minimum: TRADE_DURATION_MIN_SECONDS,
  maximum: TRADE_DURATION_MAX_SECONDS,
  default: TRADE_DURATION_DEFAULT_SECONDS,
  description: `Seconds the recipient has to accept before auto-cancel; outside ${TRADE_DURATION_MIN_SECONDS}..${TRADE_DURATION_MAX_SECONDS} is 400 invalid_trade_duration.`,
};

const externalId: JsonSchema = {
  description: `Merchant's order id, unique per merchant (else 400 duplicate_external_id), ${utf16(MAX_EXTERNAL_ID_LENGTH)}; or null.`,
};

const assetId = (rule: string): JsonSchema => ({ description: `${rule} ${utf16(MAX_ID_LENGTH)}.` });

const name = (what: string): JsonSchema => ({ description: `${what}, ${utf16(MAX_NAME_LENGTH)}.` });

export interface BodyRules {
  /** Keywords added to the body schema itself. */
  schema?: JsonSchema;
  /** Keywords added to single properties. */
  properties?: Record<string, JsonSchema>;
}

export const BODY_RULES: Partial<Record<EndpointName, BodyRules>> = {
  searchItems: {
    schema: {
      description: 'Exactly one of market_hash_name and itemId; neither or both is 400 invalid_request.',
      oneOf: [{ required: ['market_hash_name'] }, { required: ['itemId'] }],
    },
    properties: {
      market_hash_name: {
        description: `Up to ${SEARCH_MAX_NAMES} full market hash names, each ${utf16(MAX_NAME_LENGTH)}.`,
      },
      itemId: { description: `Up to ${SEARCH_MAX_ITEM_IDS} positive item ids.` },
    },
  },
  buy: {
    properties: {
      itemId: { description: 'Item id from the on-sale list.' },
      assetId: assetId('Must match the item (else 400 asset_mismatch),'),
      price: {
        minimum: 1,
        description:
          'Expected price in USD cents, greater than 0 (else 400 invalid_price); a changed price is 400 price_changed.',
      },
      tradeUrl,
      externalId,
      tradeDurationSeconds,
    },
  },
  buyByName: {
    schema: {
      description: 'itemId and assetId are sent together or not at all (else 400 invalid_request).',
      dependentRequired: { itemId: ['assetId'], assetId: ['itemId'] },
    },
    properties: {
      market_hash_name: name('Full market hash name'),
      phase: name('Phase filter, used only without itemId'),
      maxPrice: {
        minimum: 1,
        description:
          'Highest price in USD cents, greater than 0 (else 400 invalid_price); a dearer item is 400 price_too_high.',
      },
      tradeUrl,
      externalId,
      tradeDurationSeconds,
      itemId: { description: 'Targets one item; requires assetId.' },
      assetId: assetId('Requires itemId; must match the item,'),
    },
  },
};

const timestamp = (rule: string): JsonSchema => ({
  pattern: QUERY_TIMESTAMP_DOCUMENTED_PATTERN,
  format: 'date-time',
  description: `${rule} ISO 8601 in UTC with a Z, milliseconds optional (2026-01-02T03:04:05Z or 2026-01-02T03:04:05.678Z), a real calendar date.`,
});

const paging: Record<string, JsonSchema> = {
  from: timestamp('Created at or after this time; must not be after `to` (else 400 invalid_request).'),
  to: timestamp('Created at or before this time; must not be before `from` (else 400 invalid_request).'),
  limit: { default: HISTORY_DEFAULT_LIMIT, description: 'Results per page.' },
  page: { default: HISTORY_DEFAULT_PAGE, description: 'Page number, from 1.' },
};

export interface QueryRules {
  /** Rules between parameters, which a parameter's own schema cannot hold. */
  description: string;
  parameters: Record<string, JsonSchema>;
}

export const QUERY_RULES: Partial<Record<EndpointName, QueryRules>> = {
  tradeHistory: {
    description:
      'Between parameters: `from` must not be after `to`; `isActive=true` cannot be combined with `from` or `to`; with `isActive=true`, `limit` and `page` are ignored. Each broken rule is 400 invalid_request.',
    parameters: {
      ...paging,
      tradeId: { description: 'Exact trade id.' },
      externalId: { description: "Exact merchant's order id." },
      isActive: {
        description:
          '`true`: every trade created within the last 14 days, unpaged; cannot be combined with `from` or `to`.',
      },
    },
  },
  balanceHistory: {
    description: 'Between parameters: `from` must not be after `to` (else 400 invalid_request).',
    parameters: { ...paging, tradeId: { description: 'Exact trade id.' } },
  },
};
