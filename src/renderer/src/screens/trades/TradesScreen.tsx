import { useEffect } from 'react';
import { OfflineBanner } from '../../app/OfflineBanner';
import { Icon } from '../../components/Icon';
import { Pager } from '../../components/Pager';
import { formatInt } from '../../lib/format';
import { exportTradesCsv, loadTrades, setTradesPage, setTradesTab } from '../../state/actions/trades';
import { TRADE_PAGE_SIZES, type TradesTab } from '../../state/slices/trades';
import { useStore } from '../../state/store';
import { TradeDetailPanel } from './TradeDetailPanel';
import { TradeFiltersBar } from './TradeFiltersBar';
import { TradesTable } from './TradesTable';

const TABS: { id: TradesTab; label: string }[] = [
  { id: 'active', label: 'Active' },
  { id: 'history', label: 'History' },
];

export function TradesScreen() {
  const tab = useStore((s) => s.trades.tab);
  const offset = useStore((s) => s.trades.offset);
  const limit = useStore((s) => s.trades.limit);
  const total = useStore((s) => s.trades.list.total);
  const capped = useStore((s) => s.trades.totalCapped);
  const status = useStore((s) => s.trades.list.status);
  const stale = useStore((s) => s.trades.stale);
  const activeTrades = useStore((s) => s.conn.activeTrades);
  const detailOpen = useStore((s) => s.trades.detail.id !== null);

  // Fresh on every visit (live events keep it current while here).
  useEffect(() => {
    void loadTrades();
  }, []);

  return (
    <div className="screen trades-screen">
      <header className="screen-head">
        <div className="screen-title">
          <h1>Trades</h1>
          <div className="head-stats">
            <span>
              <strong className="num">{formatInt(activeTrades)}</strong> active
            </span>
            {status === 'ready' ? (
              <span>
                <strong className="num">
                  {formatInt(total)}
                  {capped ? '+' : ''}
                </strong>{' '}
                {tab === 'active' ? 'listed' : 'matching'}
              </span>
            ) : null}
          </div>
        </div>
        <div className="head-actions">
          {stale && offset > 0 ? (
            <button type="button" className="pill" onClick={() => setTradesPage(0)}>
              New activity — back to newest
            </button>
          ) : null}
          <button
            type="button"
            className="btn"
            onClick={() => void loadTrades()}
            aria-label="Reload trades"
            title="Reload"
          >
            <Icon name="refresh" size={14} />
          </button>
          <button type="button" className="btn" onClick={() => void exportTradesCsv()}>
            <Icon name="download" size={14} /> Export CSV
          </button>
        </div>
      </header>
      <OfflineBanner />
      <div className="tabs" role="tablist" aria-label="Trade lists">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            className={`tab ${tab === t.id ? 'on' : ''}`}
            onClick={() => setTradesTab(t.id)}
          >
            {t.label}
            {t.id === 'active' && activeTrades > 0 ? <span className="tab-count num">{activeTrades}</span> : null}
          </button>
        ))}
      </div>
      <TradeFiltersBar />
      <div className={`split-body ${detailOpen ? 'with-detail' : ''}`}>
        <div className="split-main">
          <TradesTable compact={detailOpen} />
          <footer className="table-foot">
            <Pager
              offset={offset}
              limit={limit}
              total={total}
              capped={capped}
              sizes={TRADE_PAGE_SIZES}
              busy={status === 'loading'}
              onChange={(o, l) => setTradesPage(o, l)}
            />
          </footer>
        </div>
        <TradeDetailPanel />
      </div>
    </div>
  );
}
