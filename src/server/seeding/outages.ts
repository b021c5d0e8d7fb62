import { DAY_MS, MINUTE_MS } from '../../shared/time';
import type { Rng } from '../catalog/rng';

/** Chance that a day of the history has one outage of the merchant's webhook endpoint. */
const OUTAGE_PER_DAY = 0.35;
const OUTAGE_MINUTES: readonly [number, number] = [20, 150];
/** Outages end this long before the history does, so every delivery of the history has settled. */
const SETTLED_BEFORE_END_MS = 10 * MINUTE_MS;

/** When the merchant's webhook endpoint was down: deliveries due then failed (the breaker paused them). */
export class Outages {
  private constructor(private readonly windows: readonly (readonly [number, number])[]) {}

  static draw(rng: Rng, from: number, to: number): Outages {
    const windows: [number, number][] = [];
    for (let day = from; day < to; day += DAY_MS) {
      if (!rng.chance(OUTAGE_PER_DAY)) continue;
      const start = day + Math.floor(rng.next() * DAY_MS);
      // Inside its own day, so the windows stay in order and apart.
      const length = rng.int(OUTAGE_MINUTES[0], OUTAGE_MINUTES[1]) * MINUTE_MS;
      const end = Math.min(start + length, day + DAY_MS, to - SETTLED_BEFORE_END_MS);
      if (end > start) windows.push([start, end]);
    }
    return new Outages(windows);
  }

  covers(at: number): boolean {
    let lo = 0;
    let hi = this.windows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [start, end] = this.windows[mid] as readonly [number, number];
      if (at < start) hi = mid - 1;
      else if (at >= end) lo = mid + 1;
      else return true;
    }
    return false;
  }
}
