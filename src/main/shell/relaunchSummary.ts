import type { Trade, TradeStatus } from '../../shared/api';
import type { EngineEventBatch } from '../../shared/ipc';

/**
 * "While you were away": after a relaunch the engine reconciles the trades it
 * knew were active; the ones whose `updatedAt` is after the last quit changed
 * while the app was closed. This folds them into one paragraph for a
 * notification.
 */

type Phrase = { verb: string; voice: 'active' | 'passive' | 'present' };

const PHRASES: Record<TradeStatus, Phrase> = {
  COMPLETED: { verb: 'completed', voice: 'active' },
  REJECTED: { verb: 'declined', voice: 'passive' },
  CANCELLED: { verb: 'cancelled', voice: 'passive' },
  FAILED: { verb: 'failed', voice: 'active' },
  EXPIRED: { verb: 'expired', voice: 'active' },
  REVERSED: { verb: 'reversed', voice: 'passive' },
  SENT: { verb: 'waiting for the recipient', voice: 'present' },
  CREATING: { verb: 'being created', voice: 'present' },
  PENDING: { verb: 'pending', voice: 'present' },
};

/** The order clauses appear in: outcomes first, then what is still going. */
const ORDER: TradeStatus[] = ['COMPLETED', 'REJECTED', 'CANCELLED', 'FAILED', 'EXPIRED', 'REVERSED', 'SENT', 'CREATING', 'PENDING'];

function clause(n: number, phrase: Phrase, first: boolean): string {
  const subject = first ? `${n} trade${n === 1 ? '' : 's'}` : String(n);
  switch (phrase.voice) {
    case 'active':
      return `${subject} ${phrase.verb}`;
    case 'passive':
      return `${subject} ${n === 1 ? 'was' : 'were'} ${phrase.verb}`;
    case 'present':
      return `${subject} ${n === 1 ? 'is' : 'are'} ${phrase.verb}`;
  }
}

/** Trades changed after `lastQuitAt` (UTC ISO), latest state per trade. */
export function changedSince(trades: readonly Trade[], lastQuitAt: string | null): Trade[] {
  if (!lastQuitAt) return [];
  const since = Date.parse(lastQuitAt);
  if (!Number.isFinite(since)) return [];
  const latest = new Map<string, Trade>();
  for (const trade of trades) {
    const at = Date.parse(trade.updatedAt);
    if (!(at > since)) continue;
    const seen = latest.get(trade.tradeId);
    if (!seen || Date.parse(seen.updatedAt) <= at) latest.set(trade.tradeId, trade);
  }
  return [...latest.values()];
}

/** One paragraph, or null when nothing changed: "While you were away: 2 trades completed, 1 was declined." */
export function relaunchSummary(trades: readonly Trade[], lastQuitAt: string | null): string | null {
  const changed = changedSince(trades, lastQuitAt);
  if (changed.length === 0) return null;
  const counts = new Map<TradeStatus, number>();
  for (const trade of changed) counts.set(trade.status, (counts.get(trade.status) ?? 0) + 1);
  const clauses = ORDER.filter((status) => (counts.get(status) ?? 0) > 0).map((status, i) =>
    clause(counts.get(status) ?? 0, PHRASES[status], i === 0),
  );
  return `While you were away: ${clauses.join(', ')}.`;
}

/** Where clicking the summary goes: the trade itself when only one changed. */
export function relaunchTarget(trades: readonly Trade[], lastQuitAt: string | null): { type: 'trade'; tradeId: string } | null {
  const changed = changedSince(trades, lastQuitAt);
  return changed.length === 1 && changed[0] ? { type: 'trade', tradeId: changed[0].tradeId } : null;
}

/**
 * What the shell shows after a relaunch, or null when nothing changed: the desktop notification, and the
 * same words for the window as an event batch of the shell's own (the renderer shows batch notifications as
 * toasts). The batch repeats `seq`, the last one forwarded, so the renderer's gap check ignores it.
 */
export function relaunchNotices(
  trades: readonly Trade[],
  lastQuitAt: string | null,
  seq: number,
  nowIso: string,
): { desktop: { id: string; title: string; body: string; target: { type: 'trade'; tradeId: string } | null; urgent: false }; batch: EngineEventBatch } | null {
  const body = relaunchSummary(trades, lastQuitAt);
  if (!body) return null;
  const target = relaunchTarget(trades, lastQuitAt);
  return {
    desktop: { id: 'relaunch-summary', title: 'Merchant Desk', body, target, urgent: false },
    batch: { seq, at: nowIso, notifications: [{ id: `relaunch-summary:${lastQuitAt}`, kind: 'system', title: 'While you were away', body, target, at: nowIso }] },
  };
}

/**
 * Collects the trades the engine announces right after start (its reconcile),
 * until `settleMs` after the feed first connects or `maxMs` after start, then
 * calls `done` once with what it saw. Timers are injected for tests.
 */
export class AwayChangesCollector {
  private readonly trades: Trade[] = [];
  private finished = false;
  private settleTimer: unknown = null;
  private readonly maxTimer: unknown;

  constructor(
    private readonly options: {
      settleMs: number;
      maxMs: number;
      done: (trades: Trade[]) => void;
      setTimer?: (fn: () => void, ms: number) => unknown;
      clearTimer?: (timer: unknown) => void;
    },
  ) {
    this.maxTimer = this.set(() => this.finish(), options.maxMs);
  }

  get isDone(): boolean {
    return this.finished;
  }

  /** Feed one engine event batch. */
  add(batch: { trades?: Trade[]; connection?: { state: string } }): void {
    if (this.finished) return;
    if (batch.trades) this.trades.push(...batch.trades);
    if (batch.connection?.state === 'connected' && this.settleTimer === null) {
      this.settleTimer = this.set(() => this.finish(), this.options.settleMs);
    }
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.clear(this.maxTimer);
    if (this.settleTimer !== null) this.clear(this.settleTimer);
    this.options.done([...this.trades]);
  }

  private set(fn: () => void, ms: number): unknown {
    return (this.options.setTimer ?? ((f, t) => setTimeout(f, t)))(fn, ms);
  }

  private clear(timer: unknown): void {
    (this.options.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>)))(timer);
  }
}
