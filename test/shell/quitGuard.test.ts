import { describe, expect, it } from 'vitest';
import { countActiveAutoBuyRules, quitDetail, quitWarning } from '../../src/main/shell/quitGuard';

describe('quitWarning', () => {
  it('is silent with nothing in flight', () => {
    expect(quitWarning({ activeTrades: 0, autoBuyRules: 0 })).toBeNull();
  });

  it('names active trades and auto-buy rules, with the right grammar', () => {
    expect(quitWarning({ activeTrades: 3, autoBuyRules: 1 })).toBe(
      '3 trades are still active and 1 auto-buy rule is on. Quit anyway?',
    );
    expect(quitWarning({ activeTrades: 1, autoBuyRules: 0 })).toBe('1 trade is still active. Quit anyway?');
    expect(quitWarning({ activeTrades: 0, autoBuyRules: 2 })).toBe('2 auto-buy rules are on. Quit anyway?');
  });

  it('explains what quitting does', () => {
    expect(quitDetail({ activeTrades: 2, autoBuyRules: 1 })).toMatch(/keep going on the marketplace.*Auto-buy stops/);
    expect(quitDetail({ activeTrades: 0, autoBuyRules: 1 })).toBe('Auto-buy stops until you reopen Merchant Desk.');
  });
});

describe('countActiveAutoBuyRules', () => {
  const rule = (enabled: boolean, autoBuy: boolean) => ({
    enabled,
    autoBuy: { enabled: autoBuy, recipientId: 'r', spendCap: 1000, dailyCap: 1000, spent: 0 },
  });

  it('counts enabled rules with auto-buy on', () => {
    expect(
      countActiveAutoBuyRules([rule(true, true), rule(true, false), rule(false, true), rule(true, true)], false),
    ).toBe(2);
  });

  it('counts none while alerts are paused (auto-buy does not act then)', () => {
    expect(countActiveAutoBuyRules([rule(true, true)], true)).toBe(0);
  });
});
