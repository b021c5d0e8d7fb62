import { useEffect, useId, useState } from 'react';
import type { RecipientsQuery } from '../../../../shared/ipc/contract';
import type { RecipientSummary } from '../../../../shared/ipc/operations';
import { EmptyState } from '../../components/EmptyState';
import { Money } from '../../components/Money';
import { Pager } from '../../components/Pager';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCountdown, formatDateTime, formatInt } from '../../lib/format';
import { openRecipientTrades } from '../../state/actions/operations';
import type { RecipientsState } from './useRecipients';

type Sort = RecipientsQuery['sort'];

const COLUMNS: { sort: Sort; label: string; num: boolean }[] = [
  { sort: 'partner', label: 'Recipient', num: false },
  { sort: 'active', label: 'Active / 30', num: true },
  { sort: 'strikes', label: 'Declined or expired, 24 h / 10', num: true },
  { sort: 'delivered', label: 'Delivered', num: true },
  { sort: 'cancelled', label: 'Not delivered', num: true },
  { sort: 'reversed', label: 'Reversed', num: true },
  { sort: 'lastAt', label: 'Last outcome', num: false },
  { sort: 'value', label: 'Value delivered', num: true },
];

const STATE_TEXT: Record<RecipientSummary['state'], string> = {
  ok: '',
  near: 'Near a limit',
  'at-cap': 'At the 30 cap',
  blocked: 'Blocked',
};

/** Operations → Recipients: each trade-URL owner against the marketplace's per-recipient limits. */
export function RecipientsSection({ state }: { state: RecipientsState }) {
  const id = useId();
  const { query, page, error, setQuery } = state;
  const [search, setSearch] = useState(query.search);
  // The filter asks once typing pauses.
  useEffect(() => {
    if (search.trim() === query.search) return;
    const timer = setTimeout(() => setQuery({ search: search.trim() }), 250);
    return () => clearTimeout(timer);
  }, [search, query.search, setQuery]);
  const now = useNow(page?.rows.some((row) => row.blockedUntil !== null) ?? false);
  return (
    <section className="panel operations-section" aria-labelledby={`${id}-title`} data-section="recipients">
      <h2 className="panel-title" id={`${id}-title`}>
        Recipients
      </h2>
      <p className="muted small">
        The marketplace allows 30 active offers per recipient and blocks one for a while after 10 declined or expired
        offers in 24 hours. Counted from the local cache; a block is known from the marketplace’s refusal of a buy.
        Reversed counts reversals by either side; “by them” those the recipient (the buyer) made, not the seller.
      </p>
      <div className="ops-filters">
        <label>
          <span>Filter</span>
          <input
            type="search"
            value={search}
            maxLength={100}
            placeholder="Label or partner number"
            onChange={(event) => setSearch(event.target.value)}
          />
        </label>
        <label>
          <span>Show</span>
          <select
            value={query.only}
            onChange={(event) => setQuery({ only: event.target.value as RecipientsQuery['only'] })}
          >
            <option value="all">All recipients</option>
            <option value="attention">Blocked or near a limit</option>
            <option value="active">With active offers</option>
          </select>
        </label>
      </div>
      {error && !page ? (
        <EmptyState title="Recipients could not be read" tone="error">
          {error}
        </EmptyState>
      ) : !page ? (
        <EmptyState title="Reading the local cache…" tone="loading" />
      ) : page.total === 0 ? (
        <EmptyState title={query.search || query.only !== 'all' ? 'No recipient matches' : 'No recipients yet'}>
          {query.search || query.only !== 'all'
            ? 'Clear the filter to see every recipient.'
            : 'Each trade-URL owner you buy for shows here with their active offers, declines and deliveries.'}
        </EmptyState>
      ) : (
        <>
          {error ? (
            <p className="error-text" role="alert">
              {error}
            </p>
          ) : null}
          <table className="ops-table ops-recipients" aria-labelledby={`${id}-title`}>
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th
                    key={column.sort}
                    scope="col"
                    className={column.num ? 'num' : undefined}
                    aria-sort={query.sort === column.sort ? (query.descending ? 'descending' : 'ascending') : undefined}
                  >
                    <button
                      type="button"
                      className="link-btn"
                      onClick={() =>
                        setQuery({
                          sort: column.sort,
                          descending: query.sort === column.sort ? !query.descending : column.num,
                        })
                      }
                    >
                      {column.label}
                      {query.sort === column.sort ? (query.descending ? ' ▼' : ' ▲') : ''}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {page.rows.map((row) => (
                <RecipientRow key={row.partner} row={row} now={now} />
              ))}
            </tbody>
          </table>
          <Pager
            offset={page.offset}
            limit={query.limit}
            total={page.total}
            sizes={[50, 100, 200]}
            onChange={(offset, limit) => setQuery({ offset, limit })}
          />
        </>
      )}
    </section>
  );
}

function RecipientRow({ row, now }: { row: RecipientSummary; now: number }) {
  const name = row.label ? `${row.label} (${row.partner})` : row.partner;
  return (
    <tr className={row.state === 'ok' ? undefined : `ops-${row.state}`}>
      <td>
        <button
          type="button"
          className="link-btn"
          onClick={() => openRecipientTrades(row.partner)}
          aria-label={`${name}: open their trades`}
        >
          {row.label ? (
            <>
              {row.label} <span className="num muted">{row.partner}</span>
            </>
          ) : (
            <span className="num">{row.partner}</span>
          )}
        </button>
        {row.state !== 'ok' ? <span className={`ops-state ops-${row.state}`}>{STATE_TEXT[row.state]}</span> : null}
        {row.blockedUntil ? (
          <div className="small">
            until <span className="num">{formatDateTime(row.blockedUntil)}</span> (
            <span className="num">{formatCountdown(Date.parse(row.blockedUntil) - now)}</span> left)
          </div>
        ) : null}
      </td>
      <td className="num">
        {formatInt(row.active)} / {row.activeCap}
      </td>
      <td className="num">
        {formatInt(row.strikes)} / {row.strikeLimit}
      </td>
      <td className="num">{formatInt(row.delivered)}</td>
      <td className="num">{formatInt(row.cancelled)}</td>
      <td className="num">
        {formatInt(row.reversed)}
        {row.reversed > 0 ? <div className="small muted">{formatInt(row.buyerReversed)} by them</div> : null}
      </td>
      <td>
        {row.last ? (
          <>
            <StatusBadge status={row.last.status} />
            {row.last.errorCode !== null ? <span className="num muted"> {row.last.errorCode}</span> : null}
            <div className="small muted num">{formatDateTime(row.last.at)}</div>
          </>
        ) : (
          <span className="muted">None ended yet</span>
        )}
      </td>
      <td className="num">
        <Money cents={row.value} />
      </td>
    </tr>
  );
}

/** The clock for block countdowns, ticking each second while one is shown. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
