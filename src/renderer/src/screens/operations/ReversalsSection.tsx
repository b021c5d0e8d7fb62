import { useId, useState } from 'react';
import type { Reverser } from '../../../../shared/api';
import { REVERSED_PAGE, type ReversalExposure } from '../../../../shared/ipc/operations';
import { EmptyState } from '../../components/EmptyState';
import { Money } from '../../components/Money';
import { Pager } from '../../components/Pager';
import { formatDateTime, formatInt } from '../../lib/format';
import { downloadText } from '../../lib/download';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { openRecipientTrades } from '../../state/actions/operations';
import { TradeIdButton } from './TradeIdButton';
import type { ReversalsState } from './useReversals';

/** Operations → Reversals: what the platform could still take back, when that ends, and what it took. */
export function ReversalsSection({ state }: { state: ReversalsState }) {
  const id = useId();
  const { exposure, error } = state;
  return (
    <section className="panel operations-section" aria-labelledby={`${id}-title`} data-section="reversals">
      <h2 className="panel-title" id={`${id}-title`}>
        Reversals
      </h2>
      <p className="muted small">
        A completed trade can be reversed by the platform until its end of protection (stage 1); a reversal refunds its
        full value (ledger “TRADE ROLLBACK”). Who reversed, the buyer (the recipient) or the seller, is what the trade’s
        fail reason says; only a recipient’s own reversals put them among the recipients who reversed. Counted from the
        local cache.
      </p>
      {error && !exposure ? (
        <EmptyState title="Reversals could not be read" tone="error">
          {error}
        </EmptyState>
      ) : !exposure ? (
        <EmptyState title="Reading the local cache…" tone="loading" />
      ) : exposure.exposure.count === 0 && exposure.reversedTotal === 0 ? (
        <EmptyState title="Nothing reversible, nothing reversed">
          No cached completed trade is still within its protection, and none was reversed.
        </EmptyState>
      ) : (
        <>
          <Exposure exposure={exposure} />
          <Reversed exposure={exposure} onPage={state.setOffset} />
          <Reversers exposure={exposure} />
        </>
      )}
    </section>
  );
}

function Exposure({ exposure }: { exposure: ReversalExposure }) {
  return (
    <div className="ops-counts">
      <div className="card">
        <div className="card-label">Still reversible now</div>
        <div className="card-value num">
          <Money cents={exposure.exposure.value} />
        </div>
        <div className="card-foot muted small">
          {formatInt(exposure.exposure.count)} completed trade{exposure.exposure.count === 1 ? '' : 's'} at stage 1
          {exposure.undated.count > 0 ? `, ${formatInt(exposure.undated.count)} with no end of protection given` : ''}
        </div>
      </div>
      <table className="ops-table">
        <caption>Released by day (end of protection, UTC)</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            <th scope="col" className="num">
              Trades
            </th>
            <th scope="col" className="num">
              Value
            </th>
          </tr>
        </thead>
        <tbody>
          {exposure.schedule.length === 0 ? (
            <tr>
              <td colSpan={3} className="muted">
                None
              </td>
            </tr>
          ) : (
            exposure.schedule.map((day) => (
              <tr key={day.day}>
                <td className="num">{day.day.slice(0, 10)}</td>
                <td className="num">{formatInt(day.count)}</td>
                <td className="num">
                  <Money cents={day.value} />
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

const REVERSED_BY: Record<Reverser, string> = { buyer: 'Buyer (the recipient)', seller: 'Seller' };

function Reversed({ exposure, onPage }: { exposure: ReversalExposure; onPage: (offset: number) => void }) {
  return (
    <div>
      <table className="ops-table">
        <caption>Reversed trades, newest first ({formatInt(exposure.reversedTotal)})</caption>
        <thead>
          <tr>
            <th scope="col">Trade</th>
            <th scope="col">Recipient</th>
            <th scope="col">Reversed by</th>
            <th scope="col" className="num">
              Value
            </th>
            <th scope="col">TRADE ROLLBACK</th>
          </tr>
        </thead>
        <tbody>
          {exposure.reversed.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                None
              </td>
            </tr>
          ) : (
            exposure.reversed.map(({ trade, partner, label, reversedBy, rollback }) => (
              <tr key={trade.tradeId}>
                <td>
                  <TradeIdButton tradeId={trade.tradeId} />
                  <div className="small muted">{trade.market_hash_name}</div>
                </td>
                <td>
                  {partner ? (
                    <>
                      {label ? `${label} ` : ''}
                      <span className="num">{partner}</span>
                    </>
                  ) : (
                    <span className="muted">Unknown</span>
                  )}
                </td>
                <td>
                  {reversedBy ? (
                    REVERSED_BY[reversedBy]
                  ) : (
                    <>
                      <span className="muted">Unknown</span>
                      {trade.failReason ? <div className="small muted">“{trade.failReason}”</div> : null}
                    </>
                  )}
                </td>
                <td className="num">
                  <Money cents={trade.price} />
                </td>
                <td className="num">
                  {rollback ? (
                    <>
                      <Money cents={rollback.amount} signed /> #{rollback.id}
                      <div className="small muted">{formatDateTime(rollback.createdAt)}</div>
                    </>
                  ) : (
                    <span className="muted">Not in the cached ledger yet</span>
                  )}
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      {exposure.reversedTotal > REVERSED_PAGE ? (
        <Pager
          offset={exposure.reversedOffset}
          limit={REVERSED_PAGE}
          total={exposure.reversedTotal}
          sizes={[REVERSED_PAGE]}
          onChange={(offset) => onPage(offset)}
          label="Pages of reversed trades"
        />
      ) : null}
    </div>
  );
}

function Reversers({ exposure }: { exposure: ReversalExposure }) {
  const [problem, setProblem] = useState<string | null>(null);
  const exportCsv = () => {
    unwrap(api().operations.reversersCsv({}))
      .then(({ filename, csv }) => {
        downloadText(filename, csv);
        setProblem(null);
      })
      .catch((error: unknown) => setProblem(errorMessage(error)));
  };
  return (
    <div className="ops-replay">
      <table className="ops-table">
        <caption>
          Recipients who reversed a trade themselves ({formatInt(exposure.reversersTotal)}
          {exposure.reversersTotal > exposure.reversers.length
            ? `; the ${formatInt(exposure.reversers.length)} with the most shown, all in the CSV`
            : ''}
          )
        </caption>
        <thead>
          <tr>
            <th scope="col">Recipient</th>
            <th scope="col" className="num">
              Reversed by them
            </th>
            <th scope="col" className="num">
              All reversals
            </th>
            <th scope="col" className="num">
              Delivered
            </th>
            <th scope="col" className="num">
              Trades
            </th>
          </tr>
        </thead>
        <tbody>
          {exposure.reversers.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                None
              </td>
            </tr>
          ) : (
            exposure.reversers.map((row) => (
              <tr key={row.partner}>
                <td>
                  <button
                    type="button"
                    className="link-btn"
                    onClick={() => openRecipientTrades(row.partner)}
                    aria-label={`${row.label ? `${row.label} (${row.partner})` : row.partner}: open their trades`}
                  >
                    {row.label ? `${row.label} ` : ''}
                    <span className="num">{row.partner}</span>
                  </button>
                </td>
                <td className="num">{formatInt(row.buyerReversed)}</td>
                <td className="num">{formatInt(row.reversed)}</td>
                <td className="num">{formatInt(row.delivered)}</td>
                <td className="num">{formatInt(row.trades)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      <button type="button" className="btn" onClick={exportCsv} disabled={exposure.reversersTotal === 0}>
        Export recipients who reversed (CSV)
      </button>
      {problem ? (
        <p className="error-text" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
