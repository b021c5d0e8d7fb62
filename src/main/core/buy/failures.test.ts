import { describe, expect, it } from 'vitest';
import { priceChangedMessage, partnerBlockedMessage } from '../../../server/domain/buying';
import { describeBuyFailure, parseExpiresAt, parseNewPrice } from './failures';

describe('buy failure messages', () => {
  it('reads the new price from the sandbox message and from dollar wordings', () => {
    expect(parseNewPrice(priceChangedMessage(1234))).toBe(1234);
    expect(parseNewPrice('Price changed, new price: $12.34')).toBe(1234);
    expect(parseNewPrice('new price 1,250')).toBe(1250);
    expect(parseNewPrice('Price changed')).toBeNull();
  });

  it('reads expiresAt from the sandbox message', () => {
    const until = Date.UTC(2026, 10, 22, 12, 0, 0, 0);
    expect(parseExpiresAt(partnerBlockedMessage(until))).toBe('2026-11-22T12:00:00.000Z');
    expect(parseExpiresAt('blocked for a while')).toBeNull();
  });

  it('offers the new price for a one-click re-buy', () => {
    const failure = describeBuyFailure({
      code: 'price_changed',
      message: priceChangedMessage(1500),
      retryable: false,
      price: 1400,
    });
    expect(failure).toMatchObject({ newPrice: 1500, nextStep: 'Buy at $15.00, or cancel.' });
    expect(failure.message).toBe('The price changed to $15.00 (you confirmed $14.00).');
  });

  it('says until when a partner is blocked and how much is available', () => {
    const blocked = describeBuyFailure({
      code: 'partner_blocked',
      message: partnerBlockedMessage(Date.UTC(2026, 0, 2)),
      retryable: false,
    });
    expect(blocked.blockedUntil).toBe('2026-01-02T00:00:00.000Z');
    expect(blocked.message).toContain('2026-01-02T00:00:00.000Z');
    const poor = describeBuyFailure({
      code: 'insufficient_balance',
      message: 'x',
      retryable: false,
      available: 5000,
      price: 7000,
    });
    expect(poor).toMatchObject({ available: 5000, message: 'Not enough funds: $50.00 available, $70.00 needed.' });
  });

  it('says which condition of a buy by name found nothing: the targeted listing, the phase, or the name', () => {
    const base = { code: 'item_unavailable', message: 'Item currently unavailable', retryable: false, byName: true };
    expect(describeBuyFailure({ ...base, phase: 'Phase 2' })).toMatchObject({
      message: 'No listing of this name in Phase 2 is on sale.',
      nextStep: expect.stringMatching(/^Choose another phase, or Any phase/),
    });
    expect(describeBuyFailure({ ...base, targeted: true, phase: null }).message).toBe(
      'The targeted listing is not on sale any more (sold, or taken off sale).',
    );
    expect(describeBuyFailure({ ...base, phase: null }).nextStep).toMatch(/^Check the name/);
  });

  it.each([
    'invalid_request',
    'invalid_price',
    'invalid_trade_duration',
    'invalid_tradeurl',
    'item_unavailable',
    'asset_mismatch',
    'price_too_high',
    'duplicate_external_id',
    'too_many_active_trades',
    'rate_limited',
    'maintenance',
    'unauthorized',
    'ip_not_allowed',
  ])('gives %s a specific next step', (code) => {
    const failure = describeBuyFailure({ code, message: 'server words', retryable: false });
    expect(failure.nextStep).not.toBe('See the message for details.');
    expect(failure.message).toBe('server words');
  });

  it('keeps the server words for an unknown code', () => {
    expect(describeBuyFailure({ code: 'brand_new_code', message: 'Something new', retryable: true })).toMatchObject({
      message: 'Something new',
      nextStep: 'Try again in a moment.',
    });
  });
});
