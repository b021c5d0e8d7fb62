import { describe, expect, it } from 'vitest';
import type { Notification } from '../../src/shared/ipc';
import {
  MAX_DESKTOP_NOTIFICATIONS_PER_BATCH,
  clickAction,
  planDesktopNotifications,
  type NotificationSettings,
  type DesktopNotice,
} from '../../src/main/shell/notificationModel';
import { BurstGate } from '../../src/shared/notifications';

const settings: NotificationSettings = {
  notifyStatuses: ['SENT', 'COMPLETED', 'FAILED', 'REJECTED'],
  notifyAlerts: true,
  alertsPaused: false,
};

function trade(tradeId: string, status: string): Notification {
  return {
    id: `trade:${tradeId}:${status}`,
    kind: 'trade',
    title: 'AK-47 | Redline (Field-Tested)',
    body: `Trade $12.34 ${status.toLowerCase()}`,
    target: { type: 'trade', tradeId },
    at: '2026-01-01T00:00:00.000Z',
  };
}

function alert(id: string, itemId: number): Notification {
  return {
    id: `alert:${id}`,
    kind: 'alert',
    title: 'Alert: cheap AK',
    body: 'AK at $10.00',
    target: { type: 'item', itemId },
    at: '2026-01-01T00:00:00.000Z',
  };
}

describe('planDesktopNotifications', () => {
  it('shows trade notifications for the statuses the user chose, with their target and severity', () => {
    const plan = planDesktopNotifications([trade('t1', 'COMPLETED')], settings);
    expect(plan).toEqual([
      {
        id: 'trade:t1:COMPLETED',
        title: 'AK-47 | Redline (Field-Tested)',
        body: 'Trade $12.34 completed',
        target: { type: 'trade', tradeId: 't1' },
        urgent: false,
        severity: 'success',
      },
    ]);
  });

  it('gives each trade status its severity: delivered green, cancelled/failed/expired red, reversed amber, sent neutral', () => {
    const all = {
      ...settings,
      notifyStatuses: [
        'SENT',
        'COMPLETED',
        'CANCELLED',
        'FAILED',
        'EXPIRED',
        'REVERSED',
      ] as NotificationSettings['notifyStatuses'],
    };
    const severityOf = (status: string) => planDesktopNotifications([trade('t1', status)], all)[0]?.severity;
    expect(['COMPLETED', 'CANCELLED', 'FAILED', 'EXPIRED', 'REVERSED', 'SENT'].map(severityOf)).toEqual([
      'success',
      'danger',
      'danger',
      'danger',
      'warning',
      'neutral',
    ]);
  });

  it('groups a burst of one kind into one notification: "12 trades delivered"', () => {
    const burst = Array.from({ length: 12 }, (_, i) => trade(`t${i}`, 'COMPLETED'));
    const plan = planDesktopNotifications(burst, settings);
    expect(plan).toHaveLength(1);
    expect(plan[0]).toMatchObject({
      id: 'group:trade:t0:COMPLETED',
      title: '12 trades delivered',
      severity: 'success',
      // Several trades: a click opens Trades.
      target: { type: 'trades' },
      urgent: false,
    });
    expect(plan[0]?.body).toBe(
      'AK-47 | Redline (Field-Tested), AK-47 | Redline (Field-Tested), AK-47 | Redline (Field-Tested) and 9 more',
    );
  });

  it('drops statuses turned off since the engine raised them', () => {
    expect(planDesktopNotifications([trade('t1', 'EXPIRED')], settings)).toEqual([]);
  });

  it('marks failures and alerts urgent', () => {
    const plan = planDesktopNotifications([trade('t1', 'FAILED'), alert('a1', 7)], settings);
    expect(plan.map((n) => n.urgent)).toEqual([true, true]);
  });

  it('shows alerts only when alert notifications are on and alerts are not paused', () => {
    expect(planDesktopNotifications([alert('a1', 7)], settings)).toHaveLength(1);
    expect(planDesktopNotifications([alert('a1', 7)], { ...settings, notifyAlerts: false })).toEqual([]);
    expect(planDesktopNotifications([alert('a1', 7)], { ...settings, alertsPaused: true })).toEqual([]);
  });

  it('always shows system notices', () => {
    const system: Notification = {
      id: 's1',
      kind: 'system',
      title: 'Feed',
      body: 'Reconnected',
      target: null,
      at: 'x',
    };
    expect(
      planDesktopNotifications([system], { notifyStatuses: [], notifyAlerts: false, alertsPaused: true }),
    ).toHaveLength(1);
  });

  it('shows a batch of up to three kinds as one notification per kind, and folds more kinds into one summary', () => {
    const threeKinds = [trade('t1', 'COMPLETED'), trade('t2', 'COMPLETED'), trade('t3', 'FAILED'), alert('a1', 7)];
    expect(planDesktopNotifications(threeKinds, settings).map((n) => n.title)).toEqual([
      '2 trades delivered',
      'AK-47 | Redline (Field-Tested)',
      'Alert: cheap AK',
    ]);
    const burst = [...threeKinds, trade('t4', 'SENT')];
    expect(new Set(burst.map((n) => n.id.replace(/:t\d:/, ':'))).size).toBeGreaterThan(
      MAX_DESKTOP_NOTIFICATIONS_PER_BATCH,
    );
    const plan = planDesktopNotifications(burst, settings);
    expect(plan).toEqual([
      {
        id: 'summary:trade:t1:COMPLETED',
        title: 'Merchant Desk',
        body: '2 trades delivered, 1 trade failed, 1 alert fired, 1 trade sent. Open Merchant Desk to see them.',
        target: null,
        urgent: true,
        severity: 'danger',
      },
    ]);
  });

  it('keeps the target of a burst that all points at one trade', () => {
    const plan = planDesktopNotifications(
      [trade('t1', 'SENT'), trade('t1', 'COMPLETED'), trade('t1', 'REJECTED'), trade('t1', 'FAILED')],
      settings,
    );
    expect(plan).toHaveLength(1);
    expect(plan[0]?.target).toEqual({ type: 'trade', tradeId: 't1' });
  });

  it('shortens very long text', () => {
    const long = { ...trade('t1', 'COMPLETED'), body: 'x'.repeat(1000), title: 'y\n'.repeat(200) };
    const [notice] = planDesktopNotifications([long], settings);
    expect(notice?.body.length).toBeLessThanOrEqual(300);
    expect(notice?.title.length).toBeLessThanOrEqual(120);
    expect(notice?.title).not.toContain('\n');
  });

  it('handles a batch without notifications', () => {
    expect(planDesktopNotifications(undefined, settings)).toEqual([]);
  });
});

describe('clickAction', () => {
  const away = (target: Notification['target']): Notification => ({
    id: 'away-summary:2026-01-01T00:00:00.000Z',
    kind: 'system',
    category: 'trade',
    severity: 'neutral',
    title: 'While you were away',
    body: '2 trades completed.',
    target,
    at: '2026-01-01T00:00:00.000Z',
  });
  const clickOf = (list: Notification[]) => planDesktopNotifications(list, settings).map(clickAction);

  it("a trade's notification opens that trade", () => {
    expect(clickOf([trade('t9', 'COMPLETED')])).toEqual([
      { showWindow: true, navigate: { type: 'trade', tradeId: 't9' } },
    ]);
  });

  it('a notice about several trades opens Trades: a grouped burst, a summary of trade kinds, "While you were away"', () => {
    const trades = { showWindow: true, navigate: { type: 'trades' } };
    expect(clickOf([trade('t1', 'COMPLETED'), trade('t2', 'COMPLETED')])).toEqual([trades]);
    const fourKinds = ['COMPLETED', 'FAILED', 'SENT', 'REJECTED'].map((status, i) => trade(`t${i}`, status));
    const summary = planDesktopNotifications(fourKinds, settings);
    expect(summary.map((n) => n.id)).toEqual(['summary:trade:t0:COMPLETED']);
    expect(summary.map(clickAction)).toEqual([trades]);
    expect(clickOf([away(null)])).toEqual([trades]);
    // The away summary of one trade opens it.
    expect(clickOf([away({ type: 'trade', tradeId: 't5' })])).toEqual([
      { showWindow: true, navigate: { type: 'trade', tradeId: 't5' } },
    ]);
  });

  it('a summary that mixes trades and alerts just shows the window', () => {
    const mixed = [trade('t1', 'COMPLETED'), trade('t2', 'FAILED'), trade('t3', 'SENT'), alert('a1', 7)];
    expect(clickOf(mixed)).toEqual([{ showWindow: true, navigate: null }]);
  });

  it('shows the window and opens the target', () => {
    expect(clickAction({ target: { type: 'item', itemId: 7 } })).toEqual({
      showWindow: true,
      navigate: { type: 'item', itemId: 7 },
    });
    expect(clickAction({ target: null })).toEqual({ showWindow: true, navigate: null });
  });
});

describe('pacing across batches (BurstGate)', () => {
  /** A clock and timers the test moves by hand. */
  function manualTime() {
    let now = 0;
    const timers: { at: number; run: () => void }[] = [];
    return {
      now: () => now,
      setTimer: (run: () => void, ms: number) => {
        const timer = { at: now + ms, run };
        timers.push(timer);
        return timer;
      },
      clearTimer: (timer: unknown) => {
        const i = timers.indexOf(timer as (typeof timers)[number]);
        if (i >= 0) timers.splice(i, 1);
      },
      advanceTo(to: number) {
        for (;;) {
          timers.sort((a, b) => a.at - b.at);
          const next = timers[0];
          if (!next || next.at > to) break;
          timers.shift();
          now = next.at;
          next.run();
        }
        now = to;
      },
    };
  }

  it('15 trades sent and delivered over 100 s are a handful of grouped notifications, not 30, and none is lost', () => {
    const time = manualTime();
    const shown: DesktopNotice[] = [];
    const gate = new BurstGate<Notification>(
      (list, paced) => shown.push(...planDesktopNotifications(list, settings, paced ? 1 : undefined)),
      { windowMs: 15_000, ...time },
    );
    for (let i = 0; i < 15; i++) {
      time.advanceTo(i * 6_600);
      gate.offer([trade(`t${i}`, 'SENT')]);
      time.advanceTo(i * 6_600 + 3_000);
      gate.offer([trade(`t${i}`, 'COMPLETED')]);
    }
    time.advanceTo(200_000);
    // The first at once, then one grouped notice per 15 s window: 8, where one per status change was 30.
    expect(shown.length).toBeLessThanOrEqual(8);
    const counted = (status: string) =>
      shown.reduce((sum, n) => {
        const words = status === 'SENT' ? 'sent' : 'delivered';
        const many = new RegExp(`(\\d+) trades? ${words}`).exec(n.title)?.[1];
        if (many) return sum + Number(many);
        if (n.id.startsWith('trade:') && n.id.endsWith(`:${status}`)) return sum + 1;
        return (
          sum + [...n.body.matchAll(new RegExp(`(\\d+) trades? ${words}`, 'g'))].reduce((s2, m) => s2 + Number(m[1]), 0)
        );
      }, 0);
    expect(counted('SENT')).toBe(15);
    expect(counted('COMPLETED')).toBe(15);
  });

  it('shows the first at once and holds nothing when batches are far apart', () => {
    const time = manualTime();
    const shown: string[] = [];
    const gate = new BurstGate<Notification>((list) => shown.push(...list.map((n) => n.id)), {
      windowMs: 15_000,
      ...time,
    });
    gate.offer([trade('a', 'COMPLETED')]);
    expect(shown).toEqual(['trade:a:COMPLETED']);
    time.advanceTo(20_000);
    gate.offer([trade('b', 'COMPLETED')]);
    expect(shown).toEqual(['trade:a:COMPLETED', 'trade:b:COMPLETED']);
    gate.offer([trade('c', 'COMPLETED')]);
    expect(shown).toHaveLength(2);
    time.advanceTo(35_000);
    expect(shown).toEqual(['trade:a:COMPLETED', 'trade:b:COMPLETED', 'trade:c:COMPLETED']);
    gate.close();
  });
});
