import { useState } from 'react';
import { type ChartBox, chartGeometry, nearestIndex, scaleLabels, type SeriesPoint } from '../lib/chart';
import { timeAxisFormat } from '../lib/format';

const BOX: ChartBox = { width: 600, height: 160, pad: 6 };

/**
 * A small inline-SVG line chart with a hover readout. The value scale sits in a gutter
 * left of the plot (never over the line); the time axis shows `timeTicks` evenly spaced
 * times (2: just the ends).
 */
export function LineChart({
  points,
  label,
  formatValue,
  formatTime,
  formatAxisValue = formatValue,
  formatAxisTime,
  step = false,
  height = 160,
  tone = 'accent',
  timeTicks = 2,
}: {
  points: readonly SeriesPoint[];
  label: string;
  formatValue: (v: number) => string;
  formatTime: (t: number) => string;
  /** Shorter forms for the axes ($456k; times as precise as the span needs by default); the readout uses the full ones. */
  formatAxisValue?: (v: number) => string;
  formatAxisTime?: (t: number) => string;
  step?: boolean;
  height?: number;
  tone?: 'accent' | 'up' | 'down';
  timeTicks?: number;
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
  const ticks = Math.max(2, timeTicks);
  const times = Array.from({ length: ticks }, (_, i) => geo.minT + ((geo.maxT - geo.minT) * i) / (ticks - 1));
  const axisTime = formatAxisTime ?? timeAxisFormat(geo.minT, geo.maxT);
  const [high, low] = scaleLabels(geo.minV, geo.maxV, formatAxisValue, formatValue);
  return (
    <figure className={`chart tone-${tone}`}>
      <div className="chart-grid">
        <div className="chart-scale num" aria-hidden="true">
          <span>{high}</span>
          {low !== null ? <span>{low}</span> : null}
        </div>
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
          <svg
            viewBox={`0 0 ${box.width} ${box.height}`}
            preserveAspectRatio="none"
            width="100%"
            height={height}
            aria-hidden="true"
          >
            <line
              x1="0"
              x2={box.width}
              y1={box.pad}
              y2={box.pad}
              className="chart-gridline"
              vectorEffect="non-scaling-stroke"
            />
            <line
              x1="0"
              x2={box.width}
              y1={box.height - box.pad}
              y2={box.height - box.pad}
              className="chart-gridline"
              vectorEffect="non-scaling-stroke"
            />
            <path d={geo.area} className="chart-area" />
            <polyline points={geo.line} className="chart-line" vectorEffect="non-scaling-stroke" />
          </svg>
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
        <span aria-hidden="true" />
        <figcaption className="chart-axis num muted">
          {times.map((t, i) => (
            <span key={i}>{axisTime(t)}</span>
          ))}
        </figcaption>
      </div>
    </figure>
  );
}
