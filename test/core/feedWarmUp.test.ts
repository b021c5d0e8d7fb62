/**
 * The feed's warm-up (feed/warmUp.ts) validates one sample frame of each kind when the feed starts, so the
 * first live frame (maybe the one an auto-buy races for) does not pay for zod building its fast path. A
 * sample the schema refuses would warm only the error path: this fails when the schema and the samples part.
 */
import { describe, expect, it } from 'vitest';
import { warmFrameValidation } from '../../src/main/core/feed/warmUp';

describe('feed warm-up', () => {
  it('validates a sample of every item frame kind, and every sample is valid', () => {
    expect(warmFrameValidation()).toEqual({
      valid: true,
      kinds: ['connected', 'item_upserted', 'price_changed', 'item_removed'],
    });
  });
});
