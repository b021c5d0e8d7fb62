/**
 * Summarizes V8 CPU profiles (`node --cpu-prof`, or BENCH_CPU_PROF=<dir> for the
 * benchmarks' children): the top functions by self time, and by total time for
 * the project's own files; --window FROM:TO keeps only the samples taken in that span.
 *
 *   npx tsx bench/lib/profile-summary.ts <file.cpuprofile | dir> [--top 25] [--window FROM:TO]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT_DIR } from './result';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileLine {
  name: string;
  where: string;
  selfMs: number;
  selfPct: number;
  totalMs: number;
}

function label(node: ProfileNode): { name: string; where: string } {
  const url = node.callFrame.url.replace(/^file:\/\//, '');
  const where = url
    ? `${url.startsWith(ROOT_DIR) ? relative(ROOT_DIR, url) : url.replace(/.*node_modules\//, 'node_modules/')}:${node.callFrame.lineNumber + 1}`
    : '';
  return { name: node.callFrame.functionName || '(anonymous)', where };
}

/** window: [from, to] in the profiles' clock (µs, process.hrtime), to keep only the samples taken in it. */
export function summarizeProfile(
  file: string,
  top = 25,
  window?: [number, number],
): { totalMs: number; lines: ProfileLine[] } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window[0] || at > window[1])) return;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const totalMs = window
    ? (Math.min(window[1], profile.endTime) - Math.max(window[0], profile.startTime)) / 1000
    : (profile.endTime - profile.startTime) / 1000;
  const selfByKey = new Map<string, ProfileLine>();
  const totalByKey = new Map<string, number>();
  for (const [id, ms] of self) {
    const node = byId.get(id) as ProfileNode;
    const l = label(node);
    const key = `${l.name} ${l.where}`;
    const entry = selfByKey.get(key) ?? { ...l, selfMs: 0, selfPct: 0, totalMs: 0 };
    entry.selfMs += ms;
    selfByKey.set(key, entry);
    // Total: once per distinct function on the stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur) as ProfileNode;
      const ln = label(n);
      const k = `${ln.name} ${ln.where}`;
      if (seen.has(k)) continue;
      seen.add(k);
      totalByKey.set(k, (totalByKey.get(k) ?? 0) + ms);
    }
  }
  const lines = [...selfByKey.entries()]
    .map(([key, e]) => ({ ...e, selfPct: (e.selfMs / totalMs) * 100, totalMs: totalByKey.get(key) ?? e.selfMs }))
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, top);
  return { totalMs, lines };
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const target = process.argv[2];
  if (!target) {
    console.error('usage: npx tsx bench/lib/profile-summary.ts <file.cpuprofile | dir> [--top N]');
    process.exit(2);
  }
  const topIndex = process.argv.indexOf('--top');
  const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 25;
  // --window FROM:TO (µs, process.hrtime's clock, as the benchmarks print it with BENCH_TRACE).
  const windowIndex = process.argv.indexOf('--window');
  const window =
    windowIndex > 0 ? ((process.argv[windowIndex + 1] ?? '').split(':').map(Number) as [number, number]) : undefined;
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => join(target, f))
    : [target];
  for (const file of files) {
    const { totalMs, lines } = summarizeProfile(file, top, window);
    console.log(`\n${file}: ${(totalMs / 1000).toFixed(1)} s profiled; top ${lines.length} by self time`);
    for (const l of lines)
      console.log(
        `${l.selfMs.toFixed(0).padStart(7)} ms ${l.selfPct.toFixed(1).padStart(5)}%  total ${l.totalMs.toFixed(0).padStart(7)} ms  ${l.name}  ${l.where}`,
      );
  }
}
