import { memo } from 'react';
import { redactTradeUrl } from '../../../../shared/api/tradeUrl';
import { chainNumber, chainRoot } from '../../../../shared/orderChain';
import { EmptyState } from '../../components/EmptyState';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { TimeAgo } from '../../components/TimeAgo';
import { formatDateTime, shortId } from '../../lib/format';
import { loadTrades, resetTradeFilters, showOrderChain } from '../../state/actions/trades';
import { navigate } from '../../state/actions/navigation';
import { EMPTY_TRADE_FILTERS } from '../../state/slices/trades';
import { useStore } from '../../state/store';
import { tradeFiltersActive } from './TradeFiltersBar';

/** An attempt of a "buy the next one" chain: shows the order's every attempt together (the row opens the trade). */
function ChainTag({ root, attempt }: { root: string; attempt: number }) {
  return (
    <button
      type="button"
      className="tag tag-button"
      title={`Attempt ${attempt} of order ${root}: show every attempt`}
      aria-label={`next #${attempt}: attempt ${attempt} of order ${root}, show every attempt`}
      onClick={(e) => {
        e.stopPropagation();
        showOrderChain(root);
      }}
      onKeyDown={(e) => e.stopPropagation()}
    >
      next #{attempt}
    </button>
  );
}

const TradeRow = memo(function TradeRow({ tradeId, compact }: { tradeId: string; compact: boolean }) {
  const trade = useStore((s) => s.trades.byId[tradeId]);
  const selected = useStore((s) => s.trades.detail.id === tradeId);
  if (!trade) return null;
  const open = () => navigate('trades', tradeId);
  // "Buy the next one" attempts (ORDER#2…) are marked: one order, more than one trade.
  const chain = trade.externalId === null ? 1 : chainNumber(trade.externalId);
  return (
    <tr
      className={selected ? 'selected' : ''}
      tabIndex={0}
      aria-current={selected ? 'true' : undefined}
      onClick={open}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          open();
        }
      }}
    >
      <td className="num nowrap" title={formatDateTime(trade.createdAt)}>
        {formatDateTime(trade.createdAt)}
      </td>
      <td className="ellipsis" title={trade.market_hash_name}>
        {trade.market_hash_name}
        {trade.phase ? <span className="muted"> · {trade.phase}</span> : null}
      </td>
      <td className="right">
        <Money cents={trade.price} />
      </td>
      <td>
        <StatusBadge status={trade.status} />
        {trade.webhookStatus === 'failed' ? (
          <span className="tag tag-warn" title="The webhook for this trade failed">
            webhook
          </span>
        ) : null}
        {chain > 1 ? <ChainTag root={chainRoot(trade.externalId as string)} attempt={chain} /> : null}
      </td>
      {compact ? null : (
        <>
          <td className="mono small ellipsis" title={redactTradeUrl(trade.tradeUrl)}>
            {redactTradeUrl(trade.tradeUrl).replace('https://steamcommunity.com/tradeoffer/new/', '…')}
          </td>
          <td className="mono small ellipsis">{trade.externalId ?? <span className="muted">—</span>}</td>
        </>
      )}
      <td className="mono small" title={trade.tradeId}>
        {shortId(trade.tradeId)}
      </td>
      <td className="right muted">
        <TimeAgo iso={trade.updatedAt} short />
      </td>
    </tr>
  );
});

export function TradesTable({ compact }: { compact: boolean }) {
  const ids = useStore((s) => s.trades.list.ids);
  const status = useStore((s) => s.trades.list.status);
  const error = useStore((s) => s.trades.list.error);
  const tab = useStore((s) => s.trades.tab);
  const filters = useStore((s) => s.trades.filters);
  const filtered = tradeFiltersActive(filters);

  let empty = null;
  if (ids.length === 0) {
    if (status === 'error') {
      empty = (
        <EmptyState
          title="Could not load trades"
          tone="error"
          action={
            <button type="button" className="btn" onClick={() => void loadTrades()}>
              Retry
            </button>
          }
        >
          {error}
        </EmptyState>
      );
    } else if (status === 'loading' || status === 'idle') {
      empty = <EmptyState title="Loading trades…" tone="loading" />;
    } else if (filtered) {
      empty = (
        <EmptyState
          title="No trades match these filters"
          action={
            <button type="button" className="btn" onClick={() => resetTradeFilters(EMPTY_TRADE_FILTERS)}>
              Clear filters
            </button>
          }
        >
          Try a wider date range or fewer statuses.
        </EmptyState>
      );
    } else if (tab === 'active') {
      empty = (
        <EmptyState
          title="No active trades"
          action={
            <button type="button" className="btn" onClick={() => navigate('catalog')}>
              Go to Catalog
            </button>
          }
        >
          Offers waiting to be sent or accepted show up here live. Buy something from the Catalog.
        </EmptyState>
      );
    } else {
      empty = (
        <EmptyState
          title="No trades yet — buy something from the Catalog"
          action={
            <button type="button" className="btn" onClick={() => navigate('catalog')}>
              Go to Catalog
            </button>
          }
        >
          Every purchase and its status changes are kept here.
        </EmptyState>
      );
    }
  }

  return (
    <div className={`table-wrap ${status === 'loading' && ids.length > 0 ? 'refreshing' : ''}`}>
      <table className="data-table trades-table" aria-label="Trades" aria-busy={status === 'loading'}>
        <colgroup>
          <col className="col-datetime" />
          <col />
          <col className="col-money" />
          {/* The badge and a "next #2" tag side by side. */}
          <col style={{ width: 180 }} />
          {compact ? null : <col style={{ width: 160 }} />}
          {compact ? null : <col style={{ width: 120 }} />}
          <col style={{ width: 110 }} />
          <col style={{ width: 84 }} />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Item</th>
            <th scope="col" className="right">
              Price
            </th>
            <th scope="col">Status</th>
            {compact ? null : <th scope="col">Recipient</th>}
            {compact ? null : <th scope="col">Order ID</th>}
            <th scope="col">Trade ID</th>
            <th scope="col" className="right">
              Updated
            </th>
          </tr>
        </thead>
        <tbody>
          {ids.map((id) => (
            <TradeRow key={id} tradeId={id} compact={compact} />
          ))}
        </tbody>
      </table>
      {empty}
    </div>
  );
}
