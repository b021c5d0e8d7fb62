/**
 * CPU time per thread of a process over a span, from /proc/<pid>/task/<tid>/stat
 * (Linux only; empty elsewhere). Shows which thread a wall-clock phase waited on:
 * V8's profiles sample stacks, so a thread that was runnable but not running looks busy there.
 */
import { readdirSync, readFileSync } from 'node:fs';

type Sample = Map<string, { name: string; ticks: number; systemTicks: number; writes: number; written: number }>;

const TICKS_PER_SECOND = 100;

function sample(pid: number): Sample {
  const out: Sample = new Map();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // utime and stime are fields 14 and 15 of stat; fields[0] here is field 3.
      out.set(tid, {
        name,
        ticks: Number(fields[11]) + Number(fields[12]),
        systemTicks: Number(fields[12]),
        ...writesOf(`/proc/${pid}/task/${tid}/io`),
      });
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** Write calls and bytes written by a thread so far (its io file: syscw, wchar); zeros where unreadable. */
function writesOf(file: string): { writes: number; written: number } {
  try {
    const io = readFileSync(file, 'utf8');
    const field = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
    return { writes: field('syscw'), written: field('wchar') };
  } catch {
    return { writes: 0, written: 0 };
  }
}

/** Write calls, MB written and system CPU ms per thread ("name/tid") since it started counting. */
export function threadWrites(pid: number): () => Record<string, string> {
  const before = sample(pid);
  return () => {
    const spent: Record<string, string> = {};
    for (const [tid, { name, writes, written, systemTicks }] of sample(pid)) {
      const was = before.get(tid);
      const calls = writes - (was?.writes ?? 0);
      const systemMs = ((systemTicks - (was?.systemTicks ?? 0)) * 1000) / TICKS_PER_SECOND;
      if (calls > 0)
        spent[`${name}/${tid}`] =
          `${calls} writes, ${((written - (was?.written ?? 0)) / 1e6).toFixed(1)} MB, ${systemMs} ms system`;
    }
    return spent;
  };
}

/** Starts counting; the returned function gives ms of CPU per busy thread ("name/tid") since then. */
export function threadCpu(pid: number): () => Record<string, number> {
  const before = sample(pid);
  return () => {
    const after = sample(pid);
    const spent: Record<string, number> = {};
    for (const [tid, { name, ticks }] of after) {
      const ms = ((ticks - (before.get(tid)?.ticks ?? 0)) * 1000) / TICKS_PER_SECOND;
      if (ms > 0) spent[`${name}/${tid}`] = ms;
    }
    return spent;
  };
}
