import { Icon } from '../../components/Icon';
import { activeFilterCount } from '../../lib/catalogQuery';
import { useNow } from '../../lib/clock';
import { formatCents, formatInt, formatRelative, formatTime } from '../../lib/format';
import { openBuyByName } from '../buy/open';
import { refreshCatalog, softRefresh } from '../../state/actions/catalog';
import { openDialog } from '../../state/actions/dialogs';
import { useStore } from '../../state/store';

function LastUpdate() {
  const lastUpdate = useStore((s) => s.catalog.info.lastUpdate);
  const now = useNow();
  if (!lastUpdate) return <span className="muted">No catalog received yet</span>;
  const stale = now - Date.parse(lastUpdate) > 10 * 60_000;
  return (
    <span className={stale ? 'warn-text' : ''} title={new Date(lastUpdate).toString()}>
      Last catalog update <span className="num">{formatTime(lastUpdate)}</span>{' '}
      <span className="num">({formatRelative(lastUpdate, now)})</span>
    </span>
  );
}

export function CatalogHeader() {
  const totalItems = useStore((s) => s.catalog.info.totalItems);
  const totalValue = useStore((s) => s.catalog.info.totalValue);
  const matching = useStore((s) => s.catalog.total);
  const filtered = useStore((s) => activeFilterCount(s.catalog.filters) > 0 || s.catalog.filters.search.trim() !== '');
  const pendingNew = useStore((s) => s.catalog.pendingNew);
  const faded = useStore((s) => s.catalog.faded);
  const syncing = useStore((s) => s.conn.progress.some((p) => p.kind === 'catalog-sync'));
  return (
    <header className="screen-head">
      <div className="screen-title">
        <h1>Catalog</h1>
        <div className="head-stats" aria-label="Catalog summary">
          <span>
            <strong className="num">{formatInt(totalItems)}</strong> items
          </span>
          <span>
            <strong className="num">{formatCents(totalValue)}</strong> total value
          </span>
          {filtered ? (
            <span>
              <strong className="num">{matching === null ? '…' : formatInt(matching)}</strong> matching
            </span>
          ) : null}
          <LastUpdate />
        </div>
      </div>
      <div className="head-actions">
        {pendingNew > 0 || faded > 0 ? (
          <button
            type="button"
            className="pill"
            onClick={softRefresh}
            title="Re-query the rows on screen: sold rows leave, new and changed ones show"
          >
            {[
              faded > 0 ? `${formatInt(faded)} sold` : '',
              pendingNew > 0 ? `${formatInt(pendingNew)} new or changed` : '',
            ]
              .filter(Boolean)
              .join(' · ')}{' '}
            — refresh
          </button>
        ) : null}
        <button
          type="button"
          className="btn"
          onClick={() => openDialog({ kind: 'saveSearch' })}
          title="Name this search, its filters and sort, to open it again from the sidebar or the palette"
        >
          Save search
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => openBuyByName()}
          title="Buy the cheapest item of a name (N)"
        >
          <Icon name="bolt" size={14} /> Purchase by name
        </button>
        <button
          type="button"
          className={`btn ${syncing ? 'busy' : ''}`}
          onClick={() => void refreshCatalog()}
          title="Fetch a fresh on-sale list (rate limited: 10 a minute)"
        >
          <Icon name="refresh" size={14} /> Refresh
        </button>
      </div>
    </header>
  );
}
