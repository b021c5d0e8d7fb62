import { describe, expect, it } from 'vitest';
import {
  initialTrades,
  receiveTradePage,
  recipientPartner,
  toTradeQuery,
  tradeQueryKey,
} from '../../src/renderer/src/state/slices/trades';
import { trade } from './fixtures';

describe('the trades screen’s recipient filter and capped totals', () => {
  it('takes a partner number or the partner of a pasted trade URL; anything else is no recipient (null)', () => {
    expect(recipientPartner('')).toBe('');
    expect(recipientPartner('  ')).toBe('');
    expect(recipientPartner(' 12345 ')).toBe('12345');
    expect(recipientPartner('https://steamcommunity.com/tradeoffer/new/?partner=777&token=AbCd1234')).toBe('777');
    expect(recipientPartner('partner=42')).toBeNull();
    expect(recipientPartner('https://steamcommunity.com/tradeoffer/new/?partner=0&token=AbCd1234')).toBeNull();
    expect(recipientPartner('0')).toBeNull();
    expect(recipientPartner('4294967296')).toBeNull();
    expect(recipientPartner('4294967295')).toBe('4294967295');
    expect(recipientPartner('12a')).toBeNull();
  });

  it('asks the engine by partner number, and keeps whether the total is a floor', () => {
    const slice = {
      ...initialTrades,
      tab: 'history' as const,
      filters: { ...initialTrades.filters, recipient: '777' },
    };
    expect(toTradeQuery(slice)).toMatchObject({ partner: '777' });
    expect(toTradeQuery(initialTrades)).toMatchObject({ partner: null });
    const key = tradeQueryKey(slice);
    const capped = receiveTradePage(slice, key, {
      rows: [trade('t1')],
      total: 2000,
      totalCapped: true,
      offset: 0,
      limit: 50,
    });
    expect(capped).toMatchObject({ totalCapped: true, list: { total: 2000, ids: ['t1'] } });
    const exact = receiveTradePage(capped, key, { rows: [], total: 0, offset: 0, limit: 50 });
    expect(exact.totalCapped).toBe(false);
  });
});
