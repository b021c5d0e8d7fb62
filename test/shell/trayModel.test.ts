import { describe, expect, it } from 'vitest';
import {
  applyTrayBatch,
  sameTrayState,
  trayModel,
  trayStateFrom,
  type TrayState,
} from '../../src/main/shell/trayModel';

const base: TrayState = {
  activeTrades: 3,
  connectionState: 'connected',
  alertsPaused: false,
  unacknowledgedFirings: 0,
};

describe('trayModel', () => {
  it('says how many trades are active and how the feed is', () => {
    expect(trayModel(base).tooltip).toBe('Merchant Desk — 3 active trades · feed connected');
    expect(trayModel({ ...base, activeTrades: 1 }).tooltip).toBe('Merchant Desk — 1 active trade · feed connected');
    expect(trayModel({ ...base, activeTrades: 0, connectionState: 'reconnecting' }).tooltip).toBe(
      'Merchant Desk — no active trades · feed reconnecting',
    );
  });

  it('mentions new alerts and paused alerts', () => {
    expect(trayModel({ ...base, unacknowledgedFirings: 2, alertsPaused: true }).tooltip).toBe(
      'Merchant Desk — 3 active trades · feed connected · 2 new alerts · alerts paused',
    );
  });

  it("badges the count of active trades (the tooltip's number), never a negative or fractional count", () => {
    expect(trayModel(base).badgeCount).toBe(3);
    expect(trayModel({ ...base, activeTrades: 0 }).badgeCount).toBe(0);
    expect(trayModel({ ...base, activeTrades: -1 }).badgeCount).toBe(0);
    expect(trayModel({ ...base, activeTrades: 2.7 }).badgeCount).toBe(2);
    expect(trayModel({ ...base, activeTrades: Number.NaN }).badgeCount).toBe(0);
  });

  it('alert firings change the tooltip, not the badge', () => {
    const quiet = trayModel({ ...base, activeTrades: 1 });
    const alerting = trayModel({ ...base, activeTrades: 1, unacknowledgedFirings: 4 });
    expect(alerting.badgeCount).toBe(quiet.badgeCount);
    expect(alerting.badgeCount).toBe(1);
    expect(alerting.tooltip).toContain('4 new alerts');
  });

  it('builds the menu: open, pause/resume alerts, feed status, quit', () => {
    expect(trayModel(base).menu).toEqual([
      { id: 'open', label: 'Open Merchant Desk' },
      { type: 'checkbox', id: 'pause-alerts', label: 'Pause alerts', checked: false },
      { id: 'stop-auto-buy', label: 'Stop all auto-buy' },
      { id: 'feed', label: 'Feed: connected', enabled: false },
      { type: 'separator' },
      { id: 'quit', label: 'Quit' },
    ]);
    expect(trayModel({ ...base, alertsPaused: true }).menu[1]).toEqual({
      type: 'checkbox',
      id: 'pause-alerts',
      label: 'Resume alerts',
      checked: true,
    });
  });

  it('stops all auto-buy from the menu, and says when it is stopped', () => {
    expect(trayModel({ ...base, autoBuyStopped: true }).menu[2]).toEqual({
      id: 'stop-auto-buy',
      label: 'Resume auto-buy (stopped)',
    });
    expect(trayModel({ ...base, autoBuyStopped: true }).tooltip).toBe(
      'Merchant Desk — 3 active trades · feed connected · auto-buy stopped',
    );
    expect(sameTrayState(base, { ...base, autoBuyStopped: true })).toBe(false);
    expect(sameTrayState(base, { ...base, autoBuyStopped: false })).toBe(true);
  });

  it('words every connection state', () => {
    expect(trayModel({ ...base, connectionState: 'polling' }).menu[3]).toMatchObject({
      label: 'Feed: polling (no live feed)',
    });
    expect(trayModel({ ...base, connectionState: 'unauthorized' }).menu[3]).toMatchObject({
      label: 'Feed: API key refused',
    });
    expect(trayModel({ ...base, connectionState: 'maintenance' }).tooltip).toContain('feed marketplace maintenance');
  });
});

describe('unread notifications in the tray', () => {
  it('says the unread count in the tooltip and on the open entry, and nothing when all are read', () => {
    const model = trayModel({ ...base, unreadNotifications: 3 });
    expect(model.tooltip).toContain('3 unread notifications');
    expect(model.menu[0]).toEqual({ id: 'open', label: 'Open Merchant Desk (3 unread)' });
    expect(trayModel({ ...base, unreadNotifications: 1 }).tooltip).toContain('1 unread notification');
    const read = trayModel({ ...base, unreadNotifications: 0 });
    expect(read.tooltip).not.toContain('unread');
    expect(read.menu[0]).toEqual({ id: 'open', label: 'Open Merchant Desk' });
  });

  it('follows the unread count of each batch', () => {
    const next = applyTrayBatch(base, { unreadNotifications: 4 });
    expect(next).not.toBe(base);
    expect(trayModel(next).tooltip).toContain('4 unread notifications');
    expect(applyTrayBatch(next, { unreadNotifications: 4 })).toBe(next);
    expect(trayModel(applyTrayBatch(next, { unreadNotifications: 0 })).tooltip).not.toContain('unread');
  });
});

describe('applyTrayBatch', () => {
  it('takes active trades, connection and firings from a batch', () => {
    const next = applyTrayBatch(base, {
      activeTrades: 5,
      connection: { state: 'offline' },
      unacknowledgedFirings: 1,
    });
    expect(next).toEqual({
      activeTrades: 5,
      connectionState: 'offline',
      alertsPaused: false,
      unacknowledgedFirings: 1,
    });
  });

  it('returns the same object when nothing it shows changed', () => {
    expect(applyTrayBatch(base, {})).toBe(base);
    expect(applyTrayBatch(base, { activeTrades: 3, connection: { state: 'connected' } })).toBe(base);
  });
});

describe('trayStateFrom', () => {
  const snapshot = {
    activeTrades: 2,
    connection: { state: 'connected' as const },
    unacknowledgedFirings: 0,
    unreadNotifications: 0,
  };

  it('is the snapshot and the settings when no batch came while it was read', () => {
    expect(trayStateFrom(snapshot, { alertsPaused: true }, [])).toEqual({
      activeTrades: 2,
      connectionState: 'connected',
      alertsPaused: true,
      unacknowledgedFirings: 0,
      autoBuyStopped: false,
      unreadNotifications: 0,
    });
  });

  it('keeps what the batches sent while it was read say, newer than its counts', () => {
    const state = trayStateFrom(snapshot, { alertsPaused: false, autoBuyStopped: true }, [
      { unreadNotifications: 1 },
      { unacknowledgedFirings: 3, activeTrades: 4 },
      { connection: { state: 'reconnecting' } },
      { unreadNotifications: 2 },
    ]);
    expect(state).toMatchObject({
      activeTrades: 4,
      connectionState: 'reconnecting',
      unacknowledgedFirings: 3,
      unreadNotifications: 2,
      autoBuyStopped: true,
    });
    expect(trayModel(state).tooltip).toContain('2 unread notifications');
  });
});
