import { type CSSProperties, useEffect } from 'react';
import { DateInput } from '../../components/DateInput';
import { TRANSACTION_TYPES, type TransactionType } from '../../../../shared/api/values';
import { OfflineBanner } from '../../app/OfflineBanner';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { LineChart } from '../../components/LineChart';
import { Money } from '../../components/Money';
import { Pager } from '../../components/Pager';
import { TimeAgo } from '../../components/TimeAgo';
import { formatCents, formatDateTime, formatDollarsShort, formatSignedCents } from '../../lib/format';
import type { BalancePoint } from '../../../../shared/ipc/models';
import { exportLedgerCsv, loadLedger, loadWallet, setLedgerFilters, setLedgerPage } from '../../state/actions/wallet';
import { navigate } from '../../state/actions/navigation';
import { balanceIsLive, EMPTY_LEDGER_FILTERS } from '../../state/slices/wallet';
import { useStore } from '../../state/store';
import { RunwayPanel } from './RunwayPanel';

const TYPE_TONES: Record<TransactionType, string> = {
  'ADMIN TOP UP': 'var(--up)',
  'CRYPTO DEPOSIT': 'var(--up)',
  'TRADE ROLLBACK': 'var(--up)',
  'BUY CANCELLED': 'var(--up)',
  'BUY COMPLETED': 'var(--accent)',
  FREEZE: 'var(--warn)',
  'ADMIN DEDUCT': 'var(--down)',
};

/** When the server gave the balance: "updated 3 min ago" while the engine keeps it current, else "cached" and when. */
function BalanceTime() {
  const at = useStore((s) => s.wallet.balanceAt);
  const live = useStore((s) => balanceIsLive(s.conn.connection?.state));
  if (live && at) {
    return (
      <>
        updated <TimeAgo iso={at} />
      </>
    );
  }
  if (!at) return <>cached</>;
  return (
    <>
      cached from <span className="num">{formatDateTime(at)}</span> (<TimeAgo iso={at} />)
    </>
  );
}

function BalanceCards() {
  const balance = useStore((s) => s.wallet.balance);
  if (!balance) {
    return (
      <div className="cards">
        <EmptyState title="No balance yet">
          Connect an account in Settings; the balance arrives with the first sync.
        </EmptyState>
      </div>
    );
  }
  const usingCredit = balance.balance < 0;
  return (
    <div className="cards" aria-label="Balance">
      <div className="card accent">
        <div className="card-label">Total available</div>
        <Money cents={balance.total_available} className="card-value big-value" />
        <div className="card-foot muted small">
          Balance + credit · <BalanceTime />
        </div>
      </div>
      <div className="card">
        <div className="card-label">Balance</div>
        <Money cents={balance.balance} className={`card-value ${usingCredit ? 'neg' : ''}`} />
        <div className="card-foot muted small">{usingCredit ? 'Credit in use' : 'Own funds'}</div>
      </div>
      <div className="card">
        <div className="card-label">Credit limit</div>
        <Money cents={balance.credit_limit} className="card-value" />
        <div className="card-foot muted small">
          {balance.credit_limit > 0 ? 'Granted by an administrator' : 'No credit granted'}
        </div>
      </div>
    </div>
  );
}

function BalanceChart() {
  const series = useStore((s) => s.wallet.series);
  if (series.status === 'error')
    return <div className="notice error">Could not load the balance series: {series.error}</div>;
  if (series.points.length === 0) {
    return (
      <div className="chart-empty muted">
        {series.status === 'loading' || series.status === 'idle'
          ? 'Loading balance history…'
          : 'No balance changes in this range yet'}
      </div>
    );
  }
  const first = series.points[0] as BalancePoint;
  const last = series.points[series.points.length - 1] as BalancePoint;
  const change = last.balance - first.balance;
  return (
    <>
      <LineChart
        points={series.points.map((p) => ({ t: Date.parse(p.at), v: p.balance }))}
        label="Balance over time"
        step
        height={120}
        timeTicks={3}
        formatValue={formatCents}
        formatAxisValue={formatDollarsShort}
        formatTime={(t) => formatDateTime(new Date(t).toISOString())}
      />
      <div className="chart-foot small">
        <span className="muted">
          {series.points.length} change{series.points.length === 1 ? '' : 's'} in range
        </span>
        <span className={`num ${change > 0 ? 'pos' : change < 0 ? 'neg' : 'muted'}`}>
          {formatSignedCents(change)} over the range
        </span>
      </div>
    </>
  );
}

function LedgerFilters() {
  const f = useStore((s) => s.wallet.filters);
  const active = f.types.length > 0 || f.tradeId.trim() !== '' || f.from !== '' || f.to !== '';
  return (
    <div className="filter-bar" role="group" aria-label="Ledger filters">
      <div className="filter-group status-chips" role="group" aria-label="Transaction type">
        {TRANSACTION_TYPES.map((type) => {
          const on = f.types.includes(type);
          return (
            <button
              key={type}
              type="button"
              className={`status-chip ${on ? 'on' : ''}`}
              style={{ '--status-color': TYPE_TONES[type] } as CSSProperties}
              aria-pressed={on}
              onClick={() => setLedgerFilters({ types: on ? f.types.filter((t) => t !== type) : [...f.types, type] })}
            >
              <span className="status-dot" aria-hidden="true" />
              {type.toLowerCase()}
            </button>
          );
        })}
      </div>
      <input
        aria-label="Trade ID"
        placeholder="Trade ID (or its start)"
        className="id-input"
        maxLength={128}
        spellCheck={false}
        value={f.tradeId}
        onChange={(e) => setLedgerFilters({ tradeId: e.target.value })}
      />
      <div className="filter-group" role="group" aria-label="Created between">
        <span className="filter-label">From</span>
        <DateInput label="From date" value={f.from} onChange={(day) => setLedgerFilters({ from: day })} />
        <span className="filter-label">to</span>
        <DateInput label="To date" value={f.to} onChange={(day) => setLedgerFilters({ to: day })} />
      </div>
      <button
        type="button"
        className="btn ghost sm"
        disabled={!active}
        onClick={() => setLedgerFilters(EMPTY_LEDGER_FILTERS)}
      >
        Clear
      </button>
    </div>
  );
}

function LedgerTable() {
  const ids = useStore((s) => s.wallet.list.ids);
  const byId = useStore((s) => s.wallet.byId);
  const status = useStore((s) => s.wallet.list.status);
  const error = useStore((s) => s.wallet.list.error);
  const filters = useStore((s) => s.wallet.filters);
  const filtered =
    filters.types.length > 0 || filters.tradeId.trim() !== '' || filters.from !== '' || filters.to !== '';
  let empty = null;
  if (ids.length === 0) {
    if (status === 'error')
      empty = (
        <EmptyState
          title="Could not load the ledger"
          tone="error"
          action={
            <button type="button" className="btn" onClick={() => void loadLedger()}>
              Retry
            </button>
          }
        >
          {error}
        </EmptyState>
      );
    else if (status !== 'ready') empty = <EmptyState title="Loading the ledger…" tone="loading" />;
    else if (filtered)
      empty = (
        <EmptyState
          title="No transactions match these filters"
          action={
            <button type="button" className="btn" onClick={() => setLedgerFilters(EMPTY_LEDGER_FILTERS)}>
              Clear filters
            </button>
          }
        />
      );
    else
      empty = (
        <EmptyState title="No transactions yet">
          Top-ups, buys, refunds and freezes appear here as they happen.
        </EmptyState>
      );
  }
  return (
    <div className={`table-wrap ${status === 'loading' && ids.length > 0 ? 'refreshing' : ''}`}>
      <table className="data-table ledger-table" aria-label="Ledger" aria-busy={status === 'loading'}>
        <colgroup>
          <col className="col-datetime" />
          <col style={{ width: 132 }} />
          <col className="col-signed-money" />
          <col className="col-signed-money" />
          <col className="col-signed-money" />
          <col />
          <col style={{ width: 112 }} />
          <col style={{ width: 56 }} />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Type</th>
            <th scope="col" className="right">
              Amount
            </th>
            <th scope="col" className="right">
              Before
            </th>
            <th scope="col" className="right">
              After
            </th>
            <th scope="col">Item / note</th>
            <th scope="col">Trade</th>
            <th scope="col" className="right">
              ID
            </th>
          </tr>
        </thead>
        <tbody>
          {ids.map((id) => {
            const row = byId[id];
            if (!row) return null;
            return (
              <tr key={id}>
                <td className="num nowrap">{formatDateTime(row.createdAt)}</td>
                <td>
                  <span className="type-tag" style={{ '--status-color': TYPE_TONES[row.type] } as CSSProperties}>
                    {row.type}
                  </span>
                </td>
                <td className="right">
                  <Money cents={row.amount} signed />
                </td>
                <td className="right muted">
                  <Money cents={row.balanceBefore} />
                </td>
                <td className="right">
                  <Money cents={row.balanceAfter} />
                </td>
                <td
                  className="note-cell"
                  title={[row.market_hash_name, row.phase, row.note].filter(Boolean).join(' · ')}
                >
                  {row.market_hash_name ? (
                    <div className="ellipsis">
                      {row.market_hash_name}
                      {row.phase ? <span className="muted"> · {row.phase}</span> : null}
                    </div>
                  ) : null}
                  {row.note ? (
                    <div className={`ellipsis ${row.market_hash_name ? 'muted small' : 'muted'}`}>{row.note}</div>
                  ) : null}
                  {!row.market_hash_name && !row.note ? <span className="muted">—</span> : null}
                </td>
                <td className="mono small">
                  {row.tradeId ? (
                    <button
                      type="button"
                      className="link-btn mono"
                      onClick={() => navigate('trades', row.tradeId)}
                      title={`Open trade ${row.tradeId}`}
                    >
                      {row.tradeId.length > 12 ? `${row.tradeId.slice(0, 10)}…` : row.tradeId}
                    </button>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="right num muted">{row.id}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {empty}
    </div>
  );
}

export function WalletScreen() {
  const offset = useStore((s) => s.wallet.offset);
  const limit = useStore((s) => s.wallet.limit);
  const total = useStore((s) => s.wallet.list.total);
  const status = useStore((s) => s.wallet.list.status);
  useEffect(() => {
    loadWallet();
  }, []);
  return (
    <div className="screen wallet-screen">
      <header className="screen-head">
        <div className="screen-title">
          <h1>Wallet</h1>
        </div>
        <div className="head-actions">
          <button type="button" className="btn" onClick={loadWallet} aria-label="Reload ledger" title="Reload">
            <Icon name="refresh" size={14} />
          </button>
          <button type="button" className="btn" onClick={() => void exportLedgerCsv()}>
            <Icon name="download" size={14} /> Export CSV
          </button>
        </div>
      </header>
      <OfflineBanner />
      <div className="wallet-top">
        <BalanceCards />
        <section className="panel chart-panel" aria-label="Balance over time">
          <h3>Balance over time</h3>
          <BalanceChart />
        </section>
        <RunwayPanel />
      </div>
      <LedgerFilters />
      <div className="split-main">
        <LedgerTable />
        <footer className="table-foot">
          <Pager
            offset={offset}
            limit={limit}
            total={total}
            sizes={[25, 50, 100, 200]}
            busy={status === 'loading'}
            onChange={(o, l) => setLedgerPage(o, l)}
          />
        </footer>
      </div>
    </div>
  );
}
