import type { Trade, TradeStatus } from '../../../shared/api';
import type { AwaySummary, Notification } from '../../../shared/ipc';
import { formatSignedCents } from '../../../shared/money';
import { toUtcIso } from '../../../shared/time';
import type { LocalStore } from '../store';
import { HISTORY_MARK_META } from '../store/schema';

/** What the tracker hears from the account session (its hooks of the same names). */
export interface AwayHooks {
  onTradesStored(changed: readonly Trade[], newStatuses: readonly { tradeId: string; status: Trade['status'] }[]): void;
  onFirstSync(): void;
}

/**
 * "While you were away": what the first sync after launch brought that the cache did not hold — trades that
 * reached a status for the first time (the store decides "first time", so replays and back-fill overlaps do
 * not count), ledger entries, and alert matches recorded since launch. A cache that never completed a
 * history back-fill has nothing to compare with: no summary.
 */

/** Outcomes first, then what is still going (the order the summary lists them in). */
const ORDER: TradeStatus[] = [
  'COMPLETED',
  'REJECTED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
  'REVERSED',
  'SENT',
  'CREATING',
  'PENDING',
];

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

export class AwayTracker {
  private readonly trades = new Map<string, Trade>();
  private finished = false;

  private constructor(
    private readonly launchedAt: string,
    private readonly lastHistoryAt: string,
    private readonly ledgerBefore: number,
  ) {}

  /** Reads what the cache holds at launch, before anything goes over the network; null for a cache with no history yet. */
  static async begin(store: LocalStore): Promise<AwayTracker | null> {
    const launchedAt = toUtcIso(Date.now());
    const mark = await store.getMeta(HISTORY_MARK_META);
    if (typeof mark !== 'string') return null;
    const ledger = await store.queryLedger({ limit: 1 });
    return new AwayTracker(launchedAt, mark, ledger.total);
  }

  /** Trades the sync stored, with the statuses each reached for the first time. */
  tradesStored(changed: readonly Trade[], newStatuses: readonly { tradeId: string; status: TradeStatus }[]): void {
    if (this.finished) return;
    const byId = new Map(changed.map((trade) => [trade.tradeId, trade]));
    for (const { tradeId } of newStatuses) {
      const trade = byId.get(tradeId);
      if (trade) this.trades.set(tradeId, trade);
    }
  }

  /**
   * The session hooks that feed it, and the summary reported once the first sync and the start-up's back-fill
   * and ledger sync are done (`settled`).
   */
  sessionHooks(
    store: LocalStore,
    settled: () => Promise<void>,
    report: (summary: AwaySummary | null) => void,
    log: (line: string) => void,
  ): AwayHooks {
    return {
      onTradesStored: (changed, newStatuses) => this.tradesStored(changed, newStatuses),
      onFirstSync: () => {
        void settled()
          .then(() => this.finish(store))
          .then(report)
          .catch((error: unknown) => log(`while-away summary: ${(error as Error).message}`));
      },
    };
  }

  /** The summary once the first sync is done; null when nothing changed. */
  async finish(store: LocalStore): Promise<AwaySummary | null> {
    this.finished = true;
    const counts = new Map<TradeStatus, { count: number; total: number }>();
    for (const trade of this.trades.values()) {
      const entry = counts.get(trade.status) ?? { count: 0, total: 0 };
      counts.set(trade.status, { count: entry.count + 1, total: entry.total + trade.price });
    }
    const trades = ORDER.filter((status) => counts.has(status)).map((status) => ({
      status,
      ...(counts.get(status) ?? { count: 0, total: 0 }),
    }));

    const ledgerAfter = await store.queryLedger({ limit: 1 });
    const newEntries = Math.max(0, ledgerAfter.total - this.ledgerBefore);
    let net = 0;
    for (let offset = 0; offset < newEntries; offset += 1000) {
      const page = await store.queryLedger({ offset, limit: Math.min(1000, newEntries - offset) });
      for (const row of page.rows) net += row.amount;
    }

    const firings = (await store.listFirings({ limit: 10_000 })).filter((firing) => firing.firedAt >= this.launchedAt);
    const alertMatches = {
      count: firings.length,
      autoBought: firings.filter((firing) => firing.autoBuy?.tradeId).length,
    };

    if (trades.length === 0 && newEntries === 0 && alertMatches.count === 0) return null;
    const only = this.trades.size === 1 ? [...this.trades.values()][0] : undefined;
    return {
      since: this.lastHistoryAt,
      at: toUtcIso(Date.now()),
      trades,
      onlyTradeId: only ? only.tradeId : null,
      ledger: { count: newEntries, net },
      alertMatches,
    };
  }
}

/** One paragraph: "2 trades completed, 1 was cancelled; 3 ledger entries (net +$1.20); 1 alert match." */
export function awaySummaryText(summary: AwaySummary): string {
  const parts: string[] = [];
  const clauses = summary.trades.map(({ status, count }, i) => clause(count, PHRASES[status], i === 0));
  if (clauses.length > 0) parts.push(clauses.join(', '));
  const { count, net } = summary.ledger;
  if (count > 0) parts.push(`${count} ledger ${count === 1 ? 'entry' : 'entries'} (net ${formatSignedCents(net)})`);
  const matches = summary.alertMatches;
  if (matches.count > 0) {
    const bought = matches.autoBought > 0 ? `, ${matches.autoBought} auto-bought` : '';
    parts.push(`${matches.count} alert match${matches.count === 1 ? '' : 'es'}${bought}`);
  }
  return `${parts.join('; ')}.`;
}

/** The summary as a notification (the centre keeps it; the desktop shows it): one trade opens that trade. */
export function awaySummaryNotification(summary: AwaySummary): Notification {
  return {
    id: `away-summary:${summary.at}`,
    kind: 'system',
    category: 'trade',
    severity: 'neutral',
    title: 'While you were away',
    body: awaySummaryText(summary),
    target: summary.onlyTradeId ? { type: 'trade', tradeId: summary.onlyTradeId } : null,
    at: summary.at,
  };
}

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
