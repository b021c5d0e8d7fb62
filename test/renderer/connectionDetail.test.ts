import { describe, expect, it } from 'vitest';
import { DETAIL } from '../../src/main/core/feed/detail';
import { detailWithoutDelay, nextAttemptAt } from '../../src/renderer/src/lib/connectionDetail';

describe('connection detail next to a live countdown', () => {
  it('drops the frozen delay of every detail the feed writes, and keeps the rest', () => {
    expect(detailWithoutDelay(DETAIL.offlineIn('connection refused', 16_000, 3))).toBe(
      'Cannot reach the server (connection refused); retrying (attempt 3)',
    );
    expect(detailWithoutDelay(DETAIL.reconnectingIn(90_000, 2))).toBe('Reconnecting (attempt 2)');
    expect(detailWithoutDelay(DETAIL.maintenanceIn('Sandbox', 3_600_000 + 300_000))).toBe(
      'Sandbox under maintenance; retrying',
    );
    expect(detailWithoutDelay(DETAIL.feedRefusedIn('HTTP 429', 10_000, 300_000))).toBe(
      'Feed refused (HTTP 429); polling every 10 s, retrying the feed',
    );
    expect(detailWithoutDelay(DETAIL.connectionLimitIn(3, 10_000, 5_000))).toBe(
      'Feed refused: 3 connections already open for this merchant; polling every 10 s, retrying the feed',
    );
    expect(detailWithoutDelay(DETAIL.ipNotAllowedIn(65_000))).toBe(
      "Feed refused: this computer's IP address is not on the merchant's allowlist; retrying",
    );
    for (const text of [DETAIL.connected, DETAIL.offlineNow('timed out', 4), DETAIL.unauthorized])
      expect(detailWithoutDelay(text)).toBe(text);
  });
});

describe('the one time the app tries again', () => {
  const feedAt = '2026-11-28T12:00:16.000Z';
  const backoff = { backoffUntil: '2026-11-28T12:01:00.000Z' };
  it("in maintenance: the feed's next attempt (it ends the back-off when it connects), else the back-off", () => {
    expect(nextAttemptAt({ state: 'maintenance', nextAttemptAt: feedAt }, backoff)).toBe(feedAt);
    expect(nextAttemptAt({ state: 'maintenance', nextAttemptAt: null }, backoff)).toBe(backoff.backoffUntil);
    expect(nextAttemptAt({ state: 'maintenance', nextAttemptAt: null }, { backoffUntil: null })).toBeNull();
  });
  it("otherwise the feed's next attempt, and none while connected", () => {
    expect(nextAttemptAt({ state: 'offline', nextAttemptAt: feedAt }, backoff)).toBe(feedAt);
    expect(nextAttemptAt({ state: 'reconnecting', nextAttemptAt: null }, backoff)).toBeNull();
    expect(nextAttemptAt({ state: 'connected', nextAttemptAt: feedAt }, backoff)).toBeNull();
  });
});
