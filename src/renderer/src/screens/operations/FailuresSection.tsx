import { useId, useRef, useState, type KeyboardEvent } from 'react';
import type { BuyRefusal, FailureBoardRow, FailureReason, FailuresBoard } from '../../../../shared/ipc/operations';
import { DateInput } from '../../components/DateInput';
import { EmptyState } from '../../components/EmptyState';
import { downloadText, safeCsvFilename } from '../../lib/download';
import { formatCents, formatDateTime, formatInt } from '../../lib/format';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { navigate } from '../../state/actions/navigation';
import { toast } from '../../state/actions/toast';
import { openTradesFiltered } from '../../state/actions/trades';
import type { FailuresState } from './useFailures';

const HOUR_MS = 3600_000;

/** A row's UTC bounds: a day (2026-11-29) or an hour (2026-11-29T08). */
function boundsOf(at: string): { from: string; to: string; label: string } {
  const hour = at.length > 10;
  const start = Date.parse(hour ? `${at}:00:00.000Z` : `${at}T00:00:00.000Z`);
  const end = start + (hour ? HOUR_MS : 24 * HOUR_MS) - 1;
  return {
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    label: hour ? `${at.replace('T', ' ')}:00 UTC` : `${at} (UTC)`,
  };
}

const periodText = (at: string) => (at.length > 10 ? `${at.slice(11, 13)}:00` : at);

/** Operations → Failures: failed trades by outcome code and buy refusals, per UTC day and per hour of today. */
export function FailuresSection({ state }: { state: FailuresState }) {
  const id = useId();
  const { board, error } = state;
  const [cellRefusals, setCellRefusals] = useState<{
    title: string;
    rows: BuyRefusal[] | null;
    error: string | null;
  } | null>(null);
  const open = (row: FailureBoardRow, reason: FailureReason) => {
    const bounds = boundsOf(row.at);
    if (reason.kind === 'trade' && reason.status) {
      openTradesFiltered({ statuses: [reason.status], errorCode: reason.errorCode ?? 0, utcRange: bounds });
      navigate('trades');
      return;
    }
    const day = row.at.slice(0, 10);
    const title = `${reason.label}, ${bounds.label}`;
    setCellRefusals({ title, rows: null, error: null });
    unwrap(
      api().operations.refusals({
        from: day,
        to: day,
        hour: row.at.length > 10 ? Number(row.at.slice(11, 13)) : null,
        code: reason.code as never,
      }),
    )
      .then((rows) => setCellRefusals({ title, rows, error: null }))
      .catch((problem: unknown) => setCellRefusals({ title, rows: [], error: errorMessage(problem) }));
  };
  const exportCsv = async () => {
    try {
      const { filename, csv } = await unwrap(api().operations.failuresCsv(state.range ?? {}));
      downloadText(safeCsvFilename(filename, 'failures'), csv);
      toast('success', 'Failures exported', safeCsvFilename(filename, 'failures'));
    } catch (problem) {
      toast('error', 'Export failed', errorMessage(problem));
    }
  };
  const empty =
    board !== null &&
    board.days.every((row) => row.total.count === 0) &&
    board.hours.every((row) => row.total.count === 0);
  return (
    <section className="panel operations-section" aria-labelledby={`${id}-title`} data-section="failures">
      <h2 className="panel-title" id={`${id}-title`}>
        Failures
      </h2>
      <RangeControls state={state} onExport={() => void exportCsv()} />
      {error ? (
        <p className="ops-notice danger" role="alert">
          {error}
        </p>
      ) : null}
      {!board ? (
        error ? null : (
          <EmptyState title="Reading the local cache…" tone="loading" />
        )
      ) : empty ? (
        <EmptyState title="No failures in this range">
          No cached trade from {board.from} to {board.to} (UTC) ended expired, declined, sold elsewhere, countered or in
          a platform error, and no buy was refused.
        </EmptyState>
      ) : (
        <>
          <BoardTable
            caption={`Today by hour (UTC, ${board.today})`}
            board={board}
            rows={board.hours.filter((row) => row.total.count > 0)}
            onOpen={open}
          />
          <BoardTable
            caption={`By day (UTC), ${board.from} to ${board.to}`}
            board={board}
            rows={board.days}
            onOpen={open}
          />
          {cellRefusals ? <RefusalList {...cellRefusals} onClose={() => setCellRefusals(null)} /> : null}
        </>
      )}
    </section>
  );
}

function RangeControls({ state, onExport }: { state: FailuresState; onExport: () => void }) {
  const [from, setFrom] = useState(state.range?.from ?? '');
  const [to, setTo] = useState(state.range?.to ?? '');
  return (
    <form
      className="ops-range"
      aria-label="Failures range"
      onSubmit={(event) => {
        event.preventDefault();
        state.setRange(from && to ? { from, to } : null);
      }}
    >
      <span className="filter-label">From (UTC)</span>
      <DateInput label="Failures from day (UTC)" value={from} onChange={setFrom} />
      <span className="filter-label">to</span>
      <DateInput label="Failures to day (UTC)" value={to} onChange={setTo} />
      <button type="submit" className="btn sm">
        Show
      </button>
      <button
        type="button"
        className="btn ghost sm"
        onClick={() => {
          setFrom('');
          setTo('');
          state.setRange(null);
        }}
      >
        Last 30 days
      </button>
      <button type="button" className="btn sm" onClick={onExport}>
        Export CSV
      </button>
    </form>
  );
}

/**
 * The board as a table whose cells are buttons: one tab stop (the current cell), arrow keys move between cells,
 * Home/End to a row's ends, Enter opens the cell's trades or refusals.
 */
function BoardTable({
  caption,
  board,
  rows,
  onOpen,
}: {
  caption: string;
  board: FailuresBoard;
  rows: FailureBoardRow[];
  onOpen: (row: FailureBoardRow, reason: FailureReason) => void;
}) {
  const [current, setCurrent] = useState({ row: 0, col: 0 });
  const table = useRef<HTMLTableElement>(null);
  if (rows.length === 0) return null;
  const cols = board.reasons.length;
  const focus = (row: number, col: number) => {
    const r = Math.max(0, Math.min(rows.length - 1, row));
    const c = Math.max(0, Math.min(cols - 1, col));
    setCurrent({ row: r, col: c });
    table.current?.querySelector<HTMLButtonElement>(`[data-cell="${r}:${c}"]`)?.focus();
  };
  const onKey = (event: KeyboardEvent, row: number, col: number) => {
    const moves: Record<string, [number, number]> = {
      ArrowUp: [row - 1, col],
      ArrowDown: [row + 1, col],
      ArrowLeft: [row, col - 1],
      ArrowRight: [row, col + 1],
      Home: [row, 0],
      End: [row, cols - 1],
      PageUp: [row - 10, col],
      PageDown: [row + 10, col],
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    focus(...move);
  };
  const active = { row: Math.min(current.row, rows.length - 1), col: Math.min(current.col, cols - 1) };
  return (
    <div className="ops-board-wrap">
      <table className="ops-table ops-board" ref={table}>
        <caption>
          {caption} <span className="muted small">(arrow keys move between cells, Enter opens one)</span>
        </caption>
        <thead>
          <tr>
            <th scope="col">{rows[0]?.at.length === 10 ? 'Day' : 'Hour'}</th>
            {board.reasons.map((reason) => (
              <th scope="col" key={reason.key} className={`num ${reason.kind}`}>
                {reason.label}
              </th>
            ))}
            <th scope="col" className="num">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, r) => (
            <tr key={row.at}>
              <th scope="row" className="num">
                {periodText(row.at)}
              </th>
              {board.reasons.map((reason, c) => {
                const cell = row.cells[reason.key];
                const count = cell?.count ?? 0;
                const what = reason.kind === 'trade' ? 'trades' : 'refusals';
                return (
                  <td key={reason.key} className="num">
                    <button
                      type="button"
                      className={`ops-cell ${count === 0 ? 'zero' : ''}`}
                      data-cell={`${r}:${c}`}
                      tabIndex={active.row === r && active.col === c ? 0 : -1}
                      onKeyDown={(event) => onKey(event, r, c)}
                      onFocus={() => setCurrent({ row: r, col: c })}
                      onClick={() => onOpen(row, reason)}
                      aria-label={`${formatInt(count)} ${what}: ${reason.label}, ${periodText(row.at)}${
                        count > 0 ? `, ${formatCents(cell?.value ?? 0)}` : ''
                      }. Open the ${what}`}
                    >
                      {formatInt(count)}
                    </button>
                    {count > 0 ? <div className="small">{formatCents(cell?.value ?? 0)}</div> : null}
                  </td>
                );
              })}
              <td className="num">
                {formatInt(row.total.count)}
                {row.total.count > 0 ? <div className="small">{formatCents(row.total.value)}</div> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RefusalList({
  title,
  rows,
  error,
  onClose,
}: {
  title: string;
  rows: BuyRefusal[] | null;
  error: string | null;
  onClose: () => void;
}) {
  return (
    <div className="ops-notice" role="region" aria-label={`Refusals: ${title}`}>
      <div className="ops-range">
        <p className="strong">Refusals: {title}</p>
        <button type="button" className="btn ghost sm" onClick={onClose}>
          Close
        </button>
      </div>
      {error ? (
        <p role="alert">{error}</p>
      ) : rows === null ? (
        <p>Reading…</p>
      ) : rows.length === 0 ? (
        <p>None: no buy was refused so in this period.</p>
      ) : (
        <table className="ops-table">
          <caption className="sr-only">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Item</th>
              <th scope="col" className="num">
                Price
              </th>
              <th scope="col">Recipient</th>
              <th scope="col">Order id</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((refusal) => (
              <tr key={refusal.id}>
                <td className="num">{formatDateTime(refusal.at)}</td>
                <td>{refusal.market_hash_name ?? (refusal.itemId !== null ? `Item ${refusal.itemId}` : '—')}</td>
                <td className="num">{formatCents(refusal.price)}</td>
                <td className="num">{refusal.partner ?? '—'}</td>
                <td className="num">{refusal.externalId ?? '—'}</td>
                <td>{refusal.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
