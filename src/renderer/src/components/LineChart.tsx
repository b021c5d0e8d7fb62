import { useState } from 'react';
import { type ChartBox, chartGeometry, nearestIndex, type SeriesPoint } from '../lib/chart';

const BOX: ChartBox = { width: 600, height: 160, pad: 6 };

/** A small inline-SVG line chart with a hover readout. */
export function LineChart({
  points,
  label,
  formatValue,
  formatTime,
  step = false,
  height = 160,
  tone = 'accent',
}: {
  points: readonly SeriesPoint[];
  label: string;
  formatValue: (v: number) => string;
  formatTime: (t: number) => string;
  step?: boolean;
  height?: number;
  tone?: 'accent' | 'up' | 'down';
}) {
  const [hover, setHover] = useState<number | null>(null);
  const box = { ...BOX, height };
  const geo = chartGeometry(points, box, step);
  if (!geo) return <div className="chart-empty muted">No data for this range yet</div>;
  const sorted = [...points].sort((a, b) => a.t - b.t);
  const active = hover !== null ? sorted[hover] : undefined;
  const activeCoord = hover !== null ? geo.coords[hover] : undefined;
  const last = sorted[sorted.length - 1] as SeriesPoint;
  const summary = `${label}: ${sorted.length} points from ${formatTime(geo.minT)} to ${formatTime(geo.maxT)}, low ${formatValue(geo.minV)}, high ${formatValue(geo.maxV)}, latest ${formatValue(last.v)}`;
  return (
    <figure className={`chart tone-${tone}`} style={{ height: height + 22 }}>
      <div
        className="chart-plot"
        style={{ height }}
        role="img"
        aria-label={summary}
        onMouseMove={(e) => {
          const rect = e.currentTarget.getBoundingClientRect();
          const fraction = Math.min(1, Math.max(0, (e.clientX - rect.left) / rect.width));
          setHover(nearestIndex(geo.coords, fraction, box));
        }}
        onMouseLeave={() => setHover(null)}
      >
        <svg viewBox={`0 0 ${box.width} ${box.height}`} preserveAspectRatio="none" width="100%" height={height} aria-hidden="true">
          <path d={geo.area} className="chart-area" />
          <polyline points={geo.line} className="chart-line" vectorEffect="non-scaling-stroke" />
        </svg>
        <span className="chart-label top num">{formatValue(geo.maxV)}</span>
        <span className="chart-label bottom num">{formatValue(geo.minV)}</span>
        {active && activeCoord ? (
          <>
            <span className="chart-cursor" style={{ left: `${(activeCoord.x / box.width) * 100}%` }} />
            <span
              className="chart-dot"
              style={{ left: `${(activeCoord.x / box.width) * 100}%`, top: `${(activeCoord.y / box.height) * 100}%` }}
            />
            <span
              className={`chart-tip num ${activeCoord.x > box.width / 2 ? 'left' : ''}`}
              style={{ left: `${(activeCoord.x / box.width) * 100}%` }}
            >
              <strong>{formatValue(active.v)}</strong> {formatTime(active.t)}
            </span>
          </>
        ) : null}
      </div>
      <figcaption className="chart-axis num muted">
        <span>{formatTime(geo.minT)}</span>
        <span>{formatTime(geo.maxT)}</span>
      </figcaption>
    </figure>
  );
}
