import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LagSummary {
  p50: number;
  p99: number;
  max: number;
  /** How long the monitor ran, ms. */
  ms: number;
}

/** Event-loop delay of this thread (perf_hooks, 1 ms resolution) between start() and stop(). */
export class LagMonitor {
  private histogram: IntervalHistogram | null = null;
  private started = 0;

  start(): this {
    this.histogram = monitorEventLoopDelay({ resolution: 1 });
    this.histogram.enable();
    this.started = performance.now();
    return this;
  }

  stop(): LagSummary {
    const h = this.histogram;
    if (!h) throw new Error('LagMonitor not started');
    h.disable();
    this.histogram = null;
    const ms = (ns: number) => Math.round((ns / 1e6) * 100) / 100;
    // The histogram records the delay beyond the resolution tick; an idle loop reads ~1 ms.
    return {
      p50: ms(h.percentile(50)),
      p99: ms(h.percentile(99)),
      max: ms(h.max),
      ms: Math.round(performance.now() - this.started),
    };
  }
}
