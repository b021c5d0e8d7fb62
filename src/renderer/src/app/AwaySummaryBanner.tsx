import type { TradeStatus } from '../../../shared/api';
import { formatCents, formatDateTime, formatSignedCents } from '../lib/format';
import { writePref } from '../lib/persist';
import { STATUS_LABELS } from '../lib/status';
import { AWAY_DISMISSED_PREF, visibleAwaySummary } from '../state/slices/away';
import { openTarget, navigate } from '../state/actions/navigation';
import { update, useStore } from '../state/store';

function tradeLine(trades: { status: TradeStatus; count: number; total: number }[]): string {
  return trades
    .map(({ status, count, total }) => `${count} ${STATUS_LABELS[status].toLowerCase()} (${formatCents(total)})`)
    .join(', ');
}

/** "While you were away": what the first sync after launch found, until dismissed. */
export function AwaySummaryBanner() {
  const summary = useStore((s) => visibleAwaySummary(s.away));
  if (!summary) return null;
  const { trades, ledger, alertMatches } = summary;
  const dismiss = () => {
    writePref(AWAY_DISMISSED_PREF, summary.at);
    update('away', (away) => ({ ...away, dismissedAt: summary.at }));
  };
  const net = formatSignedCents(ledger.net);
  return (
    <section className="banner away-summary" aria-labelledby="away-summary-title" data-testid="away-summary">
      <h2 id="away-summary-title">While you were away</h2>
      <span> since {formatDateTime(summary.since)}</span>
      <ul>
        {trades.length > 0 ? (
          <li>
            Trades: <span data-testid="away-trades">{tradeLine(trades)}</span>
          </li>
        ) : null}
        {ledger.count > 0 ? (
          <li>
            Ledger:{' '}
            <span data-testid="away-ledger">{`${ledger.count} new ${ledger.count === 1 ? 'entry' : 'entries'}, net ${net}`}</span>
          </li>
        ) : null}
        {alertMatches.count > 0 ? (
          <li>
            Alerts:{' '}
            <span data-testid="away-alerts">{`${alertMatches.count} match${alertMatches.count === 1 ? '' : 'es'}${alertMatches.autoBought > 0 ? `, ${alertMatches.autoBought} auto-bought` : ''}`}</span>
          </li>
        ) : null}
      </ul>
      <div className="away-actions">
        {trades.length > 0 ? (
          <button
            type="button"
            className="link-btn"
            onClick={() =>
              summary.onlyTradeId ? openTarget({ type: 'trade', tradeId: summary.onlyTradeId }) : navigate('trades')
            }
          >
            {summary.onlyTradeId ? 'Open the trade' : 'View trades'}
          </button>
        ) : null}
        {ledger.count > 0 ? (
          <button type="button" className="link-btn" onClick={() => navigate('wallet')}>
            View wallet
          </button>
        ) : null}
        {alertMatches.count > 0 ? (
          <button type="button" className="link-btn" onClick={() => navigate('alerts')}>
            View alerts
          </button>
        ) : null}
        <button type="button" className="btn" onClick={dismiss}>
          Dismiss
        </button>
      </div>
    </section>
  );
}
