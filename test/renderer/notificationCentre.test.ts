import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/main/core/engine/appConfig';
import type { Notification, NotificationCategory } from '../../src/shared/ipc/models';
import { playNotificationSounds, setSoundPlayer, webAudioChime } from '../../src/renderer/src/lib/sound';
import { toastsFromNotifications } from '../../src/renderer/src/state/slices/notes';
import { titleWithUnread } from '../../src/renderer/src/state/slices/inbox';
import { planWebNotifications } from '../../src/renderer/src/state/actions/webNotifications';
import { applyBatch } from '../../src/renderer/src/state/applyBatch';
import { initialState } from '../../src/renderer/src/state/store';
import { groupNotifications } from '../../src/shared/notifications';

const at = '2026-11-26T05:00:00.000Z';
const trade = (tradeId: string, status: string, extra: Partial<Notification> = {}): Notification => ({
  id: `trade:${tradeId}:${status}`,
  kind: 'trade',
  title: `Item ${tradeId}`,
  body: `Trade $1.00 to partner 1 ${status.toLowerCase()}`,
  target: { type: 'trade', tradeId },
  at,
  ...extra,
});
const alert = (id: string): Notification => ({
  id: `alert:${id}`,
  kind: 'alert',
  title: 'Alert: cheap',
  body: `Item ${id} at $1.00`,
  target: { type: 'item', itemId: 1 },
  at,
});
const connection: Notification = {
  id: 'connection:maintenance:x',
  kind: 'system',
  category: 'connection',
  severity: 'warning',
  title: 'Marketplace in maintenance',
  body: '',
  target: null,
  at,
};

describe('sounds', () => {
  const played: NotificationCategory[] = [];
  let previous = setSoundPlayer((category) => played.push(category));
  afterEach(() => {
    played.length = 0;
  });

  it('plays nothing under the default settings', () => {
    expect(DEFAULT_SETTINGS.soundCategories).toEqual([]);
    expect(DEFAULT_SETTINGS.soundMuted).toBe(false);
    playNotificationSounds([trade('a', 'COMPLETED'), alert('x'), connection], DEFAULT_SETTINGS);
    playNotificationSounds([trade('a', 'COMPLETED')], null);
    expect(played).toEqual([]);
  });

  it('plays a chosen kind once per batch, only that kind, and nothing while muted', () => {
    const burst = Array.from({ length: 12 }, (_, i) => trade(`t${i}`, 'COMPLETED'));
    playNotificationSounds([...burst, alert('x'), connection], {
      soundCategories: ['trade', 'connection'],
      soundMuted: false,
    });
    expect(played).toEqual(['trade', 'connection']);
    played.length = 0;
    playNotificationSounds([alert('x')], { soundCategories: ['trade'], soundMuted: false });
    expect(played).toEqual([]);
    playNotificationSounds([...burst, alert('x')], { soundCategories: ['trade', 'alert'], soundMuted: true });
    expect(played).toEqual([]);
  });

  it('the default player is a Web Audio chime that stays silent where there is no audio', () => {
    previous = setSoundPlayer(previous);
    expect(() => webAudioChime('trade')).not.toThrow();
    setSoundPlayer(previous);
  });
});

describe('toasts and browser notifications', () => {
  it('take the severity tone: delivered green, cancelled/failed/expired red, reversed amber, sent neutral', () => {
    const tones = toastsFromNotifications(
      ['COMPLETED', 'CANCELLED', 'FAILED', 'EXPIRED', 'REVERSED', 'SENT'].map((s, i) => trade(`t${i}`, s)),
    ).map((t) => [t.id.split(':')[2], t.tone]);
    expect(tones).toEqual([
      ['COMPLETED', 'success'],
      ['CANCELLED', 'error'],
      ['FAILED', 'error'],
      ['EXPIRED', 'error'],
      ['REVERSED', 'warn'],
      ['SENT', 'neutral'],
    ]);
  });

  it('fold a burst into one toast and one browser notification: "12 trades delivered"', () => {
    const burst = Array.from({ length: 12 }, (_, i) => trade(`t${i}`, 'COMPLETED'));
    const toasts = toastsFromNotifications(burst);
    expect(toasts).toHaveLength(1);
    expect(toasts[0]).toMatchObject({ title: '12 trades delivered', tone: 'success', opensNotifications: true });
    const web = planWebNotifications(burst, DEFAULT_SETTINGS);
    expect(web).toEqual([
      {
        tag: 'group:trade:t0:COMPLETED',
        title: '12 trades delivered',
        body: 'Item t0, Item t1, Item t2 and 9 more',
        target: { type: 'trades' },
      },
    ]);
  });

  it('browser notifications follow the status and alert settings, and fold more than three kinds into one', () => {
    expect(planWebNotifications([trade('a', 'SENT')], { ...DEFAULT_SETTINGS, notifyStatuses: ['COMPLETED'] })).toEqual(
      [],
    );
    expect(planWebNotifications([alert('x')], { ...DEFAULT_SETTINGS, alertsPaused: true })).toEqual([]);
    const mixed = [trade('a', 'COMPLETED'), trade('b', 'FAILED'), trade('c', 'SENT'), alert('x')];
    expect(planWebNotifications(mixed, DEFAULT_SETTINGS)).toEqual([
      {
        tag: 'summary:trade:a:COMPLETED',
        title: 'Merchant Desk',
        body: '1 trade delivered, 1 trade failed, 1 trade sent, 1 alert fired',
        target: null,
      },
    ]);
    // Only trades folded: a click opens Trades.
    const tradesOnly = [...mixed.slice(0, 3), trade('d', 'CANCELLED')];
    expect(planWebNotifications(tradesOnly, DEFAULT_SETTINGS).map((n) => n.target)).toEqual([{ type: 'trades' }]);
  });
});

describe('the centre in the renderer state', () => {
  it('follows the unread count of batches and the snapshot, and shows it in the title', () => {
    const state = initialState();
    const out = applyBatch(state, { seq: 1, at, unreadNotifications: 7 }, 0);
    expect(out.inbox?.unread).toBe(7);
    expect(titleWithUnread('Merchant Desk', 7)).toBe('(7) Merchant Desk');
    expect(titleWithUnread('Merchant Desk', 0)).toBe('Merchant Desk');
    expect(titleWithUnread('Merchant Desk', 12_345)).toBe('(999+) Merchant Desk');
  });

  it('lists runs of one kind within a minute as one group, keeping order', () => {
    const rows = [
      trade('a', 'COMPLETED', { at: '2026-11-26T05:00:30.000Z' }),
      trade('b', 'COMPLETED', { at: '2026-11-26T05:00:10.000Z' }),
      trade('c', 'CANCELLED', { at: '2026-11-26T05:00:05.000Z' }),
      trade('d', 'COMPLETED', { at: '2026-11-26T04:50:00.000Z' }),
    ];
    expect(groupNotifications(rows).map((g) => [g.title, g.severity, g.members.length])).toEqual([
      ['2 trades delivered', 'success', 2],
      ['Item c', 'danger', 1],
      ['Item d', 'success', 1],
    ]);
  });
});
