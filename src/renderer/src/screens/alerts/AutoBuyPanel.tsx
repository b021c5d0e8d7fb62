import { useId, useState } from 'react';
import { parseDollarsToCents } from '../../../../shared/money';
import { spentTodayText } from '../../app/AutoBuyStatusItem';
import { Field } from '../../components/Field';
import { Money } from '../../components/Money';
import { centsToInput, formatCents } from '../../lib/format';
import { SHORTCUT_HINTS } from '../../lib/keyboard';
import { setAutoBuyStopped, stopAllAutoBuy } from '../../state/actions/alerts';
import { updateSettings } from '../../state/actions/settings';
import { useStore } from '../../state/store';

/** A dollar field's cents: null when empty, undefined when not an amount. */
function dollars(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const cents = parseDollarsToCents(text);
  return cents === null || cents < 0 ? undefined : cents;
}

/** The daily budget across rules and the balance floor, as a small form (remounted when the saved values change). */
function GuardSettings({ budget, floor }: { budget: number | null; floor: number }) {
  const id = useId();
  const [budgetText, setBudgetText] = useState(centsToInput(budget));
  const [floorText, setFloorText] = useState(floor ? centsToInput(floor) : '');
  const budgetCents = dollars(budgetText);
  const floorCents = dollars(floorText);
  const changed = budgetCents !== budget || (floorCents ?? 0) !== floor;
  return (
    <form
      className="form-row guard-settings"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (budgetCents === undefined || floorCents === undefined) return;
        void updateSettings({ autoBuyDailyBudget: budgetCents, autoBuyBalanceFloor: floorCents ?? 0 });
      }}
    >
      <Field
        label="Daily budget, all rules ($)"
        htmlFor={`${id}-budget`}
        error={budgetCents === undefined ? 'A dollar amount, e.g. 50' : undefined}
        hint={budget === null ? 'None set: only each rule’s caps limit spending' : 'Per UTC day, across every rule'}
      >
        <input
          id={`${id}-budget`}
          inputMode="decimal"
          placeholder="none"
          value={budgetText}
          onChange={(e) => setBudgetText(e.target.value)}
        />
      </Field>
      <Field
        label="Balance floor ($)"
        htmlFor={`${id}-floor`}
        error={floorCents === undefined ? 'A dollar amount, e.g. 100' : undefined}
        hint="Auto-buy never leaves less than this available"
      >
        <input
          id={`${id}-floor`}
          inputMode="decimal"
          placeholder="0.00"
          value={floorText}
          onChange={(e) => setFloorText(e.target.value)}
        />
      </Field>
      <button
        type="submit"
        className="btn sm"
        disabled={!changed || budgetCents === undefined || floorCents === undefined}
      >
        Save limits
      </button>
    </form>
  );
}

/** The Alerts screen's auto-buy panel: spend today per rule and in total, the limits, and stop-all. */
export function AutoBuyPanel() {
  const status = useStore((s) => s.alerts.autoBuy);
  const stopped = status?.stopped === true;
  const budget = useStore((s) => s.settings.settings?.autoBuyDailyBudget ?? null);
  const floor = useStore((s) => s.settings.settings?.autoBuyBalanceFloor ?? 0);
  return (
    <section className="panel autobuy-panel" aria-label="Auto-buy today">
      <div className="panel-head">
        <h2 className="panel-title">Auto-buy today</h2>
        {status ? (
          <span className="small">
            Spent <strong className="num">{spentTodayText(status)}</strong>{' '}
            <span className="muted">(UTC day {status.day})</span>
          </span>
        ) : null}
        {stopped ? (
          <button type="button" className="btn sm primary" onClick={() => void setAutoBuyStopped(false)}>
            Resume auto-buy
          </button>
        ) : (
          <button
            type="button"
            className="btn sm"
            onClick={stopAllAutoBuy}
            title={`Stop all auto-buy (${SHORTCUT_HINTS['autobuy.stop'] ?? ''})`}
          >
            Stop all auto-buy
          </button>
        )}
      </div>
      {stopped ? (
        <div className="banner warn" role="status">
          All auto-buy is stopped: matches are still listed, and nothing is bought until you resume.
        </div>
      ) : null}
      {status && status.rules.length > 0 ? (
        <table className="data-table" aria-label="Auto-buy spend today by rule">
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col" className="right">
                Spent today
              </th>
              <th scope="col" className="right">
                Skipped today
              </th>
            </tr>
          </thead>
          <tbody>
            {status.rules.map((rule) => (
              <tr key={rule.ruleId}>
                <td className="ellipsis">
                  {rule.ruleName}
                  {rule.dryRun ? <span className="tag"> dry run</span> : null}
                  {!rule.enabled ? <span className="muted small"> (off)</span> : null}
                </td>
                <td className="right">
                  <Money cents={rule.spentToday} />
                </td>
                <td className="right num">{rule.skippedToday}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted small">No rule has auto-buy on.</p>
      )}
      <GuardSettings key={`${budget}:${floor}`} budget={budget} floor={floor} />
    </section>
  );
}

/** Auto-buy skips, one quiet line per rule and UTC day with a count and the reasons. */
export function SkipLines() {
  const skips = useStore((s) => s.alerts.skips);
  if (skips.length === 0) return null;
  return (
    <ul className="skip-lines" aria-label="Auto-buy skips by rule and day">
      {skips.map((line) => (
        <li key={`${line.ruleId}:${line.day}`} className="small">
          <strong>{line.ruleName}</strong> <span className="muted">· {line.day} ·</span>{' '}
          <span className="num">{line.count}</span> match
          {line.count === 1 ? '' : 'es'} not bought:{' '}
          <span className="muted">
            {line.reasons.map((r) => `${r.reason}${line.reasons.length > 1 ? ` (${r.count})` : ''}`).join('; ')}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** How a firing's auto-buy is shown in its row: bought, would buy (dry run), or failed. */
export function dryRunText(price: number): string {
  return `dry run · would buy at ${formatCents(price)}`;
}
