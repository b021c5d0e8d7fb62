import { describe, expect, it } from 'vitest';
import type { Trade, TradeStatus } from '../../src/shared/api';
import { AwayChangesCollector, changedSince, relaunchNotices, relaunchSummary, relaunchTarget } from '../../src/main/shell/relaunchSummary';
import { pushToasts, toastsFromNotifications, initialNotes } from '../../src/renderer/src/state/slices/notes';

const QUIT = '2026-03-01T10:00:00.000Z';

function trade(tradeId: string, status: TradeStatus, updatedAt: string): Trade {
  return {
    tradeId,
    externalId: null,
    status,
    price: 1234,
    itemId: 1,
    assetId: 'a1',
    offerId: null,
    tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=12345678&token=AbCd1234',
    market_hash_name: 'AK-47 | Redline (Field-Tested)',
    phase: null,
    float: 0.2,
    webhookStatus: null,
    failReason: null,
    errorCode: null,
    createdAt: '2026-03-01T09:00:00.000Z',
    updatedAt,
    completedAt: null,
    cancelledAt: null,
    endProtection: null,
    rollbackAt: null,
    stage: 1,
  };
}

const after = (minutes: number) => new Date(Date.parse(QUIT) + minutes * 60_000).toISOString();

describe('relaunchSummary', () => {
  it('summarises what changed while the app was closed', () => {
    const trades = [trade('t1', 'COMPLETED', after(5)), trade('t2', 'COMPLETED', after(9)), trade('t3', 'REJECTED', after(12))];
    expect(relaunchSummary(trades, QUIT)).toBe('While you were away: 2 trades completed, 1 was declined.');
  });

  it('uses singular and plural in every clause, outcomes first', () => {
    const trades = [
      trade('t1', 'SENT', after(1)),
      trade('t2', 'REJECTED', after(1)),
      trade('t3', 'REJECTED', after(1)),
      trade('t4', 'EXPIRED', after(1)),
      trade('t5', 'COMPLETED', after(1)),
      trade('t6', 'REVERSED', after(1)),
    ];
    expect(relaunchSummary(trades, QUIT)).toBe(
      'While you were away: 1 trade completed, 2 were declined, 1 expired, 1 was reversed, 1 is waiting for the recipient.',
    );
    expect(relaunchSummary([trade('t1', 'CANCELLED', after(1))], QUIT)).toBe('While you were away: 1 trade was cancelled.');
    expect(relaunchSummary([trade('t1', 'SENT', after(1)), trade('t2', 'SENT', after(1))], QUIT)).toBe(
      'While you were away: 2 trades are waiting for the recipient.',
    );
  });

  it('ignores trades that last changed before the quit', () => {
    expect(relaunchSummary([trade('t1', 'COMPLETED', '2026-03-01T09:59:59.999Z'), trade('t2', 'FAILED', QUIT)], QUIT)).toBeNull();
  });

  it('counts each trade once, in its latest state', () => {
    const trades = [trade('t1', 'SENT', after(1)), trade('t1', 'COMPLETED', after(3)), trade('t1', 'SENT', after(2))];
    expect(changedSince(trades, QUIT)).toHaveLength(1);
    expect(relaunchSummary(trades, QUIT)).toBe('While you were away: 1 trade completed.');
  });

  it('says nothing without a last quit (first run, or after a crash)', () => {
    expect(relaunchSummary([trade('t1', 'COMPLETED', after(1))], null)).toBeNull();
    expect(relaunchSummary([trade('t1', 'COMPLETED', after(1))], 'not a date')).toBeNull();
  });

  it('targets the trade when exactly one changed', () => {
    expect(relaunchTarget([trade('t1', 'COMPLETED', after(1))], QUIT)).toEqual({ type: 'trade', tradeId: 't1' });
    expect(relaunchTarget([trade('t1', 'COMPLETED', after(1)), trade('t2', 'FAILED', after(1))], QUIT)).toBeNull();
  });
});

describe('AwayChangesCollector', () => {
  function harness(options: { settleMs?: number; maxMs?: number } = {}) {
    const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
    const results: Trade[][] = [];
    const collector = new AwayChangesCollector({
      settleMs: options.settleMs ?? 5_000,
      maxMs: options.maxMs ?? 30_000,
      done: (trades) => results.push(trades),
      setTimer: (fn, ms) => {
        const timer = { fn, ms, cleared: false };
        timers.push(timer);
        return timer;
      },
      clearTimer: (timer) => {
        (timer as { cleared: boolean }).cleared = true;
      },
    });
    return { collector, timers, results };
  }

  it('collects trades until the feed has been connected for the settle time', () => {
    const { collector, timers, results } = harness();
    collector.add({ trades: [trade('t1', 'COMPLETED', after(1))] });
    collector.add({ connection: { state: 'connected' } });
    collector.add({ trades: [trade('t2', 'FAILED', after(2))] });
    expect(timers.map((t) => t.ms)).toEqual([30_000, 5_000]);
    timers[1]?.fn();
    expect(results).toHaveLength(1);
    expect(results[0]?.map((t) => t.tradeId)).toEqual(['t1', 't2']);
    expect(timers[0]?.cleared).toBe(true);
    // Later batches and timers change nothing.
    collector.add({ trades: [trade('t3', 'COMPLETED', after(3))] });
    timers[0]?.fn();
    expect(results).toHaveLength(1);
    expect(collector.isDone).toBe(true);
  });

  it('gives up waiting for the feed after the maximum time', () => {
    const { collector, timers, results } = harness();
    collector.add({ connection: { state: 'reconnecting' }, trades: [trade('t1', 'EXPIRED', after(1))] });
    expect(timers).toHaveLength(1);
    timers[0]?.fn();
    expect(results[0]?.map((t) => t.tradeId)).toEqual(['t1']);
  });

  it('starts the settle timer once', () => {
    const { collector, timers } = harness();
    collector.add({ connection: { state: 'connected' } });
    collector.add({ connection: { state: 'connected' } });
    expect(timers).toHaveLength(2);
  });
});

describe('relaunchNotices', () => {
  it('nothing when nothing changed', () => {
    expect(relaunchNotices([], QUIT, 7, after(30))).toBeNull();
    expect(relaunchNotices([trade('t1', 'COMPLETED', after(5))], null, 7, after(30))).toBeNull();
  });

  it('one desktop notification and one batch for the window, with the same words, repeating the last seq', () => {
    const notices = relaunchNotices([trade('t1', 'COMPLETED', after(5))], QUIT, 7, after(30));
    expect(notices?.desktop).toEqual({
      id: 'relaunch-summary',
      title: 'Merchant Desk',
      body: 'While you were away: 1 trade completed.',
      target: { type: 'trade', tradeId: 't1' },
      urgent: false,
    });
    expect(notices?.batch).toEqual({
      seq: 7,
      at: after(30),
      notifications: [
        { id: `relaunch-summary:${QUIT}`, kind: 'system', title: 'While you were away', body: 'While you were away: 1 trade completed.', target: { type: 'trade', tradeId: 't1' }, at: after(30) },
      ],
    });
  });

  it("the renderer's own batch handling turns the window's copy into a toast that opens the trade", () => {
    const batch = relaunchNotices([trade('t1', 'COMPLETED', after(5))], QUIT, 7, after(30))?.batch;
    const notes = pushToasts(initialNotes, toastsFromNotifications(batch?.notifications ?? []));
    expect(notes.toasts).toEqual([
      expect.objectContaining({ tone: 'info', title: 'While you were away', body: 'While you were away: 1 trade completed.', target: { type: 'trade', tradeId: 't1' } }),
    ]);
  });
});
