import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../src/shared/api';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import { adminApi, merchantApi } from '../support/sandboxHttp';

/**
 * The benchmarks' raised limits (`rateLimitScale`): the sandbox admits the spec's limits times the scale in a window,
 * then 429s as it does at the spec's (test/server/rest-guard.test.ts holds the default: 300, then a 429).
 */
describe('sandbox with a test rate-limit scale', () => {
  const SCALE = 3;
  let sb: Sandbox;

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 5, rateLimitScale: SCALE });
  });
  afterAll(() => sb.close());

  it('admits the scaled limit a minute per merchant without a 429, and 429s the next request', async () => {
    const api = merchantApi(sb, await adminApi(sb).createMerchant());
    const limit = RATE_LIMITS.default * SCALE;
    const statuses: number[] = [];
    for (let batch = 0; batch < limit / 30; batch++) {
      const answers = await Promise.all(Array.from({ length: 30 }, () => api.get('/Wallet/GetBalance')));
      statuses.push(...answers.map((a) => a.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    const limited = await api.get('/Trades/History');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'rate_limited', message: 'Rate limit exceeded' });
    expect(limited.headers.get('x-ratelimit-limit')).toBe(String(limit));
  });

  it('scales the catalog bucket alike', async () => {
    const api = merchantApi(sb, await adminApi(sb).createMerchant());
    const limit = RATE_LIMITS.catalog * SCALE;
    for (let i = 0; i < limit; i++) expect((await api.get('/Items/GetAllItemsOnSale')).status).toBe(200);
    expect((await api.get('/Items/GetAllItemsOnSale')).status).toBe(429);
  });

  it('refuses a scale that is not a whole number from 1 to 1000, starting nothing', async () => {
    for (const scale of [0, -1, 1.5, 1001, Number.NaN]) {
      await expect(startSandbox({ items: 10, rateLimitScale: scale })).rejects.toThrow(
        `The test rate-limit scale must be a whole number from 1 to 1000, got ${scale}`,
      );
    }
  });
});
