import { describe, expect, it } from 'vitest';
import type { BalanceRunway } from '../../../shared/ipc';
import { formatRunway, runwaySentence } from '../../../shared/runway';
import { DAY_MS, HOUR_MS, RunwayAlarm, type RunwayInput, runwayOf } from './runway';

const AT = '2026-11-29T08:00:00.000Z';
const none = { purchases: 0, refunds: 0 };
const input = (patch: Partial<RunwayInput>): RunwayInput => ({
  at: AT,
  balance: { balance: 60_000, credit_limit: 0 },
  inFlight: 0,
  lastHour: none,
  lastDay: none,
  thresholdHours: null,
  ...patch,
});

describe('balance runway model', () => {
  it.each([
    {
      what: 'no spending: no runway, whatever the balance',
      patch: {},
      available: 60_000,
      hour: { spent: 0, runwayMs: null },
      day: { spent: 0, runwayMs: null },
    },
    {
      what: '$100 an hour and $240 a day on $600: 6 h and 2.5 d',
      patch: { lastHour: { purchases: 10_000, refunds: 0 }, lastDay: { purchases: 24_000, refunds: 0 } },
      available: 60_000,
      hour: { spent: 10_000, runwayMs: 6 * HOUR_MS },
      day: { spent: 24_000, runwayMs: 60 * HOUR_MS },
    },
    {
      what: 'refunds (cancelled, rolled back) come off the spend',
      patch: { lastHour: { purchases: 30_000, refunds: 10_000 }, lastDay: { purchases: 30_000, refunds: 6_000 } },
      available: 60_000,
      hour: { spent: 20_000, runwayMs: 3 * HOUR_MS },
      day: { spent: 24_000, runwayMs: 60 * HOUR_MS },
    },
    {
      what: 'more refunded than bought in the window: no spending, never a negative rate',
      patch: { lastHour: { purchases: 1_000, refunds: 5_000 } },
      available: 60_000,
      hour: { spent: 0, runwayMs: null },
      day: { spent: 0, runwayMs: null },
    },
    {
      what: 'credit adds to what is available; a balance in credit (negative) takes from it',
      patch: { balance: { balance: -20_000, credit_limit: 50_000 }, lastHour: { purchases: 10_000, refunds: 0 } },
      available: 30_000,
      hour: { spent: 10_000, runwayMs: 3 * HOUR_MS },
      day: { spent: 0, runwayMs: null },
    },
    {
      what: 'buys the held balance does not show yet come off; the server-held freezes are already out of it',
      patch: { inFlight: 30_000, lastHour: { purchases: 10_000, refunds: 0 } },
      available: 30_000,
      hour: { spent: 10_000, runwayMs: 3 * HOUR_MS },
      day: { spent: 0, runwayMs: null },
    },
    {
      what: 'nothing available: runway 0, not negative',
      patch: {
        balance: { balance: -5_000, credit_limit: 5_000 },
        inFlight: 100,
        lastDay: { purchases: 1, refunds: 0 },
      },
      available: -100,
      hour: { spent: 0, runwayMs: null },
      day: { spent: 1, runwayMs: 0 },
    },
    {
      what: 'rounding: the runway is floored to whole ms, money stays whole cents',
      patch: {
        balance: { balance: 1, credit_limit: 0 },
        lastHour: { purchases: 3, refunds: 0 },
        lastDay: { purchases: 7, refunds: 0 },
      },
      available: 1,
      hour: { spent: 3, runwayMs: 1_200_000 },
      day: { spent: 7, runwayMs: Math.floor(DAY_MS / 7) },
    },
  ])('$what', ({ patch, available, hour, day }) => {
    const runway = runwayOf(input(patch));
    expect(runway.available).toBe(available);
    expect(runway.lastHour).toEqual(hour);
    expect(runway.lastDay).toEqual(day);
    for (const cents of [runway.available, runway.lastHour.spent, runway.lastDay.spent])
      expect(Number.isSafeInteger(cents)).toBe(true);
  });

  it('is under the threshold when the shorter runway is, and never without spending or without a threshold', () => {
    const spending = { lastHour: { purchases: 10_000, refunds: 0 }, lastDay: { purchases: 24_000, refunds: 0 } };
    expect(runwayOf(input({ ...spending, thresholdHours: 7 })).below).toBe(true);
    expect(runwayOf(input({ ...spending, thresholdHours: 6 })).below).toBe(false);
    expect(runwayOf(input({ ...spending, thresholdHours: null })).below).toBe(false);
    expect(runwayOf(input({ thresholdHours: 700 })).below).toBe(false);
  });

  it('alarms once per crossing and re-arms only when the runway is back at or above the threshold', () => {
    const alarm = new RunwayAlarm();
    const seen = (below: boolean) => alarm.observe({ below } as BalanceRunway);
    expect([seen(false), seen(true), seen(true), seen(true)]).toEqual([false, true, false, false]);
    expect([seen(false), seen(true), seen(true)]).toEqual([false, true, false]);
  });

  it.each([
    [30_000, 'less than a minute'],
    [45 * 60_000, '45 min'],
    [6 * HOUR_MS + 20 * 60_000, '6 h'],
    [47 * HOUR_MS, '47 h'],
    [60 * HOUR_MS, '3 d'],
  ])('formats %i ms as "%s"', (ms, text) => {
    expect(formatRunway(ms)).toBe(text);
  });

  it('says the runway in words', () => {
    const spending = { lastHour: { purchases: 10_000, refunds: 0 }, lastDay: { purchases: 12_000, refunds: 0 } };
    expect(runwaySentence(runwayOf(input(spending)))).toBe(
      "About 6 h of buying left at the last hour's rate (5 d at the last day's)",
    );
    expect(runwaySentence(runwayOf(input({ lastDay: { purchases: 12_000, refunds: 0 } })))).toBe(
      "About 5 d of buying left at the last day's rate (nothing bought in the last hour)",
    );
    expect(runwaySentence(runwayOf(input({})))).toBe('No recent spending: nothing bought in the last day');
    expect(runwaySentence(runwayOf(input({ balance: { balance: 0, credit_limit: 0 } })))).toBe(
      'Nothing left to buy with: $0.00 available',
    );
  });
});
