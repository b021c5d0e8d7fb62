/**
 * Time spent in each SQL statement of a process, printed at exit (top 25 by total time):
 *
 *   node --import tsx --import ./bench/lib/statement-profile.ts bench/lib/writer-alone.ts 40
 *
 * Wraps better-sqlite3's run/get/all of every statement prepared after it loads (a profiling aid:
 * a CPU profile shows the time inside SQLite as one anonymous frame per caller).
 */
import Database from 'better-sqlite3';

type Method = (...args: unknown[]) => unknown;
const times = new Map<string, { ms: number; calls: number }>();
const proto = (Database as unknown as { prototype: { prepare(sql: string): Record<string, Method> } }).prototype;
const prepare = proto.prepare;
proto.prepare = function (this: unknown, sql: string) {
  const statement = prepare.call(this, sql);
  for (const name of ['run', 'get', 'all']) {
    const method = statement[name] as Method;
    statement[name] = function (this: unknown, ...args: unknown[]) {
      const started = performance.now();
      try {
        return method.apply(this, args);
      } finally {
        const entry = times.get(sql) ?? { ms: 0, calls: 0 };
        entry.ms += performance.now() - started;
        entry.calls++;
        times.set(sql, entry);
      }
    };
  }
  return statement;
};

process.on('exit', () => {
  const rows = [...times].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25);
  for (const [sql, { ms, calls }] of rows) {
    console.log(
      `${ms.toFixed(0).padStart(7)} ms ${String(calls).padStart(8)} × ${((ms * 1000) / calls).toFixed(1).padStart(8)} µs  ${sql.replace(/\s+/g, ' ').slice(0, 150)}`,
    );
  }
});
