import type { PricePoint } from '../../../../shared/ipc/models';
import { LineChart } from '../../components/LineChart';
import { Money } from '../../components/Money';
import { TimeAgo } from '../../components/TimeAgo';
import { formatCents, formatDateTime, formatSignedCents } from '../../lib/format';

/** The points where the price actually changed (repeats of the same price say nothing). */
export function priceMoves(points: readonly PricePoint[]): PricePoint[] {
  const moves: PricePoint[] = [];
  for (const p of points) if (moves.length === 0 || moves[moves.length - 1]?.price !== p.price) moves.push(p);
  return moves;
}

export function PriceHistory({ points }: { points: readonly PricePoint[] }) {
  if (points.length === 0) return <div className="chart-empty muted">No price history yet</div>;
  const moves = priceMoves(points);
  const first = points[0] as PricePoint;
  if (moves.length < 2) {
    // One price so far: a flat line would only repeat it. Say so, and since when.
    return (
      <div className="no-moves" role="status" aria-label="No price moves yet">
        <span className="no-moves-mark" aria-hidden="true">
          <svg viewBox="0 0 24 24" width="18" height="18">
            <path d="M3 12h18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeDasharray="3 4" />
          </svg>
        </span>
        <div>
          <div className="strong">No price moves yet</div>
          <div className="muted small">
            <Money cents={first.price} /> since <span className="num">{formatDateTime(first.at)}</span> (
            <TimeAgo iso={first.at} />
            ). Moves show here as they happen.
          </div>
        </div>
      </div>
    );
  }
  const series = moves.map((p) => ({ t: Date.parse(p.at), v: p.price }));
  const last = points[points.length - 1] as PricePoint;
  const change = last.price - first.price;
  const pct = first.price > 0 ? (change / first.price) * 100 : 0;
  return (
    <>
      <LineChart
        points={series}
        label="Price history"
        step
        height={110}
        tone={change > 0 ? 'up' : change < 0 ? 'down' : 'accent'}
        formatValue={formatCents}
        formatTime={(t) => formatDateTime(new Date(t).toISOString())}
      />
      <div className="chart-foot small">
        <span className="muted">
          {moves.length - 1} move{moves.length === 2 ? '' : 's'} since first seen
        </span>
        {change !== 0 ? (
          <span className={`num ${change > 0 ? 'pos' : 'neg'}`}>
            {formatSignedCents(change)} ({change > 0 ? '+' : '-'}
            {Math.abs(pct).toFixed(1)}%)
          </span>
        ) : (
          <span className="muted">back to the first price</span>
        )}
      </div>
    </>
  );
}
