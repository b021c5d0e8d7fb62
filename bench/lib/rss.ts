import { readFileSync } from 'node:fs';

/** A field of /proc/<pid>/status in MB (VmHWM: peak resident set; VmRSS: current), or null where /proc is missing. */
export function procStatusMB(field: 'VmHWM' | 'VmRSS', pid: number | 'self' = 'self'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Peak resident set of this process so far, in MB, worker threads included (they
 * share the process): VmHWM on Linux, else process.resourceUsage().maxRSS.
 */
export function peakRssMB(): number {
  return procStatusMB('VmHWM') ?? process.resourceUsage().maxRSS / 1024;
}

/** Samples another process's RSS every `intervalMs`; `stop()` gives the highest seen (and its VmHWM when readable). */
export function sampleRss(pid: number, intervalMs = 50): { stop(): { peakMB: number; hwmMB: number | null } } {
  let peak = 0;
  let hwm: number | null = null;
  const tick = () => {
    const rss = procStatusMB('VmRSS', pid);
    if (rss !== null) peak = Math.max(peak, rss);
    const high = procStatusMB('VmHWM', pid);
    if (high !== null) hwm = high;
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      tick();
      clearInterval(timer);
      return { peakMB: peak, hwmMB: hwm };
    },
  };
}
