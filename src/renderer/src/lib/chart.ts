/** Geometry for the small inline SVG charts (price history, balance over time). */
export interface SeriesPoint {
  t: number;
  v: number;
}

export interface ChartGeometry {
  /** `points` attribute of a polyline, in viewBox units. */
  line: string;
  /** Closed path under the line, for a soft fill. */
  area: string;
  minV: number;
  maxV: number;
  minT: number;
  maxT: number;
  /** Each input point in viewBox units (same order). */
  coords: { x: number; y: number }[];
}

export interface ChartBox {
  width: number;
  height: number;
  /** Inner padding so strokes at the extremes stay visible. */
  pad: number;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Points sorted by time. `step`: hold each value until the next point (a balance
 * changes in jumps). A single point draws a flat line across.
 */
export function chartGeometry(input: readonly SeriesPoint[], box: ChartBox, step = false): ChartGeometry | null {
  if (input.length === 0) return null;
  const points = [...input].sort((a, b) => a.t - b.t);
  const first = points[0] as SeriesPoint;
  const lastPoint = points[points.length - 1] as SeriesPoint;
  let minV = Infinity;
  let maxV = -Infinity;
  for (const p of points) {
    if (p.v < minV) minV = p.v;
    if (p.v > maxV) maxV = p.v;
  }
  const minT = first.t;
  const maxT = lastPoint.t;
  const spanT = maxT - minT;
  // A flat series sits in the middle; otherwise leave 8% headroom either side.
  const spanV = maxV - minV;
  const lo = spanV === 0 ? minV - 1 : minV - spanV * 0.08;
  const hi = spanV === 0 ? maxV + 1 : maxV + spanV * 0.08;
  const w = box.width - box.pad * 2;
  const h = box.height - box.pad * 2;
  const x = (t: number) => round(box.pad + (spanT === 0 ? 0 : ((t - minT) / spanT) * w));
  const y = (v: number) => round(box.pad + h - ((v - lo) / (hi - lo)) * h);

  const coords = points.map((p) => ({ x: x(p.t), y: y(p.v) }));
  const drawn: { x: number; y: number }[] = [];
  coords.forEach((c, i) => {
    const prev = drawn[drawn.length - 1];
    if (step && prev && i > 0) drawn.push({ x: c.x, y: prev.y });
    drawn.push(c);
  });
  if (points.length === 1) drawn.push({ x: round(box.pad + w), y: (coords[0] as { y: number }).y });
  const line = drawn.map((c) => `${c.x},${c.y}`).join(' ');
  const bottom = round(box.pad + h);
  const firstX = (drawn[0] as { x: number }).x;
  const lastX = (drawn[drawn.length - 1] as { x: number }).x;
  const area = `M${firstX},${bottom} L${drawn.map((c) => `${c.x},${c.y}`).join(' L')} L${lastX},${bottom} Z`;
  return { line, area, minV, maxV, minT, maxT, coords };
}

/** Index of the point nearest to a horizontal position given as a 0..1 fraction of the plot. */
export function nearestIndex(coords: readonly { x: number }[], fraction: number, box: ChartBox): number {
  if (coords.length === 0) return -1;
  const target = box.pad + fraction * (box.width - box.pad * 2);
  let best = 0;
  let bestDist = Infinity;
  coords.forEach((c, i) => {
    const d = Math.abs(c.x - target);
    if (d < bestDist) {
      best = i;
      bestDist = d;
    }
  });
  return best;
}

/**
 * The value scale's two labels (high, low; one when the series is flat). The short form drops detail ($456k, $50):
 * when it would write both ends the same ($50.00 and $49.84 both "$50"), both are written in full.
 */
export function scaleLabels(
  minV: number,
  maxV: number,
  short: (v: number) => string,
  full: (v: number) => string,
): [high: string, low: string | null] {
  if (minV === maxV) return [short(maxV), null];
  const high = short(maxV);
  const low = short(minV);
  return high === low ? [full(maxV), full(minV)] : [high, low];
}
