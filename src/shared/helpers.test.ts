import { describe, expect, it } from 'vitest';
import { buildTradeUrl, isValidTradeUrl, parseTradeUrl, redactTradeUrl } from './api/tradeUrl';
import { formatCents, parseDollarsToCents } from './money';
import { isValidQueryTimestamp, toUtcIso } from './time';

describe('money', () => {
  it('formats integer cents as dollars', () => {
    expect(formatCents(0)).toBe('$0.00');
    expect(formatCents(5)).toBe('$0.05');
    expect(formatCents(123456)).toBe('$1,234.56');
    expect(formatCents(-500)).toBe('-$5.00');
    expect(() => formatCents(1.5)).toThrow(RangeError);
  });

  it('parses dollar text to cents without float error', () => {
    expect(parseDollarsToCents('12.3')).toBe(1230);
    expect(parseDollarsToCents('$1,234.56')).toBe(123456);
    expect(parseDollarsToCents('0.29')).toBe(29);
    expect(parseDollarsToCents('1.234')).toBeNull();
    expect(parseDollarsToCents('abc')).toBeNull();
  });
});

describe('time', () => {
  it('writes UTC with milliseconds and Z', () => {
    expect(toUtcIso(Date.UTC(2026, 10, 21, 1, 2, 3, 4))).toBe('2026-11-21T01:02:03.004Z');
  });

  it('accepts UTC query timestamps only', () => {
    expect(isValidQueryTimestamp('2026-11-21T01:02:03Z')).toBe(true);
    expect(isValidQueryTimestamp('2026-11-21T01:02:03.004Z')).toBe(true);
    expect(isValidQueryTimestamp('2026-11-21')).toBe(false);
    expect(isValidQueryTimestamp('2026-02-30T00:00:00Z')).toBe(false);
    expect(isValidQueryTimestamp('2026-11-21T01:02:03+00:00')).toBe(false);
  });
});

describe('trade URLs', () => {
  it('parses the owner out of a valid URL', () => {
    expect(parseTradeUrl(buildTradeUrl(12345678, 'AbCd_-12'))).toEqual({ partner: '12345678', token: 'AbCd_-12' });
  });

  it.each([
    'https://steamcommunity.com/tradeoffer/new/?partner=12345678',
    'https://steamcommunity.com/tradeoffer/new/?partner=abc&token=AbCd1234',
    'https://evil.example/tradeoffer/new/?partner=12345678&token=AbCd1234',
    'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234&x=1',
    'https://steamcommunity.com/tradeoffer/new/?partner=99999999999&token=AbCd1234',
    ' https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234',
  ])('rejects %s', (url) => {
    expect(isValidTradeUrl(url)).toBe(false);
  });

  it('redacts the token for logs', () => {
    expect(redactTradeUrl(buildTradeUrl(1, 'AbCd1234'))).toBe(
      'https://steamcommunity.com/tradeoffer/new/?partner=1&token=Ab******',
    );
  });
});
