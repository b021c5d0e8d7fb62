import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyBatch } from '../../src/renderer/src/state/applyBatch';
import { initialState, useStore } from '../../src/renderer/src/state/store';
import {
  applyTradesBatch,
  initialTrades,
  receiveTradePage,
  tradeQueryKey,
  toTradeQuery,
  withDetailTrade,
} from '../../src/renderer/src/state/slices/trades';
import {
  initialAlerts,
  mergeFirings,
  moveFiringSelection,
  removeRule,
  upsertRule,
  withRules,
} from '../../src/renderer/src/state/slices/alerts';
import {
  dismissToast,
  initialNotes,
  MAX_TOASTS,
  pushToasts,
  toastsFromNotifications,
} from '../../src/renderer/src/state/slices/notes';
import { applyConnBatch, initialConn } from '../../src/renderer/src/state/slices/conn';
import { screenFromHash } from '../../src/renderer/src/state/slices/ui';
import { ruleInput, ruleProblems, EMPTY_RULE_FORM, formFromRule } from '../../src/renderer/src/screens/alerts/ruleForm';
import type { AlertFiring, AlertRule } from '../../src/shared/ipc/models';
import { catalogFiltersSchema } from '../../src/shared/ipc/contract';
import { EMPTY_FILTERS, withFilterEdit } from '../../src/renderer/src/lib/catalogQuery';
import { batch, items, trade } from './fixtures';

describe('applyBatch', () => {
  it('flags the trades list stale when a batch says more trades changed than it carries', () => {
    const s = initialState();
    expect(applyBatch(s, batch(1), 0).trades).toBeUndefined();
    expect(applyBatch(s, batch(1, { tradesInvalidated: true }), 0).trades?.stale).toBe(true);
  });

  it('returns only the slices a batch changed', () => {
    const s = initialState();
    expect(applyBatch(s, batch(1), 0)).toEqual({ conn: { ...s.conn, lastSeq: 1 } });
    const out = applyBatch(
      s,
      batch(2, { balance: { balance: 100, credit_limit: 0, total_available: 100 }, activeTrades: 3 }),
      0,
    );
    expect(Object.keys(out).sort()).toEqual(['conn', 'wallet']);
    expect(out.wallet?.balance?.total_available).toBe(100);
    expect(out.conn?.activeTrades).toBe(3);
  });

  it('follows the latest seq, also when it goes back (a restarted engine counts from 1)', () => {
    let conn = applyConnBatch(initialConn, batch(41));
    expect(conn.lastSeq).toBe(41);
    conn = applyConnBatch(conn, batch(1));
    expect(conn.lastSeq).toBe(1);
    expect(applyConnBatch(conn, batch(1))).toBe(conn);
  });

  it('leaves absent fields unchanged', () => {
    const conn = applyConnBatch(
      { ...initialConn, activeTrades: 4, unacknowledgedFirings: 2 },
      batch(5, { unacknowledgedFirings: 0 }),
    );
    expect(conn.activeTrades).toBe(4);
    expect(conn.unacknowledgedFirings).toBe(0);
  });

  it('folds every domain of a big batch into one state update', () => {
    const s = initialState();
    const out = applyBatch(
      s,
      batch(9, {
        connection: { state: 'connected', detail: 'Live', nextAttemptAt: null, since: '2026-03-01T12:00:00.000Z' },
        trades: [trade('t1', 'SENT')],
        items: items({ removed: [1] }),
        ledgerChanged: true,
        firings: [
          {
            id: 'f1',
            ruleId: 'r',
            ruleName: 'R',
            itemId: 1,
            market_hash_name: 'X',
            price: 1,
            firedAt: '2026-03-01T12:00:00.000Z',
            acknowledged: false,
            autoBuy: null,
          },
        ],
        notifications: [
          {
            id: 'n1',
            kind: 'trade',
            title: 'Trade sent',
            body: 'X',
            target: { type: 'trade', tradeId: 't1' },
            at: '2026-03-01T12:00:00.000Z',
          },
        ],
      }),
      0,
    );
    expect(Object.keys(out).sort()).toEqual(['alerts', 'catalog', 'conn', 'notes', 'trades', 'wallet']);
    expect(out.wallet?.stale).toBe(true);
    expect(out.notes?.toasts[0]?.target).toEqual({ type: 'trade', tradeId: 't1' });
  });

  it('is applied with exactly one setState per batch', async () => {
    vi.useFakeTimers();
    const { handleBatch } = await import('../../src/renderer/src/state/actions/boot');
    const spy = vi.spyOn(useStore, 'setState');
    handleBatch(
      batch(1, {
        activeTrades: 2,
        items: items({ prices: [{ itemId: 1, price: 2, previous: 1 }] }),
        balance: { balance: 1, credit_limit: 0, total_available: 1 },
      }),
    );
    expect(spy).toHaveBeenCalledTimes(1);
    expect(useStore.getState().conn.activeTrades).toBe(2);
    spy.mockRestore();
  });

  afterEach(() => {
    vi.useRealTimers();
  });
});

describe('the update state in the status bar', () => {
  it('takes the shell’s update batches (repeating the seq) and ends a pending question when the update is no longer ready', () => {
    const ready = { state: 'ready', version: '0.2.0', notes: null } as const;
    let conn = applyConnBatch(initialConn, batch(4));
    expect(conn.update).toBeNull();
    conn = applyConnBatch(conn, batch(4, { update: ready }));
    expect(conn).toMatchObject({ update: ready, lastSeq: 4 });
    conn = { ...conn, updateQuestion: '1 auto-buy rule is armed. Install version 0.2.0 now?' };
    expect(applyConnBatch(conn, batch(5, { activeTrades: 2 })).updateQuestion).toBe(conn.updateQuestion);
    const failed = applyConnBatch(conn, batch(5, { update: { state: 'error', message: 'x' } }));
    expect(failed).toMatchObject({ update: { state: 'error' }, updateQuestion: null });
  });
});

describe('trades slice', () => {
  it('builds the engine query from the tab and filters', () => {
    const q = toTradeQuery({
      ...initialTrades,
      tab: 'history',
      filters: { ...initialTrades.filters, statuses: ['FAILED'], externalId: ' ORD-1 ', webhookFailed: true },
      offset: 50,
    });
    expect(q).toMatchObject({
      statuses: ['FAILED'],
      activeOnly: false,
      externalId: 'ORD-1',
      webhookFailed: true,
      offset: 50,
      limit: 50,
      from: null,
      to: null,
    });
    expect(toTradeQuery(initialTrades).activeOnly).toBe(true);
  });

  it('takes a page only for the query it answers', () => {
    const key = tradeQueryKey(initialTrades);
    const page = { rows: [trade('a'), trade('b')], total: 2, offset: 0, limit: 50 };
    const s = receiveTradePage(initialTrades, key, page);
    expect(s.list.ids).toEqual(['a', 'b']);
    expect(receiveTradePage(initialTrades, 'other', page)).toBe(initialTrades);
  });

  it('updates trades live and flags the list stale when it may miss one', () => {
    const s = receiveTradePage(initialTrades, tradeQueryKey(initialTrades), {
      rows: [trade('a')],
      total: 1,
      offset: 0,
      limit: 50,
    });
    const updated = applyTradesBatch(s, [trade('a', 'SENT')]);
    expect(updated.byId['a']?.status).toBe('SENT');
    expect(updated.stale).toBe(false);
    expect(applyTradesBatch(s, [trade('new')]).stale).toBe(true);
    // On the active tab a trade that finished leaves the rows at once (a reload that never comes or answers late
    // cannot keep it there), and the list is read again to fill the page.
    const finished = applyTradesBatch(s, [trade('a', 'COMPLETED')]);
    expect(finished.stale).toBe(true);
    expect(finished.list).toMatchObject({ ids: [], total: 0 });
    expect(finished.byId).toEqual({});
    // On the history tab it stays, with its new status.
    const history = receiveTradePage(
      { ...initialTrades, tab: 'history' },
      tradeQueryKey({ ...initialTrades, tab: 'history' }),
      { rows: [trade('a')], total: 1, offset: 0, limit: 50 },
    );
    expect(applyTradesBatch(history, [trade('a', 'COMPLETED')]).list.ids).toEqual(['a']);
    expect(applyTradesBatch(s, undefined)).toBe(s);
  });

  it('keeps an open detail in step', () => {
    const s = {
      ...initialTrades,
      detail: { id: 'a', status: 'ready' as const, data: { trade: trade('a'), timeline: [] }, error: null },
    };
    expect(applyTradesBatch(s, [trade('a', 'FAILED', { errorCode: 500 })]).detail.data?.trade.errorCode).toBe(500);
  });

  it('holds only the trades on screen, however many pass by (the cache pages from SQLite)', () => {
    let s = receiveTradePage(initialTrades, tradeQueryKey(initialTrades), {
      rows: [trade('a'), trade('b')],
      total: 2,
      offset: 0,
      limit: 50,
    });
    // A flood of live trades the list does not show: flagged stale, not kept.
    for (let i = 0; i < 5000; i++) s = applyTradesBatch(s, [trade(`live-${i}`, 'SENT')]);
    expect(Object.keys(s.byId).sort()).toEqual(['a', 'b']);
    expect(s.stale).toBe(true);
    // The open detail is held beside the page; opening another drops the previous one.
    s = { ...s, detail: { id: 'x', status: 'loading', data: null, error: null } };
    s = withDetailTrade(s, trade('x'));
    expect(Object.keys(s.byId).sort()).toEqual(['a', 'b', 'x']);
    s = { ...s, detail: { id: 'y', status: 'loading', data: null, error: null } };
    s = withDetailTrade(s, trade('y'));
    expect(Object.keys(s.byId).sort()).toEqual(['a', 'b', 'y']);
    // A new page replaces the old one's records; the detail stays.
    s = receiveTradePage({ ...s, offset: 50 }, tradeQueryKey({ ...s, offset: 50 }), {
      rows: [trade('c')],
      total: 51,
      offset: 50,
      limit: 50,
    });
    expect(Object.keys(s.byId).sort()).toEqual(['c', 'y']);
  });
});

describe('alert firing selection', () => {
  const firing = (id: string, at: string) => ({
    id,
    ruleId: 'r',
    ruleName: 'R',
    itemId: 1,
    market_hash_name: id,
    price: 1,
    firedAt: at,
    acknowledged: false,
    autoBuy: null,
  });
  it('walks the firings newest first and forgets a firing that is gone', () => {
    let a = mergeFirings(initialAlerts, [
      firing('old', '2026-03-01T10:00:00.000Z'),
      firing('new', '2026-03-01T12:00:00.000Z'),
    ]);
    a = moveFiringSelection(a, 1);
    expect(a.selectedFiringId).toBe('new');
    a = moveFiringSelection(a, 1);
    expect(a.selectedFiringId).toBe('old');
    expect(moveFiringSelection(a, 1)).toBe(a);
    expect(moveFiringSelection(a, -1).selectedFiringId).toBe('new');
    expect(mergeFirings(a, [firing('new', '2026-03-01T12:00:00.000Z')], true).selectedFiringId).toBeNull();
  });
});

describe('alerts, toasts, routes', () => {
  const rule = (id: string): AlertRule => ({
    id,
    name: id,
    enabled: true,
    filters: catalogFiltersSchema.parse({ search: 'Doppler', seeds: [[1, 25]], discountMin: 20 }),
    maxPrice: 100_000,
    autoBuy: { enabled: false, recipientId: null, spendCap: 0, dailyCap: 0, spent: 0 },
    createdAt: '2026-03-01T12:00:00.000Z',
  });
  const firing = (id: string, firedAt: string, acknowledged = false): AlertFiring => ({
    id,
    ruleId: 'r1',
    ruleName: 'r1',
    itemId: 1,
    market_hash_name: 'X',
    price: 1,
    firedAt,
    acknowledged,
    autoBuy: null,
  });

  it('normalizes rules and keeps firings newest first', () => {
    let s = withRules(initialAlerts, [rule('r1'), rule('r2')]);
    s = upsertRule(s, { ...rule('r1'), name: 'renamed' });
    s = upsertRule(s, rule('r3'));
    expect(s.ruleOrder).toEqual(['r1', 'r2', 'r3']);
    expect(s.rules['r1']?.name).toBe('renamed');
    s = removeRule(s, 'r2');
    expect(s.ruleOrder).toEqual(['r1', 'r3']);
    s = mergeFirings(s, [firing('f1', '2026-03-01T12:00:00.000Z'), firing('f2', '2026-03-01T12:05:00.000Z')]);
    s = mergeFirings(s, [firing('f1', '2026-03-01T12:00:00.000Z', true)]);
    expect(s.firingOrder).toEqual(['f2', 'f1']);
    expect(s.firings['f1']?.acknowledged).toBe(true);
    expect(mergeFirings(s, [], true).firingOrder).toEqual([]);
  });

  it('stacks toasts, once per id, at most MAX_TOASTS', () => {
    const t = (id: string) => ({ id, tone: 'info' as const, title: id, body: '', target: null, at: '' });
    let s = pushToasts(initialNotes, [t('a'), t('a')]);
    s = pushToasts(s, [t('a')]);
    expect(s.toasts.map((x) => x.id)).toEqual(['a']);
    s = pushToasts(s, ['b', 'c', 'd', 'e', 'f', 'g'].map(t));
    expect(s.toasts).toHaveLength(MAX_TOASTS);
    expect(s.toasts[MAX_TOASTS - 1]?.id).toBe('g');
    expect(dismissToast(s, 'g').toasts).toHaveLength(MAX_TOASTS - 1);
  });

  it('collapses a flood of alert notifications into one summary toast', () => {
    // Ids as the engine makes them: the producer, then what it is about.
    const n = (name: string, kind: 'alert' | 'trade') => ({
      id: `${kind}:${name}`,
      kind,
      title: name,
      body: `body ${name}`,
      target: null,
      at: '2026-03-01T12:00:00.000Z',
    });
    expect(toastsFromNotifications([n('a', 'alert'), n('b', 'alert'), n('t', 'trade')]).map((t) => t.id)).toEqual([
      'trade:t',
      'alert:a',
      'alert:b',
    ]);
    const many = toastsFromNotifications([n('a', 'alert'), n('b', 'alert'), n('c', 'alert'), n('t', 'trade')]);
    expect(many).toHaveLength(2);
    expect(many[1]).toMatchObject({ title: '3 alerts fired', body: 'body a and 2 more', opensAlerts: true });
  });

  it('reads screens from the hash', () => {
    expect(screenFromHash('')).toEqual({ screen: 'catalog', sub: null });
    expect(screenFromHash('#/wallet')).toEqual({ screen: 'wallet', sub: null });
    expect(screenFromHash('#/trades/abc%2F1')).toEqual({ screen: 'trades', sub: 'abc/1' });
    expect(screenFromHash('#/nope')).toEqual({ screen: 'catalog', sub: null });
  });

  it('validates the rule editor and keeps auto-buy off by default', () => {
    expect(ruleProblems(EMPTY_RULE_FORM).name).toBeDefined();
    expect(ruleProblems({ ...EMPTY_RULE_FORM, name: 'x' }).filters).toBe(
      'Add at least one condition (a filter or a maximum price)',
    );
    const filters = withFilterEdit(EMPTY_FILTERS, {
      search: 'Doppler',
      phase: 'Ruby',
      stickerNames: 'Crown (Foil), Titan ',
      seeds: '661, 1-25',
      hasCharm: 'yes',
    });
    const ok = { ...EMPTY_RULE_FORM, name: 'Rubies', filters, maxPrice: '1,500' };
    expect(ruleProblems(ok)).toEqual({});
    expect(ruleInput(ok)).toEqual({
      name: 'Rubies',
      enabled: true,
      filters: catalogFiltersSchema.parse({
        search: 'Doppler',
        phase: 'Ruby',
        stickerNames: ['Crown (Foil)', 'Titan'],
        seeds: [
          [1, 25],
          [661, 661],
        ],
        hasCharm: true,
      }),
      maxPrice: 150_000,
      autoBuy: { enabled: false, recipientId: null, spendCap: 0, dailyCap: 0, dryRun: false },
    });
    // A filter the catalog would leave out is not saved as if it were not there.
    expect(ruleProblems({ ...ok, filters: withFilterEdit(filters, { seeds: '661, abc' }) }).filters).toBe(
      'Fix the filter marked in red',
    );
    expect(ruleProblems({ ...ok, filters: withFilterEdit(filters, { discountMin: '150' }) }).filters).toBe(
      'Fix the filter marked in red',
    );
    const auto = { ...ok, autoBuy: true };
    // Auto-buy needs a maximum price per item, as the engine does.
    expect(ruleProblems({ ...auto, maxPrice: '', recipientId: 'r', spendCap: '100', dailyCap: '50' })).toEqual({
      maxPrice: 'Auto-buy needs a maximum price per item',
    });
    expect(Object.keys(ruleProblems(auto)).sort()).toEqual(['dailyCap', 'recipientId', 'spendCap']);
    expect(ruleProblems({ ...auto, recipientId: 'r', spendCap: '100', dailyCap: '200' }).dailyCap).toMatch(/exceed/);
    expect(ruleInput({ ...auto, recipientId: 'r', spendCap: '100', dailyCap: '50' }).autoBuy).toEqual({
      enabled: true,
      recipientId: 'r',
      spendCap: 10_000,
      dailyCap: 5000,
      dryRun: false,
    });
    expect(
      ruleInput({ ...auto, recipientId: 'r', spendCap: '100', dailyCap: '50', dryRun: true }).autoBuy?.dryRun,
    ).toBe(true);
    expect(formFromRule(rule('r1')).maxPrice).toBe('1000.00');
    expect(formFromRule(rule('r1')).filters).toMatchObject({ search: 'Doppler', seeds: '1-25', discountMin: '20' });
    expect(ruleInput(formFromRule(rule('r1'))).filters).toEqual(rule('r1').filters);
  });
});
