import type { CSSProperties, ReactNode } from 'react';
import type { Trade } from '../../../../shared/api';
import { redactTradeUrl } from '../../../../shared/api/tradeUrl';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { Money } from '../../components/Money';
import { statusStyle, StatusBadge } from '../../components/StatusBadge';
import { Countdown, TimeAgo } from '../../components/TimeAgo';
import { useNow } from '../../lib/clock';
import { DASH, formatDateTime, formatFloat } from '../../lib/format';
import { STATUS_COLORS, STATUS_LABELS, STATUS_MEANINGS } from '../../lib/status';
import { loadTradeDetail } from '../../state/actions/trades';
import { navigate } from '../../state/actions/navigation';
import { toast } from '../../state/actions/toast';
import { useStore } from '../../state/store';
import { OrderChainSection } from './OrderChainSection';

function Fact({
  label,
  children,
  mono = false,
  wide = false,
}: {
  label: string;
  children: ReactNode;
  mono?: boolean;
  wide?: boolean;
}) {
  return (
    <div className={`prop ${wide ? 'wide' : ''}`}>
      <dt>{label}</dt>
      <dd className={mono ? 'mono' : ''}>{children ?? DASH}</dd>
    </div>
  );
}

function CopyId({ value, what }: { value: string; what: string }) {
  return (
    <span className="inline-actions">
      <span className="mono selectable">{value}</span>
      <button
        type="button"
        className="icon-btn xs"
        aria-label={`Copy ${what}`}
        onClick={() =>
          void navigator.clipboard?.writeText(value).then(
            () => toast('info', `${what} copied`),
            () => toast('warn', `Could not copy the ${what.toLowerCase()}`),
          )
        }
      >
        <Icon name="copy" size={12} />
      </button>
    </span>
  );
}

/**
 * Where the trade stands on reversal: in flight, reversible until a date, final, reversed, or
 * never delivered (nothing to protect). A date is called "ended" only once it has passed.
 */
function Protection({ trade }: { trade: Trade }) {
  const now = useNow();
  const endDate = trade.endProtection ? (
    <span className="muted small">({formatDateTime(trade.endProtection)})</span>
  ) : null;
  switch (trade.status) {
    case 'PENDING':
    case 'SENT':
    case 'CREATING':
      return (
        <p className="protection">
          <span className="tag">Stage 1 · in flight</span>{' '}
          <span className="muted">Protection starts when the item is delivered.</span>
        </p>
      );
    case 'REVERSED':
      return (
        <p className="protection">
          <span className="tag tag-bad">Reversed</span> The completed trade was rolled back and its value refunded
          {trade.rollbackAt ? <> on {formatDateTime(trade.rollbackAt)}</> : null}.
        </p>
      );
    case 'COMPLETED':
      break;
    default:
      return (
        <p className="protection">
          <span className="tag">Not delivered</span>{' '}
          <span className="muted">Nothing was delivered, so there is nothing to protect.</span>
        </p>
      );
  }
  if (trade.stage === 1) {
    return (
      <p className="protection">
        <span className="tag tag-warn">Stage 1 · reversible</span>{' '}
        {trade.endProtection ? (
          <>
            Protection ends in{' '}
            <strong>
              <Countdown iso={trade.endProtection} passed="now" />
            </strong>{' '}
            {endDate}
          </>
        ) : (
          <span className="muted">end of protection unknown</span>
        )}
      </p>
    );
  }
  const ended = trade.endProtection !== null && Date.parse(trade.endProtection) <= now;
  return (
    <p className="protection">
      <span className="tag tag-ok">Stage 2 · final</span> This trade can no longer be reversed.
      {ended ? (
        <span className="muted small"> Protection ended {formatDateTime(trade.endProtection as string)}.</span>
      ) : null}
    </p>
  );
}

const SOURCE_LABELS: Record<string, string> = {
  buy: 'buy answer',
  feed: 'live feed',
  poll: 'poll',
  reconcile: 'reconcile',
  backfill: 'back-fill',
};

/** A trade: status timeline, error, protection stage and time left, offer id. */
export function TradeDetailPanel() {
  const detail = useStore((s) => s.trades.detail);
  const trade = useStore((s) => (s.trades.detail.id ? s.trades.byId[s.trades.detail.id] : undefined));
  if (!detail.id) return null;
  const close = () => navigate('trades');
  if (!trade) {
    return (
      <aside className="detail-panel trade-detail" aria-label="Trade detail">
        <div className="detail-toolbar">
          <span className="mono small">{detail.id}</span>
          <button type="button" className="icon-btn" aria-label="Close detail" onClick={close}>
            <Icon name="close" size={14} />
          </button>
        </div>
        {detail.status === 'error' ? (
          <EmptyState
            title="Could not load this trade"
            tone="error"
            action={
              <button type="button" className="btn sm" onClick={() => detail.id && void loadTradeDetail(detail.id)}>
                Retry
              </button>
            }
          >
            {detail.error}
          </EmptyState>
        ) : detail.status === 'missing' ? (
          <EmptyState title="Trade not found">No trade with this id belongs to this merchant.</EmptyState>
        ) : (
          <EmptyState title="Loading trade…" tone="loading" />
        )}
      </aside>
    );
  }
  const timeline = detail.data?.timeline ?? [];
  return (
    <aside
      className="detail-panel trade-detail"
      aria-label="Trade detail"
      style={{ '--rarity': STATUS_COLORS[trade.status] } as CSSProperties}
    >
      <div className="detail-top">
        <div className="detail-toolbar">
          <StatusBadge status={trade.status} />
          <button type="button" className="icon-btn" aria-label="Close detail" title="Close (Esc)" onClick={close}>
            <Icon name="close" size={14} />
          </button>
        </div>
        <h2 className="detail-name">{trade.market_hash_name}</h2>
        <div className="tags">
          {trade.phase ? <span className="tag">{trade.phase}</span> : null}
          {trade.float !== null ? <span className="tag num">Float {formatFloat(trade.float)}</span> : null}
        </div>
        <div className="detail-buy">
          <Money cents={trade.price} className="big" />
          <span className="muted small">{STATUS_MEANINGS[trade.status]}</span>
        </div>
      </div>
      {/* Focusable so the keyboard can scroll it. */}
      <div className="detail-scroll" tabIndex={0} role="region" aria-label="Trade detail content">
        {trade.errorCode !== null || trade.failReason ? (
          <div className="notice error" role="note">
            <strong>Error {trade.errorCode ?? ''}</strong> {trade.failReason ?? ''}
          </div>
        ) : null}

        <OrderChainSection trade={trade} />

        <section className="detail-section" aria-label="Protection">
          <h3>Protection</h3>
          <Protection trade={trade} />
        </section>

        <section className="detail-section" aria-label="Trade facts">
          <h3>Details</h3>
          <dl className="props">
            <Fact label="Trade ID" wide>
              <CopyId value={trade.tradeId} what="Trade ID" />
            </Fact>
            <Fact label="Offer ID" mono>
              {trade.offerId ?? <span className="muted">not created yet</span>}
            </Fact>
            <Fact label="Order ID" mono wide>
              {trade.externalId ?? DASH}
            </Fact>
            <Fact label="Recipient" wide>
              <span className="mono small">{redactTradeUrl(trade.tradeUrl)}</span>
            </Fact>
            <Fact label="Item ID" mono>
              {trade.itemId}
            </Fact>
            <Fact label="Asset ID" mono>
              {trade.assetId}
            </Fact>
            <Fact label="Webhook">
              {trade.webhookStatus === 'failed' ? <span className="neg">failed</span> : (trade.webhookStatus ?? DASH)}
            </Fact>
            <Fact label="Created">{formatDateTime(trade.createdAt)}</Fact>
            <Fact label="Updated">
              <TimeAgo iso={trade.updatedAt} />
            </Fact>
            {trade.completedAt ? <Fact label="Completed">{formatDateTime(trade.completedAt)}</Fact> : null}
            {trade.cancelledAt ? <Fact label="Cancelled">{formatDateTime(trade.cancelledAt)}</Fact> : null}
            {trade.rollbackAt ? <Fact label="Reversed">{formatDateTime(trade.rollbackAt)}</Fact> : null}
          </dl>
        </section>

        <section className="detail-section" aria-label="Status timeline">
          <h3>Timeline</h3>
          {detail.status === 'error' ? (
            <div className="notice error small">
              Could not load the status history: {detail.error}{' '}
              <button type="button" className="link-btn" onClick={() => void loadTradeDetail(trade.tradeId)}>
                Retry
              </button>
            </div>
          ) : timeline.length === 0 ? (
            <p className="muted small">{detail.status === 'loading' ? 'Loading…' : 'No status history recorded.'}</p>
          ) : (
            <ol className="timeline">
              {timeline.map((entry, i) => (
                <li key={`${entry.status}-${entry.at}-${i}`} style={statusStyle(entry.status)}>
                  <span className="timeline-dot" aria-hidden="true" />
                  <div className="timeline-main">
                    <div>
                      <strong className="timeline-status">{STATUS_LABELS[entry.status]}</strong>
                      <span className="muted small"> · {SOURCE_LABELS[entry.source] ?? entry.source}</span>
                    </div>
                    <div className="muted small num">{formatDateTime(entry.at)}</div>
                    {entry.errorCode !== null || entry.failReason ? (
                      <div className="small neg">
                        {entry.errorCode ?? ''} {entry.failReason ?? ''}
                      </div>
                    ) : null}
                  </div>
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
    </aside>
  );
}
