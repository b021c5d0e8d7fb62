// The soak benchmark's plumbing and the committed result, without running it (it takes 30 minutes):
// `npm run bench -- soak` knows it and gives it --expose-gc; its verdict judges memory, handles and the
// database's growth; and bench/results/soak.json is a full run at the required settings that passed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchArgv, BENCHMARKS, DEFAULT_BENCHMARKS, findBenchmark } from '../../bench/lib/registry';
import { DEFAULT_MINUTES, EVENTS_PER_SECOND, SIMULATOR_DEFAULT_EVENTS_PER_SECOND, type Sample, type SoakCounters, soakVerdict } from '../../bench/soak';

const root = resolve(import.meta.dirname, '../..');
const MIB = 1024 * 1024;

/** A steady, healthy run: 30 minutes of samples every 10 s; `vary` bends one field over time (0 → 1). */
function run(vary: (sample: Sample, progress: number) => Partial<Sample> = () => ({}), minutes = 30): Sample[] {
  const samples: Sample[] = [];
  const count = (minutes * 60) / 10;
  for (let i = 0; i <= count; i++) {
    const progress = i / count;
    const base: Sample = {
      t: i * 10,
      rssMiB: 230 + 5 * Math.sin(i),
      heapUsedMiB: 15 + 0.3 * Math.sin(i / 3),
      heapTotalMiB: 32,
      externalMiB: 4,
      arrayBuffersMiB: 0.2,
      handles: 15 + (i % 3),
      handleTypes: { Timeout: 9, TCPSocketWrap: 4 },
      dbBytes: (20 + 6 * progress) * MIB,
      walBytes: 20 * MIB,
      pageBytes: (20 + 6 * progress) * MIB,
      dataBytes: (17 + 6 * progress) * MIB,
      freeBytes: 0.5 * MIB,
      rows: 1000 + Math.round(90_000 * progress),
      connection: 'connected',
      activeTrades: 3,
      catalogItems: 20_000,
      buys: Math.round(450 * progress),
      reconnects: Math.floor(30 * progress),
      batches: i * 200,
    };
    samples.push({ ...base, ...vary(base, progress) });
  }
  return samples;
}
const counters: SoakCounters = { buysOk: 440, buysRefused: {}, buyErrors: 0, reconnects: 29, cuts: 30, batches: 36_000, notifications: 900 };
const durationMs = 30 * 60_000;

describe('npm run bench -- soak', () => {
  it('is a registered benchmark, run only when named, with --expose-gc for its after-GC samples', () => {
    const soak = findBenchmark('soak');
    expect(soak).toBeDefined();
    expect(soak?.file).toBe('soak.ts');
    expect(soak?.nodeArgs).toContain('--expose-gc');
    expect(DEFAULT_BENCHMARKS.map((b) => b.name)).not.toContain('soak');
    expect(BENCHMARKS.filter((b) => b.name !== 'soak').every((b) => DEFAULT_BENCHMARKS.includes(b))).toBe(true);
    if (!soak) throw new Error('no soak benchmark');
    expect(benchArgv(soak, '/x/bench', false)).toEqual(['--expose-gc', '--import', 'tsx', '/x/bench/soak.ts']);
  });

  it('the runner spawns it with --expose-gc (dry run) and accepts the name', () => {
    const dry = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--dry-run', 'soak'], { cwd: root, encoding: 'utf8' });
    expect(dry.status).toBe(0);
    const line = dry.stdout.split('\n').find((l) => l.startsWith('soak: '));
    expect(line).toMatch(/ --expose-gc --import tsx \S*bench\/soak\.ts$/);
    const unknown = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--dry-run', 'soakk'], { cwd: root, encoding: 'utf8' });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown benchmark');
  }, 60_000);

  it('defaults to 30 minutes at ten times the simulator default rate (the rate of src/server/cli.ts)', () => {
    expect(DEFAULT_MINUTES).toBe(30);
    const cli = readFileSync(join(root, 'src/server/cli.ts'), 'utf8');
    expect(cli).toMatch(new RegExp(`--events-per-sec N .*\\(default ${SIMULATOR_DEFAULT_EVENTS_PER_SECOND}\\)`));
    expect(EVENTS_PER_SECOND).toBe(10 * SIMULATOR_DEFAULT_EVENTS_PER_SECOND);
  });
});

describe('the soak verdict', () => {
  it('passes a flat run whose database grows by its data', () => {
    const verdict = soakVerdict({ samples: run(), durationMs, counters, gcBeforeSample: true });
    expect(verdict.failures).toEqual([]);
    expect(verdict.pass).toBe(true);
    expect(verdict.databaseFlat).toBe(true);
  });

  it('passes a database whose pages fill less as random-order indexes take a bigger share (up to 2 bytes per byte of data)', () => {
    // Data +10 MiB, pages +16 MiB: what the 30-minute run measured (price history in a random-order index).
    const samples = run((s, p) => ({ dataBytes: (17 + 10 * p) * MIB, pageBytes: (20 + 16 * p) * MIB, dbBytes: (20 + 16 * p) * MIB }));
    const verdict = soakVerdict({ samples, durationMs, counters, gcBeforeSample: true });
    expect(verdict.failures).toEqual([]);
    expect(verdict.summary.pagesPerData.last).toBeGreaterThan(verdict.summary.pagesPerData.first);
  });

  it('fails a database that grows beyond its data (space not reused)', () => {
    // The data stays the same; the file gains 12 MiB.
    const samples = run((s, p) => ({ dataBytes: 17 * MIB, pageBytes: (20 + 12 * p) * MIB, dbBytes: (20 + 12 * p) * MIB }));
    const verdict = soakVerdict({ samples, durationMs, counters, gcBeforeSample: true });
    expect(verdict.databaseFlat).toBe(false);
    expect(verdict.pass).toBe(false);
    expect(verdict.failures.join('\n')).toMatch(/grows beyond its data/);
    // Pages growing more than twice as fast as the data: also bloat.
    const fast = run((s, p) => ({ dataBytes: (17 + 4 * p) * MIB, pageBytes: (20 + 20 * p) * MIB }));
    expect(soakVerdict({ samples: fast, durationMs, counters, gcBeforeSample: true }).databaseFlat).toBe(false);
  });

  it('fails growing free pages', () => {
    const samples = run((s, p) => ({ freeBytes: s.freeBytes + 10 * MIB * p }));
    const verdict = soakVerdict({ samples, durationMs, counters, gcBeforeSample: true });
    expect(verdict.databaseFlat).toBe(false);
    expect(verdict.failures.join('\n')).toMatch(/free pages .* not reused/);
  });

  it('fails a WAL that keeps growing (no checkpoints)', () => {
    const samples = run((s, p) => ({ walBytes: s.walBytes + 40 * MIB * p }));
    const verdict = soakVerdict({ samples, durationMs, counters, gcBeforeSample: true });
    expect(verdict.databaseFlat).toBe(false);
    expect(verdict.failures.join('\n')).toMatch(/WAL .* checkpoints/);
  });

  it('fails a growing heap, growing handles, no buys, missing reconnects', () => {
    expect(soakVerdict({ samples: run((s, p) => ({ heapUsedMiB: s.heapUsedMiB * (1 + 0.5 * p) })), durationMs, counters, gcBeforeSample: true }).memoryFlat).toBe(false);
    expect(soakVerdict({ samples: run((s, p) => ({ handles: s.handles + Math.round(20 * p) })), durationMs, counters, gcBeforeSample: true }).handlesFlat).toBe(false);
    expect(soakVerdict({ samples: run(), durationMs, counters: { ...counters, buysOk: 0 }, gcBeforeSample: true }).pass).toBe(false);
    expect(soakVerdict({ samples: run(), durationMs, counters: { ...counters, reconnects: 10 }, gcBeforeSample: true }).pass).toBe(false);
  });

  it('gives no pass without a forced GC before each sample, or with too few samples', () => {
    const noGc = soakVerdict({ samples: run(), durationMs, counters, gcBeforeSample: false });
    expect(noGc.pass).toBe(false);
    expect(noGc.failures.join('\n')).toMatch(/without a forced GC/);
    const short = soakVerdict({ samples: run(() => ({}), 0.3), durationMs: 0.3 * 60_000, counters, gcBeforeSample: true });
    expect(short.pass).toBe(false);
  });
});

describe('bench/results/soak.json (the committed run)', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the result file's JSON
  const result = JSON.parse(readFileSync(join(root, 'bench/results/soak.json'), 'utf8')) as Record<string, any>;

  it('is a full run: 30 minutes, 10× the default market rate, buys and forced reconnects, samples after GC', () => {
    expect(result.durationMinutes).toBeGreaterThanOrEqual(30);
    expect(result.settings.marketEventsPerSecond).toBe(EVENTS_PER_SECOND);
    expect(result.settings.gcBeforeSample).toBe(true);
    expect(result.counters.buysOk).toBeGreaterThan(100);
    expect(result.counters.cuts).toBeGreaterThanOrEqual(29);
    expect(result.counters.reconnects).toBeGreaterThanOrEqual(result.counters.cuts - 1);
    const last = result.samples.at(-1) as Sample;
    expect(last.t).toBeGreaterThanOrEqual(30 * 60 - 15);
    expect(typeof last.dataBytes).toBe('number');
  });

  it('passed, and its verdict is what the current rule says of its samples', () => {
    expect(result.verdict.pass).toBe(true);
    // The database grew by its data: no free pages, WAL flat, pages at most twice the data's growth.
    expect(result.summary.freeMiB.last).toBeLessThanOrEqual(result.summary.freeMiB.budget);
    expect(result.summary.pagesMiB.last).toBeLessThanOrEqual(result.summary.pagesMiB.budget);
    const again = soakVerdict({ samples: result.samples as Sample[], durationMs: result.durationMinutes * 60_000, counters: result.counters as SoakCounters, gcBeforeSample: result.settings.gcBeforeSample });
    expect(again.failures).toEqual([]);
    expect(again.databaseFlat).toBe(true);
    expect(result.verdict.rule).toBe(again.rule);
  });
});
