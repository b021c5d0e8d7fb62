import { describe, expect, it } from 'vitest';
import type { AlertRule } from '../../../shared/ipc';
import { autoBuyVerdict, matchesRule, utcDayStart } from './rules';

const rule = (patch: Partial<AlertRule> = {}): AlertRule => ({
  id: 'r1',
  name: 'Cheap Redlines',
  enabled: true,
  namePattern: 'redline',
  phase: null,
  floatMin: null,
  floatMax: null,
  maxPrice: null,
  stickerNames: [],
  autoBuy: { enabled: false, recipientId: null, spendCap: 0, dailyCap: 0, spent: 0 },
  createdAt: '2026-11-21T00:00:00.000Z',
  ...patch,
});

const item = { market_hash_name: 'AK-47 | Redline (Field-Tested)', phase: null, float: 0.21, price: 1500, stickerNames: ['Sticker | Crown (Foil)'] };

describe('alert rules', () => {
  it('matches on every condition it sets and nothing else', () => {
    expect(matchesRule(rule(), item)).toBe(true);
    expect(matchesRule(rule({ enabled: false }), item)).toBe(false);
    expect(matchesRule(rule({ namePattern: 'vulcan' }), item)).toBe(false);
    expect(matchesRule(rule({ maxPrice: 1500 }), item)).toBe(true);
    expect(matchesRule(rule({ maxPrice: 1499 }), item)).toBe(false);
    expect(matchesRule(rule({ floatMin: 0.15, floatMax: 0.2 }), item)).toBe(false);
    expect(matchesRule(rule({ floatMax: 0.25 }), item)).toBe(true);
    expect(matchesRule(rule({ floatMax: 0.25 }), { ...item, float: null })).toBe(false);
    expect(matchesRule(rule({ phase: 'Phase 2' }), item)).toBe(false);
    expect(matchesRule(rule({ phase: 'Phase 2', namePattern: '' }), { ...item, phase: 'Phase 2' })).toBe(true);
    expect(matchesRule(rule({ stickerNames: ['crown'] }), item)).toBe(true);
    expect(matchesRule(rule({ stickerNames: ['crown', 'titan'] }), item)).toBe(false);
  });

  it('auto-buys only within both caps, with a recipient, and not while paused', () => {
    const on = (spent: number) => rule({ autoBuy: { enabled: true, recipientId: 'rc1', spendCap: 5000, dailyCap: 3000, spent } });
    expect(autoBuyVerdict(rule(), 100, 0, false)).toMatchObject({ buy: false });
    expect(autoBuyVerdict(on(0), 1500, 0, false)).toEqual({ buy: true });
    expect(autoBuyVerdict(on(0), 1500, 1600, false)).toMatchObject({ buy: false, reason: "the rule would exceed today's cap" });
    expect(autoBuyVerdict(on(4000), 1500, 0, false)).toMatchObject({ buy: false, reason: 'the rule would exceed its spend cap' });
    expect(autoBuyVerdict(on(0), 1500, 0, true)).toMatchObject({ buy: false, reason: 'alerts are paused' });
    expect(autoBuyVerdict(rule({ autoBuy: { enabled: true, recipientId: null, spendCap: 9, dailyCap: 9, spent: 0 } }), 1, 0, false)).toMatchObject({
      buy: false,
    });
  });

  it('computes the UTC day start', () => {
    expect(utcDayStart(Date.UTC(2026, 10, 21, 23, 59))).toBe(Date.UTC(2026, 10, 21));
  });
});
