import { describe, expect, it } from 'vitest';
import {
  centsToInput,
  formatAge,
  formatCountdown,
  formatCents,
  formatDiscount,
  formatDollarsShort,
  formatDurationSeconds,
  formatSignedCents,
  formatFloat,
  formatRelative,
  parseUnitFloat,
  shortId,
} from '../../src/renderer/src/lib/format';
import { scaleLabels } from '../../src/renderer/src/lib/chart';
import { safeCsvFilename } from '../../src/renderer/src/lib/download';
import { tradeUrlProblem } from '../../src/renderer/src/lib/tradeUrlHint';
import { STATUS_COLORS, STATUS_LABELS } from '../../src/renderer/src/lib/status';
import { TRADE_STATUSES_ACCEPTED } from '../../src/shared/api';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

describe('format', () => {
  it('truncates floats instead of rounding them into a better band', () => {
    expect(formatFloat(0.0699999)).toBe('0.069999');
    expect(formatFloat(0.15)).toBe('0.150000');
    expect(formatFloat(null)).toBe('—');
    expect(formatFloat(0.123456789, 3)).toBe('0.123');
  });

  it('formats ages compactly', () => {
    expect(formatAge('2026-03-01T11:59:48.000Z', NOW)).toBe('12s');
    expect(formatAge('2026-03-01T11:56:00.000Z', NOW)).toBe('4m');
    expect(formatAge('2026-03-01T09:00:00.000Z', NOW)).toBe('3h');
    expect(formatAge('2026-02-25T12:00:00.000Z', NOW)).toBe('4d');
    expect(formatAge('2026-03-01T12:00:05.000Z', NOW)).toBe('0s');
    expect(formatAge(null, NOW)).toBe('—');
  });

  it('formats relative times both ways', () => {
    expect(formatRelative('2026-03-01T11:59:58.000Z', NOW)).toBe('just now');
    expect(formatRelative('2026-03-01T11:57:00.000Z', NOW)).toBe('3 min ago');
    expect(formatRelative('2026-03-01T14:00:00.000Z', NOW)).toBe('in 2 h');
    expect(formatRelative('2026-02-20T12:00:00.000Z', NOW)).toBe('9 d ago');
  });

  it('formats durations and countdowns', () => {
    expect(formatDurationSeconds(1800)).toBe('30 min');
    expect(formatDurationSeconds(43_200)).toBe('12 h');
    expect(formatDurationSeconds(5400)).toBe('1 h 30 min');
    expect(formatDurationSeconds(605)).toBe('10 min 5 s');
    expect(formatCountdown(0)).toBe('0:00');
    expect(formatCountdown(65_000)).toBe('1:05');
    expect(formatCountdown(3_725_000)).toBe('01:02:05');
    expect(formatCountdown(2 * 86_400_000 + 3_725_000)).toBe('2d 01:02:05');
  });

  it('turns cents back into editable dollars and short axis labels', () => {
    expect(centsToInput(1230)).toBe('12.30');
    expect(centsToInput(5)).toBe('0.05');
    expect(centsToInput(-250)).toBe('-2.50');
    expect(centsToInput(null)).toBe('');
    expect(formatDollarsShort(123_456)).toBe('$1,235');
    expect(formatDollarsShort(2_500_000)).toBe('$25.0k');
    expect(formatDollarsShort(-350_000_000)).toBe('-$3.5M');
  });

  it('writes every change with the one minus of formatCents', () => {
    expect(formatSignedCents(120)).toBe('+$1.20');
    expect(formatSignedCents(-16)).toBe('-$0.16');
    expect(formatSignedCents(-16)).toBe(formatCents(-16));
    expect(formatSignedCents(0)).toBe('$0.00');
    expect(formatDiscount(23.4).startsWith('-')).toBe(true);
  });

  it('labels a value scale so its ends differ: the short form, or in full when the short one writes both the same', () => {
    expect(scaleLabels(4_984, 5_000, formatDollarsShort, formatCents)).toEqual(['$50.00', '$49.84']);
    expect(scaleLabels(40_000, 50_000, formatDollarsShort, formatCents)).toEqual(['$500', '$400']);
    expect(scaleLabels(5_000, 5_000, formatDollarsShort, formatCents)).toEqual(['$50', null]);
  });

  it('parses unit floats for filters', () => {
    expect(parseUnitFloat('')).toBeNull();
    expect(parseUnitFloat('0.07')).toBe(0.07);
    expect(parseUnitFloat('.5')).toBe(0.5);
    expect(parseUnitFloat('1')).toBe(1);
    expect(parseUnitFloat('1.2')).toBeUndefined();
    expect(parseUnitFloat('abc')).toBeUndefined();
  });

  it('shortens ids', () => {
    expect(shortId('abc')).toBe('abc');
    expect(shortId('0123456789abcdef')).toBe('01234567…ef');
  });
});

describe('status colours', () => {
  it('has exactly one distinct colour and a label per status', () => {
    for (const status of TRADE_STATUSES_ACCEPTED) {
      expect(STATUS_COLORS[status]).toMatch(/^#[0-9a-f]{6}$/);
      expect(STATUS_LABELS[status]).toBeTruthy();
    }
    const colours = Object.values(STATUS_COLORS);
    expect(new Set(colours).size).toBe(colours.length);
  });
});

describe('CSV file names', () => {
  it('keeps names safe and ending in .csv', () => {
    expect(safeCsvFilename('trades-2026-03-01.csv')).toBe('trades-2026-03-01.csv');
    expect(safeCsvFilename('../../etc/passwd')).toBe('-..-etc-passwd.csv');
    expect(safeCsvFilename('a:b*c?.csv')).toBe('a-b-c-.csv');
    expect(safeCsvFilename('ledger export')).toBe('ledger-export.csv');
    expect(safeCsvFilename('', 'ledger')).toBe('ledger.csv');
    expect(safeCsvFilename('x\u0001y')).toBe('x-y.csv');
  });
});

describe('trade URL hints', () => {
  const good = 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd_-12';
  it('accepts a valid URL and stays quiet while empty', () => {
    expect(tradeUrlProblem(good)).toBeNull();
    expect(tradeUrlProblem(`  ${good} `)).toBeNull();
    expect(tradeUrlProblem('')).toBeNull();
  });
  it('says what is wrong', () => {
    expect(tradeUrlProblem('steamcommunity.com/tradeoffer/new/?partner=1&token=abcdefgh')).toMatch(/starts with https/);
    expect(tradeUrlProblem('https://example.com/?partner=1&token=abcdefgh')).toMatch(/not a trade offer link/);
    expect(tradeUrlProblem('https://steamcommunity.com/tradeoffer/new/?token=abcdefgh')).toMatch(
      /partner number is missing/,
    );
    expect(tradeUrlProblem('https://steamcommunity.com/tradeoffer/new/?partner=0&token=abcdefgh')).toMatch(
      /not a valid account/,
    );
    expect(tradeUrlProblem('https://steamcommunity.com/tradeoffer/new/?partner=12')).toMatch(/token is missing/);
    expect(tradeUrlProblem('https://steamcommunity.com/tradeoffer/new/?partner=12&token=abc')).toMatch(/exactly 8/);
  });
});
