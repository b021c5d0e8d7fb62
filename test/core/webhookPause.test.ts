import { describe, expect, it } from 'vitest';
import { guessPause } from '../../src/main/core/operations/webhookHealth';

const MIN = 60_000;
const SINCE = '2026-11-01T00:00:00.000Z';
const at = (minutes: number) => Date.parse(SINCE) + minutes * MIN;
const iso = (minutes: number) => new Date(at(minutes)).toISOString();

describe('the pause a run of failures suggests (spec: 15 min, doubling, at most 4 h)', () => {
  it('counts back-to-back pauses from the first failure: 15, 30, 60, 120, 240, 240… minutes', () => {
    // Each pause's end, from `since`: 15, 45, 105, 225, 465, 705 minutes.
    const ends = [15, 45, 105, 225, 465, 705, 945];
    ends.forEach((end, index) => {
      expect(guessPause(SINCE, 3, at(end - 1)), `just before end ${end}`).toEqual({
        since: SINCE,
        failed: 3,
        pauseNumber: index + 1,
        expectedResumeAt: iso(end),
      });
      // At the end itself, the attempt is due: the next pause is the one to wait for.
      expect(guessPause(SINCE, 3, at(end)).pauseNumber, `at end ${end}`).toBe(index + 2);
    });
  });

  it('is the first pause when the failure is from now', () => {
    expect(guessPause(SINCE, 1, at(0))).toMatchObject({ pauseNumber: 1, expectedResumeAt: iso(15) });
  });
});
