import type { AutoBuyStatus } from '../../../shared/ipc/models';
import { formatCents } from '../lib/format';
import { SHORTCUT_HINTS } from '../lib/keyboard';
import { setAutoBuyStopped, stopAllAutoBuy } from '../state/actions/alerts';
import { navigate } from '../state/actions/navigation';
import { useStore } from '../state/store';

/** "Spent today" in words: the total, of the budget when one is set. */
export function spentTodayText(status: AutoBuyStatus): string {
  const total = formatCents(status.spentToday);
  return status.dailyBudget === null ? `${total} today` : `${total} of ${formatCents(status.dailyBudget)} today`;
}

/** Each rule's spend today, one per line (the status bar's tooltip). */
function perRuleText(status: AutoBuyStatus): string {
  const lines = status.rules.map(
    (rule) =>
      `${rule.ruleName}: ${formatCents(rule.spentToday)}${rule.dryRun ? ' (dry run)' : ''}${rule.skippedToday ? `, ${rule.skippedToday} skipped` : ''}`,
  );
  return [`Auto-buy spent ${spentTodayText(status)} (UTC day ${status.day})`, ...lines].join('\n');
}

/** The status bar's auto-buy item: spend today (opens Alerts) and the stop-all button, or "stopped · Resume". */
export function AutoBuyStatusItem() {
  const status = useStore((s) => s.alerts.autoBuy);
  if (!status) return null;
  const active = status.rules.some((rule) => rule.enabled);
  if (!active && !status.stopped && status.spentToday === 0) return null;
  return (
    <span className="sb-item autobuy-status" aria-label="Auto-buy">
      <button type="button" className="sb-btn" onClick={() => navigate('alerts')} title={perRuleText(status)}>
        Auto-buy <span className="num strong">{spentTodayText(status)}</span>
      </button>
      {status.stopped ? (
        <button
          type="button"
          className="sb-btn attention"
          onClick={() => void setAutoBuyStopped(false)}
          title="Auto-buy is stopped: no request is sent. Resume it"
        >
          <span className="strong">Auto-buy stopped</span> · Resume
        </button>
      ) : (
        <button
          type="button"
          className="sb-btn"
          onClick={stopAllAutoBuy}
          title={`Stop all auto-buy now (${SHORTCUT_HINTS['autobuy.stop'] ?? ''})`}
        >
          Stop all auto-buy
        </button>
      )}
    </span>
  );
}
