import type { z } from 'zod';
import { CATALOG_RATE_LIMIT_PER_MINUTE, DEFAULT_RATE_LIMIT_PER_MINUTE } from './limits';
import {
  balanceHistoryQuerySchema,
  buyByNameRequestShapeSchema,
  buyRequestShapeSchema,
  searchItemsRequestSchema,
  tradeHistoryQuerySchema,
} from './requests';
import {
  balanceHistoryPageSchema,
  balanceSchema,
  buyResultSchema,
  catalogEnvelopeSchema,
  tradeHistoryPageSchema,
} from './resources';

export type RateBucket = 'catalog' | 'default';

export const RATE_LIMITS: Record<RateBucket, number> = {
  catalog: CATALOG_RATE_LIMIT_PER_MINUTE,
  default: DEFAULT_RATE_LIMIT_PER_MINUTE,
};

/** The largest test rate-limit scale (docs/sandbox.md, "Raised rate limits for benchmarks"). */
export const MAX_TEST_RATE_LIMIT_SCALE = 1000;

/**
 * The spec's limits times `scale`, for benchmarks only (a sandbox and a desk that page a year of history in minutes):
 * every bucket scaled alike. Throws unless `scale` is a whole number from 1 to MAX_TEST_RATE_LIMIT_SCALE.
 */
export function scaledRateLimits(scale: number): Record<RateBucket, number> {
  if (!Number.isInteger(scale) || scale < 1 || scale > MAX_TEST_RATE_LIMIT_SCALE)
    throw new RangeError(
      `The test rate-limit scale must be a whole number from 1 to ${MAX_TEST_RATE_LIMIT_SCALE}, got ${scale}`,
    );
  return { catalog: RATE_LIMITS.catalog * scale, default: RATE_LIMITS.default * scale };
}

interface EndpointDefinition {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  bucket: RateBucket;
  body?: z.ZodType;
  query?: z.ZodType;
  response: z.ZodType;
}

/** Every public endpoint: the single table that routes, clients and the OpenAPI document read. */
export const ENDPOINTS = {
  getAllItemsOnSale: {
    method: 'GET',
    path: '/Items/GetAllItemsOnSale',
    summary: 'All items currently on sale (rebuilt about every 5 minutes).',
    bucket: 'catalog',
    response: catalogEnvelopeSchema,
  },
  searchItems: {
    method: 'POST',
    path: '/Items/SearchItems',
    summary: 'Latest availability and price for items matching names or ids.',
    bucket: 'default',
    body: searchItemsRequestSchema,
    response: catalogEnvelopeSchema,
  },
  buy: {
    method: 'POST',
    path: '/Items/Buy',
    summary: 'Buy an item by id; the trade is PENDING on success.',
    bucket: 'default',
    body: buyRequestShapeSchema,
    response: buyResultSchema,
  },
  buyByName: {
    method: 'POST',
    path: '/Items/BuyByName',
    summary: 'Buy the cheapest item of a name (or a targeted one) under maxPrice.',
    bucket: 'default',
    body: buyByNameRequestShapeSchema,
    response: buyResultSchema,
  },
  tradeHistory: {
    method: 'GET',
    path: '/Trades/History',
    summary: "The merchant's trades, newest first.",
    bucket: 'default',
    query: tradeHistoryQuerySchema,
    response: tradeHistoryPageSchema,
  },
  getBalance: {
    method: 'GET',
    path: '/Wallet/GetBalance',
    summary: 'Balance, credit limit and total available.',
    bucket: 'default',
    response: balanceSchema,
  },
  balanceHistory: {
    method: 'GET',
    path: '/Wallet/BalanceHistory',
    summary: "The merchant's ledger, newest first.",
    bucket: 'default',
    query: balanceHistoryQuerySchema,
    response: balanceHistoryPageSchema,
  },
} as const satisfies Record<string, EndpointDefinition>;

export type EndpointName = keyof typeof ENDPOINTS;
export type EndpointResponse<N extends EndpointName> = z.output<(typeof ENDPOINTS)[N]['response']>;
