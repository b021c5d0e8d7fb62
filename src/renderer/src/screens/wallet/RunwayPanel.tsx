import { useId, useState } from 'react';
import type { BalanceRunway } from '../../../../shared/ipc/models';
import { formatThresholdHours, RUNWAY_ALERT_MAX_HOURS, runwaySentence } from '../../../../shared/runway';
import { Money } from '../../components/Money';
import { formatCents, formatDateTime } from '../../lib/format';
import { updateSettings } from '../../state/actions/settings';
import { balanceIsLive, TOP_UP_DAYS } from '../../state/slices/wallet';
import { useStore } from '../../state/store';

/** The hours typed: a number when it is a threshold main accepts, else why not. */
function thresholdOf(text: string): { hours: number } | { problem: string } {
  const hours = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(hours)) return { problem: 'A number of hours, e.g. 6' };
  if (hours <= 0) return { problem: 'More than 0 hours' };
  if (hours > RUNWAY_ALERT_MAX_HOURS) return { problem: `At most ${RUNWAY_ALERT_MAX_HOURS} hours` };
  return { hours };
}

/**
 * "Notify when under N hours": off by default; saved through settings (checked again in main). One line, so the
 * ledger keeps its room. Remounted when the saved value changes.
 */
function RunwayThreshold({ saved, below }: { saved: number | null; below: boolean }) {
  const id = useId();
  const [text, setText] = useState(saved === null ? '' : String(saved));
  const [tried, setTried] = useState(false);
  const parsed = thresholdOf(text);
  const problem = tried && 'problem' in parsed ? parsed.problem : null;
  let message = <span className="muted">{saved === null ? 'Off' : `On: under ${formatThresholdHours(saved)}`}</span>;
  if (problem !== null)
    message = (
      <span className="field-error" role="alert">
        {problem}
      </span>
    );
  else if (below && saved !== null)
    message = (
      <span className="runway-below" role="status">
        <strong>Under your {formatThresholdHours(saved)} threshold:</strong> top up to keep buying.
      </span>
    );
  return (
    <form
      className="runway-threshold small"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setTried(true);
        if ('hours' in parsed) void updateSettings({ runwayAlertHours: parsed.hours });
      }}
    >
      <label htmlFor={`${id}-hours`}>Notify when under</label>
      <input
        id={`${id}-hours`}
        inputMode="decimal"
        aria-describedby={`${id}-unit ${id}-msg`}
        aria-invalid={problem !== null}
        placeholder="hours"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <span id={`${id}-unit`}>hours</span>
      <button type="submit" className="btn sm">
        Save
      </button>
      <button
        type="button"
        className="btn sm ghost"
        disabled={saved === null}
        onClick={() => void updateSettings({ runwayAlertHours: null })}
      >
        Turn off
      </button>
      <span id={`${id}-msg`} className="runway-message">
        {message}
      </span>
    </form>
  );
}

function RunwayFigures({ runway }: { runway: BalanceRunway }) {
  // Offline the figures rest on the last balance the server gave: say so, as the balance card does.
  const cachedAt = useStore((s) => (balanceIsLive(s.conn.connection?.state) ? null : (s.wallet.balanceAt ?? '')));
  return (
    <>
      <p className="runway-line" data-testid="runway-line">
        {runwaySentence(runway)}
      </p>
      <p className="muted small">
        <span className="num">{formatCents(runway.available)}</span> available (balance + credit
        {runway.inFlight > 0 ? (
          <>
            {' '}
            − <span className="num">{formatCents(runway.inFlight)}</span> in flight
          </>
        ) : null}
        ) · spent <span className="num">{formatCents(runway.lastHour.spent)}</span> in the last hour,{' '}
        <span className="num">{formatCents(runway.lastDay.spent)}</span> in the last day, net of refunds
        {cachedAt === null ? null : cachedAt ? (
          <>
            {' '}
            · from the balance cached at <span className="num">{formatDateTime(cachedAt)}</span>
          </>
        ) : (
          ' · from the cached balance'
        )}
      </p>
    </>
  );
}

function RecentTopUps() {
  const rows = useStore((s) => s.wallet.topUps);
  return (
    <div className="runway-topups">
      <h4 id="recent-topups">Top-ups and deposits, last {TOP_UP_DAYS} days</h4>
      {rows.length === 0 ? (
        <p className="muted small">None in the last {TOP_UP_DAYS} days.</p>
      ) : (
        <table className="data-table" aria-labelledby="recent-topups">
          <colgroup>
            <col />
            <col style={{ width: 124 }} />
            {/* "+$59,474.00": a deposit of tens of thousands whole. */}
            <col style={{ width: 132 }} />
          </colgroup>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Type</th>
              <th scope="col" className="right">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td className="num nowrap">{formatDateTime(row.createdAt)}</td>
                <td title={row.note ?? undefined}>{row.type.toLowerCase()}</td>
                <td className="right">
                  <Money cents={row.amount} signed />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** Beside the balance: how long buying lasts at the recent rate, the alert's threshold, and recent top-ups. */
export function RunwayPanel() {
  const runway = useStore((s) => s.wallet.runway);
  const saved = useStore((s) => s.settings.settings?.runwayAlertHours ?? null);
  return (
    <section className="panel runway-panel" aria-labelledby="runway-title" data-section="runway">
      <div className="runway-main">
        <h3 id="runway-title">Balance runway</h3>
        {runway ? (
          <RunwayFigures runway={runway} />
        ) : (
          <p className="muted">The runway follows once a balance is known.</p>
        )}
        <RunwayThreshold key={String(saved)} saved={saved} below={runway?.below === true} />
      </div>
      <RecentTopUps />
    </section>
  );
}
