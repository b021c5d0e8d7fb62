import type { PricePoint } from '../../../../shared/ipc/models';
import { LineChart } from '../../components/LineChart';
import { formatCents, formatDateTime } from '../../lib/format';

export function PriceHistory({ points }: { points: readonly PricePoint[] }) {
  if (points.length === 0) return <div className="chart-empty muted">No price history yet</div>;
  const series = points.map((p) => ({ t: Date.parse(p.at), v: p.price }));
  const first = points[0] as PricePoint;
  const last = points[points.length - 1] as PricePoint;
  const change = last.price - first.price;
  return (
    <>
      <LineChart
        points={series}
        label="Price history"
        step
        height={120}
        tone={change > 0 ? 'up' : change < 0 ? 'down' : 'accent'}
        formatValue={formatCents}
        formatTime={(t) => formatDateTime(new Date(t).toISOString())}
      />
      <div className="chart-foot small">
        <span className="muted">{points.length} price{points.length === 1 ? '' : 's'}</span>
        {change !== 0 ? (
          <span className={`num ${change > 0 ? 'pos' : 'neg'}`}>
            {change > 0 ? '+' : ''}
            {formatCents(change)} since first seen
          </span>
        ) : (
          <span className="muted">unchanged since first seen</span>
        )}
      </div>
    </>
  );
}
