import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  errorFromResponse,
  isRetryableStatus,
  newPriceOf,
  parseRetryAfter,
  schemaError,
} from '../../src/main/core/api/errors';

describe('errorFromResponse', () => {
  it('reads the {error, message} envelope and Retry-After seconds', () => {
    const error = errorFromResponse(
      '/Wallet/GetBalance',
      429,
      new Headers({ 'Retry-After': '17' }),
      '{"error":"rate_limited","message":"Rate limit exceeded"}',
    );
    expect(error).toMatchObject({
      kind: 'http',
      status: 429,
      code: 'rate_limited',
      message: 'Rate limit exceeded',
      retryable: true,
      retryAfterMs: 17_000,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ApiRequestError');
  });

  it('copes with an envelope without a message, an empty body and unknown codes', () => {
    expect(errorFromResponse('/Nope', 404, {}, '{"error":"not_found"}')).toMatchObject({
      code: 'not_found',
      message: 'HTTP 404 not_found from /Nope',
      retryable: false,
    });
    expect(errorFromResponse('/Wallet/GetBalance', 500, {}, '')).toMatchObject({
      code: 'http_500',
      retryable: true,
      message: "HTTP 500 from /Wallet/GetBalance with an empty body (not the API's error envelope)",
    });
    expect(
      errorFromResponse('/Items/Buy', 400, {}, '{"error":"brand_new_code","message":"Something new"}'),
    ).toMatchObject({ code: 'brand_new_code', retryable: false });
    expect(errorFromResponse('/Items/Buy', 504, {}, '"just a string"')).toMatchObject({
      code: 'http_504',
      retryable: true,
    });
  });

  it('marks only 429, 500, 502, 503 and 504 retryable', () => {
    expect([400, 401, 403, 404, 409, 413, 429, 500, 502, 503, 504].filter(isRetryableStatus)).toEqual([
      429, 500, 502, 503, 504,
    ]);
  });

  it('parses Retry-After as seconds or an HTTP date, from plain-object headers too', () => {
    const now = Date.parse('2026-05-01T10:00:00.000Z');
    expect(parseRetryAfter('Fri, 01 May 2026 10:00:45 GMT', now)).toBe(45_000);
    expect(parseRetryAfter('Fri, 01 May 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(
      errorFromResponse('/x', 503, { 'retry-after': ['60'] }, '{"error":"maintenance","message":"m"}').retryAfterMs,
    ).toBe(60_000);
  });

  it('reads the new price of price_changed only', () => {
    const changed = errorFromResponse(
      '/Items/Buy',
      400,
      {},
      '{"error":"price_changed","message":"Price changed; new price: 1234 ($12.34)"}',
    );
    expect(newPriceOf(changed)).toBe(1234);
    expect(
      newPriceOf(
        errorFromResponse('/Items/Buy', 400, {}, '{"error":"price_too_high","message":"Item price 1234 exceeds"}'),
      ),
    ).toBeNull();
  });
});

describe('schemaError', () => {
  it('names nested paths and caps the list', () => {
    const schema = z.object({
      items: z.array(z.object({ price: z.int() })),
      a: z.string(),
      b: z.string(),
      c: z.string(),
    });
    const result = schema.safeParse({ items: [{ price: 1 }, { price: 'x' }] });
    expect(result.success).toBe(false);
    const error = schemaError('/Items/SearchItems', (result as { error: z.ZodError }).error);
    expect(error.message).toBe(
      'invalid response from /Items/SearchItems: items[1].price: expected number, received string; a: expected string, received undefined; b: expected string, received undefined (and 1 more)',
    );
  });
});
