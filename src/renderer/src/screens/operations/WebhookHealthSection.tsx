import { useId, useState } from 'react';
import type { WebhookFailureBucket, WebhookHealth } from '../../../../shared/ipc/operations';
import { EmptyState } from '../../components/EmptyState';
import { StatusBadge } from '../../components/StatusBadge';
import { formatDateTime, formatInt } from '../../lib/format';
import { ReplayPanel } from './ReplayPanel';
import { TradeIdButton } from './TradeIdButton';
import type { WebhookHealthState } from './useWebhookHealth';

/** Operations → Webhook health: deliveries the merchant's back end missed, and what to do about them. */
export function WebhookHealthSection({ state }: { state: WebhookHealthState }) {
  const id = useId();
  const { health, error } = state;
  // Trades picked one by one for a replay (the failed list's check boxes).
  const [chosen, setChosen] = useState<string[]>([]);
  const replay = (shown: WebhookHealth) => (
    <ReplayPanel health={shown} chosen={chosen} onReplayed={state.reload} onChosenSent={() => setChosen([])} />
  );
  return (
    <section className="panel operations-section" aria-labelledby={`${id}-title`} data-section="webhooks">
      <h2 className="panel-title" id={`${id}-title`}>
        Webhook health
      </h2>
      {error && !health ? (
        <EmptyState title="Webhook health could not be read" tone="error">
          {error}
        </EmptyState>
      ) : !health ? (
        <EmptyState title="Reading the local cache…" tone="loading" />
      ) : health.failedTotal === 0 ? (
        <>
          <EmptyState title="No failed webhook deliveries">
            No cached trade shows a failed delivery to your webhook (webhookStatus “failed”).
            {health.lastDeliveredCreatedAt
              ? ` The newest trade whose update reached it was created ${formatDateTime(health.lastDeliveredCreatedAt)}.`
              : ''}
          </EmptyState>
          {replay(health)}
        </>
      ) : (
        <>
          <PauseNotice health={health} />
          <FailureCounts health={health} />
          <FailedTrades health={health} chosen={chosen} onChoose={setChosen} />
          {replay(health)}
        </>
      )}
    </section>
  );
}

function PauseNotice({ health }: { health: WebhookHealth }) {
  const paused = health.paused;
  return (
    <div className={`ops-notice ${paused ? 'danger' : ''}`} role="status">
      {paused ? (
        <>
          <p className="strong">
            Deliveries look paused since <span className="num">{formatDateTime(paused.since)}</span>
          </p>
          <p>
            {formatInt(paused.failed)} update{paused.failed === 1 ? '' : 's'} since then did not reach your webhook, and
            no trade created after them shows a delivered update. The marketplace pauses every delivery after repeated
            failures: 15 minutes, then twice as long each time, up to 4 hours. If it paused then and every retry failed,
            this is pause {paused.pauseNumber} and its next attempt is about{' '}
            <span className="num">{formatDateTime(paused.expectedResumeAt)}</span>.
          </p>
          <p className="muted small">
            An estimate: the cache knows each trade’s latest delivery result and when the trade changed, not the
            marketplace’s breaker.
          </p>
        </>
      ) : (
        <p>
          Some deliveries failed, but a trade created after the last of them shows a delivered update: deliveries do not
          look paused now.
        </p>
      )}
      <p>
        <span className="strong">To resume at once:</span> fix your endpoint, then click <em>Test Webhook</em> in the
        merchant portal under Settings (it must answer 2xx), or save a new webhook URL there. Missed updates are not
        sent again by the marketplace: replay them below, or read them with Trades → “Webhook failed”.
      </p>
    </div>
  );
}

function Buckets({ title, buckets, day }: { title: string; buckets: WebhookFailureBucket[]; day: boolean }) {
  return (
    <table className="ops-table">
      <caption>{title}</caption>
      <thead>
        <tr>
          <th scope="col">{day ? 'Day (UTC)' : 'Hour (UTC)'}</th>
          <th scope="col" className="num">
            Failed
          </th>
        </tr>
      </thead>
      <tbody>
        {buckets.length === 0 ? (
          <tr>
            <td colSpan={2} className="muted">
              None
            </td>
          </tr>
        ) : (
          buckets.map((bucket) => (
            <tr key={bucket.at}>
              <td className="num">{day ? bucket.at.slice(0, 10) : `${bucket.at.slice(0, 13).replace('T', ' ')}:00`}</td>
              <td className="num">{formatInt(bucket.count)}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

function FailureCounts({ health }: { health: WebhookHealth }) {
  return (
    <div className="ops-counts">
      <div className="card">
        <div className="card-label">Failed deliveries</div>
        <div className="card-value num">{formatInt(health.failedTotal)}</div>
        <div className="card-foot muted small">Cached trades whose latest update did not reach your webhook</div>
      </div>
      <table className="ops-table">
        <caption>By trade status</caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col" className="num">
              Failed
            </th>
          </tr>
        </thead>
        <tbody>
          {health.byStatus.map((row) => (
            <tr key={row.status}>
              <td>
                <StatusBadge status={row.status} />
              </td>
              <td className="num">{formatInt(row.count)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Buckets title="Last 24 hours" buckets={health.byHour} day={false} />
      <Buckets title="Last 30 days" buckets={health.byDay} day />
    </div>
  );
}

function FailedTrades({
  health,
  chosen,
  onChoose,
}: {
  health: WebhookHealth;
  chosen: string[];
  onChoose: (ids: string[]) => void;
}) {
  const choosing = health.replay.enabled && health.replay.url !== null;
  return (
    <table className="ops-table ops-trades">
      <caption>
        Failed deliveries, newest first
        {health.failedTotal > health.failed.length ? ` (${health.failed.length} shown)` : ''}
      </caption>
      <thead>
        <tr>
          {choosing ? <th scope="col">Replay</th> : null}
          <th scope="col">Trade</th>
          <th scope="col">Status</th>
          <th scope="col">Order id</th>
          <th scope="col">Status time</th>
        </tr>
      </thead>
      <tbody>
        {health.failed.map((trade) => (
          <tr key={trade.tradeId}>
            {choosing ? (
              <td>
                <input
                  type="checkbox"
                  aria-label={`Choose trade ${trade.tradeId} for a replay`}
                  checked={chosen.includes(trade.tradeId)}
                  onChange={(event) =>
                    onChoose(
                      event.target.checked ? [...chosen, trade.tradeId] : chosen.filter((id) => id !== trade.tradeId),
                    )
                  }
                />
              </td>
            ) : null}
            <td>
              <TradeIdButton tradeId={trade.tradeId} />
            </td>
            <td>
              <StatusBadge status={trade.status} />
            </td>
            <td className="num">{trade.externalId ?? '—'}</td>
            <td className="num">{formatDateTime(trade.updatedAt)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
