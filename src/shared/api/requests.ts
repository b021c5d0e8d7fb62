import { z } from 'zod';
import { isValidQueryTimestamp } from '../time';
import type { ApiErrorCode } from './enums';
import { tradeStatusSchema, transactionTypeSchema, webhookStatusSchema } from './enums';
import {
  HISTORY_MAX_LIMIT,
  SEARCH_MAX_ITEM_IDS,
  SEARCH_MAX_NAMES,
  TRADE_DURATION_MAX_SECONDS,
  TRADE_DURATION_MIN_SECONDS,
} from './limits';
import { isValidTradeUrl } from './tradeUrl';

/**
 * Request bodies and queries. Each body has a *shape* schema (types, required
 * fields, unknown fields refused → `invalid_request`) and an ordered list of
 * value checks, each with its own error code. The sandbox answers the first
 * failure in that order; the client runs the same list before sending.
 */

export interface RequestCheck<T> {
  code: ApiErrorCode;
  message: string;
  fails: (body: T) => boolean;
}

export function firstFailedCheck<T>(checks: readonly RequestCheck<T>[], body: T): RequestCheck<T> | null {
  return checks.find((check) => check.fails(body)) ?? null;
}

/** Shape schema plus its checks as one schema; a failed check's issue carries `params.apiError`. */
function withChecks<S extends z.ZodType>(shape: S, checks: readonly RequestCheck<z.output<S>>[]) {
  return shape.superRefine((body, ctx) => {
    for (const check of checks) {
      if (check.fails(body)) ctx.addIssue({ code: 'custom', message: check.message, params: { apiError: check.code } });
    }
  });
}

// Lengths the spec does not give; chosen generously (docs/sandbox.md).
export const MAX_NAME_LENGTH = 256;
export const MAX_EXTERNAL_ID_LENGTH = 128;
export const MAX_TRADE_URL_LENGTH = 512;
export const MAX_ID_LENGTH = 64;

const positiveId = z.int().positive();
const assetIdField = z.string().min(1).max(MAX_ID_LENGTH);
const externalIdField = z.string().min(1).max(MAX_EXTERNAL_ID_LENGTH).nullable().optional();
const tradeUrlField = z.string().max(MAX_TRADE_URL_LENGTH);
const tradeDurationField = z.int().optional();

function durationOutOfRange(seconds: number | undefined): boolean {
  return seconds !== undefined && (seconds < TRADE_DURATION_MIN_SECONDS || seconds > TRADE_DURATION_MAX_SECONDS);
}

// ---- POST /Items/SearchItems

export const searchItemsRequestSchema = z
  .strictObject({
    market_hash_name: z.array(z.string().min(1).max(MAX_NAME_LENGTH)).min(1).max(SEARCH_MAX_NAMES).optional(),
    itemId: z.array(positiveId).min(1).max(SEARCH_MAX_ITEM_IDS).optional(),
  })
  .refine((body) => (body.market_hash_name === undefined) !== (body.itemId === undefined), {
    message: 'give exactly one of market_hash_name and itemId',
  });
export type SearchItemsRequest = z.infer<typeof searchItemsRequestSchema>;

// ---- POST /Items/Buy

export const buyRequestShapeSchema = z.strictObject({
  itemId: positiveId,
  assetId: assetIdField,
  price: z.int(),
  tradeUrl: tradeUrlField,
  externalId: externalIdField,
  tradeDurationSeconds: tradeDurationField,
});
export type BuyRequest = z.infer<typeof buyRequestShapeSchema>;

export const buyRequestChecks: readonly RequestCheck<BuyRequest>[] = [
  { code: 'invalid_price', message: 'Price must be greater than 0', fails: (b) => b.price <= 0 },
  {
    code: 'invalid_trade_duration',
    message: `tradeDurationSeconds must be between ${TRADE_DURATION_MIN_SECONDS} and ${TRADE_DURATION_MAX_SECONDS}`,
    fails: (b) => durationOutOfRange(b.tradeDurationSeconds),
  },
  { code: 'invalid_tradeurl', message: 'Invalid trade URL format', fails: (b) => !isValidTradeUrl(b.tradeUrl) },
];
export const buyRequestSchema = withChecks(buyRequestShapeSchema, buyRequestChecks);

// ---- POST /Items/BuyByName

export const buyByNameRequestShapeSchema = z
  .strictObject({
    market_hash_name: z.string().min(1).max(MAX_NAME_LENGTH),
    phase: z.string().min(1).max(MAX_NAME_LENGTH).nullable().optional(),
    tradeUrl: tradeUrlField,
    maxPrice: z.int(),
    externalId: externalIdField,
    tradeDurationSeconds: tradeDurationField,
    itemId: positiveId.optional(),
    assetId: assetIdField.optional(),
  })
  .refine((body) => (body.itemId === undefined) === (body.assetId === undefined), {
    message: 'itemId and assetId must be sent together',
  });
export type BuyByNameRequest = z.infer<typeof buyByNameRequestShapeSchema>;

export const buyByNameRequestChecks: readonly RequestCheck<BuyByNameRequest>[] = [
  { code: 'invalid_price', message: 'maxPrice must be greater than 0', fails: (b) => b.maxPrice <= 0 },
  {
    code: 'invalid_trade_duration',
    message: `tradeDurationSeconds must be between ${TRADE_DURATION_MIN_SECONDS} and ${TRADE_DURATION_MAX_SECONDS}`,
    fails: (b) => durationOutOfRange(b.tradeDurationSeconds),
  },
  { code: 'invalid_tradeurl', message: 'Invalid trade URL format', fails: (b) => !isValidTradeUrl(b.tradeUrl) },
];
export const buyByNameRequestSchema = withChecks(buyByNameRequestShapeSchema, buyByNameRequestChecks);

// ---- Queries (every value arrives as one string; repeated keys are refused)

const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'expected a whole number')
    .transform(Number)
    .pipe(z.int().min(min).max(max));

const timestampParam = z
  .string()
  .refine(isValidQueryTimestamp, 'expected an ISO 8601 UTC timestamp such as 2026-01-02T03:04:05.000Z');

const idParam = z.string().min(1).max(MAX_EXTERNAL_ID_LENGTH);

function fromNotAfterTo(query: { from?: string; to?: string }): boolean {
  return query.from === undefined || query.to === undefined || Date.parse(query.from) <= Date.parse(query.to);
}

const pagingParams = {
  from: timestampParam.optional(),
  to: timestampParam.optional(),
  limit: intParam(1, HISTORY_MAX_LIMIT).optional(),
  page: intParam(1, 1_000_000).optional(),
};

/** Spec: limit and page are "Ignored when isActive=true": dropped before validation, whatever they hold. */
function withoutPagingWhenActive(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || (input as Record<string, unknown>)['isActive'] !== 'true')
    return input;
  const { limit: _limit, page: _page, ...rest } = input as Record<string, unknown>;
  return rest;
}

const tradeHistoryQueryObjectSchema = z
  .strictObject({
    tradeId: idParam.optional(),
    status: tradeStatusSchema.optional(),
    externalId: idParam.optional(),
    webhookStatus: webhookStatusSchema.optional(),
    isActive: z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .optional(),
    ...pagingParams,
  })
  .refine((q) => !(q.isActive === true && (q.from !== undefined || q.to !== undefined)), {
    message: 'isActive cannot be combined with from or to',
  })
  .refine(fromNotAfterTo, { message: 'from must not be after to' });

/** GET /Trades/History's query. With isActive=true, limit and page are ignored (not validated). */
export const tradeHistoryQuerySchema = z.preprocess(withoutPagingWhenActive, tradeHistoryQueryObjectSchema);
export type TradeHistoryQuery = z.output<typeof tradeHistoryQuerySchema>;

export const balanceHistoryQuerySchema = z
  .strictObject({
    type: transactionTypeSchema.optional(),
    tradeId: idParam.optional(),
    ...pagingParams,
  })
  .refine(fromNotAfterTo, { message: 'from must not be after to' });
export type BalanceHistoryQuery = z.output<typeof balanceHistoryQuerySchema>;

/** Serializes a parsed query back to the string form its schema accepts. */
export function toQueryString(query: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
