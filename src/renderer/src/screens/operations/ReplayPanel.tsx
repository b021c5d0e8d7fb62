import { useId, useState } from 'react';
import type { WebhookHealth, WebhookReplayOutcome } from '../../../../shared/ipc/operations';
import { Field } from '../../components/Field';
import { formatDateTime, formatInt } from '../../lib/format';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { navigate } from '../../state/actions/navigation';
import { toast } from '../../state/actions/toast';

/** The range a replay proposes first: the run of failures the view shows, to the cache's last change. */
function initialRange(health: WebhookHealth): { from: string; to: string } {
  const oldestFailed = health.failed[health.failed.length - 1]?.updatedAt;
  return { from: health.paused?.since ?? oldestFailed ?? health.history.from ?? '', to: health.history.to ?? '' };
}

/** Replay (off by default): the chosen range's missed trade_updated bodies, re-sent signed to the merchant's webhook. */
export function ReplayPanel({
  health,
  chosen,
  onReplayed,
  onChosenSent,
}: {
  health: WebhookHealth;
  /** Trades picked in the failed list. */
  chosen: string[];
  onReplayed: () => void;
  onChosenSent: () => void;
}) {
  const [mode, setMode] = useState<'range' | 'chosen'>('range');
  const id = useId();
  const [range, setRange] = useState(() => initialRange(health));
  const [plan, setPlan] = useState<WebhookReplayOutcome | null>(null);
  const [again, setAgain] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { replay } = health;

  if (!replay.enabled || !replay.url) {
    return (
      <div className="ops-replay">
        <h3>Replay missed updates</h3>
        <p className="muted">
          Off. Replay re-sends the failed deliveries’ trade_updated bodies to your own webhook, signed with your API key
          as the marketplace signs them. Switch it on with your webhook URL under Settings → Webhook replay.
        </p>
        <button type="button" className="btn" onClick={() => navigate('settings')}>
          Open Settings
        </button>
        <ReplayLog health={health} />
      </div>
    );
  }

  const run = async (dryRun: boolean, as: 'range' | 'chosen' = mode) => {
    setBusy(true);
    setError(null);
    setMode(as);
    try {
      const choice = as === 'chosen' ? { tradeIds: chosen } : range;
      const outcome = await unwrap(api().operations.replayWebhooks({ ...choice, again, dryRun }));
      if (dryRun) setPlan(outcome);
      else {
        if (as === 'chosen') onChosenSent();
        setPlan(null);
        setAgain(false);
        const record = outcome.record;
        if (record)
          toast(
            record.delivered === record.sent ? 'success' : 'error',
            `Replayed ${formatInt(record.sent)} update${record.sent === 1 ? '' : 's'} to ${record.host}`,
            `${formatInt(record.delivered)} answered 2xx${record.skipped ? `, ${formatInt(record.skipped)} replayed before were left out` : ''}`,
          );
        onReplayed();
      }
    } catch (problem) {
      setError(errorMessage(problem));
      setPlan(null);
    } finally {
      setBusy(false);
    }
  };

  const sending = plan ? (again ? plan.chosen : plan.toSend) : 0;
  return (
    <div className="ops-replay">
      <h3>Replay missed updates</h3>
      <p className="muted small">
        To {new URL(replay.url).host}. Failed deliveries whose status time lies in the range (UTC, ISO 8601), at most
        1,000 a replay. A trade already replayed is left out unless you ask to send it again.
      </p>
      <form
        className="ops-range"
        onSubmit={(event) => {
          event.preventDefault();
          void run(true, 'range');
        }}
      >
        <Field label="From" htmlFor={`${id}-from`}>
          <input
            id={`${id}-from`}
            className="num"
            spellCheck={false}
            value={range.from}
            onChange={(event) => {
              setRange({ ...range, from: event.target.value.trim() });
              setPlan(null);
            }}
          />
        </Field>
        <Field label="To" htmlFor={`${id}-to`}>
          <input
            id={`${id}-to`}
            className="num"
            spellCheck={false}
            value={range.to}
            onChange={(event) => {
              setRange({ ...range, to: event.target.value.trim() });
              setPlan(null);
            }}
          />
        </Field>
        <div className="form-actions">
          <button type="submit" className="btn" disabled={busy}>
            Replay range…
          </button>
          <button
            type="button"
            className="btn"
            disabled={busy || chosen.length === 0}
            onClick={() => void run(true, 'chosen')}
          >
            Replay chosen ({formatInt(chosen.length)})…
          </button>
        </div>
      </form>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {plan ? (
        <div className="ops-confirm" role="group" aria-labelledby={`${id}-confirm`}>
          <p id={`${id}-confirm`}>
            {formatInt(plan.chosen)} failed deliver{plan.chosen === 1 ? 'y' : 'ies'}{' '}
            {mode === 'chosen' ? 'chosen' : 'in this range'}.
            {plan.alreadyReplayed > 0
              ? ` ${formatInt(plan.alreadyReplayed)} of them were replayed before and are left out unless you send them again.`
              : ''}{' '}
            Send {formatInt(sending)} signed trade_updated bod{sending === 1 ? 'y' : 'ies'} to {plan.host}?
          </p>
          {plan.alreadyReplayed > 0 ? (
            <label className="check">
              <input type="checkbox" checked={again} onChange={(event) => setAgain(event.target.checked)} />
              Send the {formatInt(plan.alreadyReplayed)} replayed before again
            </label>
          ) : null}
          <div className="form-actions">
            <button
              type="button"
              className="btn primary"
              disabled={busy || sending === 0}
              onClick={() => void run(false)}
            >
              Send {formatInt(sending)}
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setPlan(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      <ReplayLog health={health} />
    </div>
  );
}

function ReplayLog({ health }: { health: WebhookHealth }) {
  const log = [...health.replay.log].reverse();
  if (log.length === 0) return null;
  return (
    <table className="ops-table">
      <caption>Replays</caption>
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Range</th>
          <th scope="col">To</th>
          <th scope="col" className="num">
            Sent
          </th>
          <th scope="col" className="num">
            2xx
          </th>
          <th scope="col" className="num">
            Left out
          </th>
        </tr>
      </thead>
      <tbody>
        {log.map((record) => (
          <tr key={record.id}>
            <td className="num">{formatDateTime(record.at)}</td>
            <td className="num">
              {record.range
                ? `${formatDateTime(record.range.from)} – ${formatDateTime(record.range.to)}`
                : 'Chosen trades'}
            </td>
            <td>{record.host}</td>
            <td className="num">{formatInt(record.sent)}</td>
            <td className="num">{formatInt(record.delivered)}</td>
            <td className="num">{formatInt(record.skipped)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
