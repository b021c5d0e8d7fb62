import { readdirSync, readFileSync } from 'node:fs';

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

/** A process and every process under it (its children's children too), from /proc; just `pid` where /proc is missing. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const parent = out[i] as number;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${parent}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8').trim();
        if (children) out.push(...children.split(/\s+/).map(Number));
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return out;
}

/**
 * Samples the resident set of a process tree (the process, its worker threads, which share it, and any child
 * processes) every `intervalMs`: `stop()` gives the highest sum seen.
 */
export function sampleTreeRss(pid: number, intervalMs = 50): { stop(): { peakMB: number } } {
  let peak = 0;
  const tick = () => {
    let sum = 0;
    for (const member of processTree(pid)) sum += procStatusMB('VmRSS', member) ?? 0;
    peak = Math.max(peak, sum);
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      tick();
      clearInterval(timer);
      return { peakMB: peak };
    },
  };
}
