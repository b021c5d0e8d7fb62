/**
 * CPU time per thread of a process over a span, from /proc/<pid>/task/<tid>/stat
 * (Linux only; empty elsewhere). Shows which thread a wall-clock phase waited on:
 * V8's profiles sample stacks, so a thread that was runnable but not running looks busy there.
 */
import { readdirSync, readFileSync } from 'node:fs';

type Sample = Map<string, { name: string; ticks: number }>;

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
      out.set(tid, { name, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the thread ended
    }
  }
  return out;
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
