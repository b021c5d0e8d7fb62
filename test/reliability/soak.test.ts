// The soak benchmark: `npm run bench -- soak` knows it and gives it --expose-gc; its verdict judges
// memory, handles and the database's growth; and a half-minute run of it, for real, records what it
// measured and its verdict. A full run (30 minutes) is the benchmark's, and so is whether it passed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchArgv, BENCHMARKS, DEFAULT_BENCHMARKS, findBenchmark } from '../../bench/lib/registry';
import {
  DEFAULT_MINUTES,
  EVENTS_PER_SECOND,
  SIMULATOR_DEFAULT_EVENTS_PER_SECOND,
  type Sample,
  type SoakCounters,
  soakVerdict,
} from '../../bench/soak';

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
const counters: SoakCounters = {
  buysOk: 440,
  buysRefused: {},
  buyErrors: 0,
  reconnects: 29,
  cuts: 30,
  batches: 36_000,
  notifications: 900,
};
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
    const dry = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--dry-run', 'soak'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(dry.status).toBe(0);
    const line = dry.stdout.split('\n').find((l) => l.startsWith('soak: '));
    expect(line).toMatch(/ --expose-gc --import tsx \S*bench\/soak\.ts$/);
    const unknown = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--dry-run', 'soakk'], {
      cwd: root,
      encoding: 'utf8',
    });
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
    const samples = run((s, p) => ({
      dataBytes: (17 + 10 * p) * MIB,
      pageBytes: (20 + 16 * p) * MIB,
      dbBytes: (20 + 16 * p) * MIB,
    }));
    const verdict = soakVerdict({ samples, durationMs, counters, gcBeforeSample: true });
    expect(verdict.failures).toEqual([]);
    expect(verdict.summary.pagesPerData.last).toBeGreaterThan(verdict.summary.pagesPerData.first);
  });

  it('fails a database that grows beyond its data (space not reused)', () => {
    // The data stays the same; the file gains 12 MiB.
    const samples = run((s, p) => ({
      dataBytes: 17 * MIB,
      pageBytes: (20 + 12 * p) * MIB,
      dbBytes: (20 + 12 * p) * MIB,
    }));
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
    expect(
      soakVerdict({
        samples: run((s, p) => ({ heapUsedMiB: s.heapUsedMiB * (1 + 0.5 * p) })),
        durationMs,
        counters,
        gcBeforeSample: true,
      }).memoryFlat,
    ).toBe(false);
    expect(
      soakVerdict({
        samples: run((s, p) => ({ handles: s.handles + Math.round(20 * p) })),
        durationMs,
        counters,
        gcBeforeSample: true,
      }).handlesFlat,
    ).toBe(false);
    expect(
      soakVerdict({ samples: run(), durationMs, counters: { ...counters, buysOk: 0 }, gcBeforeSample: true }).pass,
    ).toBe(false);
    expect(
      soakVerdict({ samples: run(), durationMs, counters: { ...counters, reconnects: 10 }, gcBeforeSample: true }).pass,
    ).toBe(false);
  });

  it('gives no pass without a forced GC before each sample, or with too few samples', () => {
    const noGc = soakVerdict({ samples: run(), durationMs, counters, gcBeforeSample: false });
    expect(noGc.pass).toBe(false);
    expect(noGc.failures.join('\n')).toMatch(/without a forced GC/);
    const short = soakVerdict({
      samples: run(() => ({}), 0.3),
      durationMs: 0.3 * 60_000,
      counters,
      gcBeforeSample: true,
    });
    expect(short.pass).toBe(false);
  });
});

describe('a short soak, run for real', () => {
  // Half a minute against a 500-item sandbox: too short for the verdict to mean much, long enough for the
  // benchmark to do all it does (the sandbox in its own process, buys, forced cuts, samples after GC) and
  // record what it measured and its own verdict of it. Whether a full run passes is the benchmark's to say.
  it('measures a live session and records its verdict of what it measured', () => {
    const dir = mkdtempSync(join(tmpdir(), 'md-soak-test-'));
    const out = join(dir, 'soak.json');
    try {
      const child = spawnSync(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          'tsx',
          'bench/soak.ts',
          '--minutes',
          '0.5',
          '--sample-seconds',
          '2',
          '--buy-seconds',
          '1',
          '--reconnect-seconds',
          '8',
          '--items',
          '500',
          '--out',
          out,
        ],
        { cwd: root, encoding: 'utf8', timeout: 170_000 },
      );
      expect(existsSync(out), `no result file; the soak said:\n${child.stderr.slice(-3000)}`).toBe(true);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the result file's JSON
      const result = JSON.parse(readFileSync(out, 'utf8')) as Record<string, any>;
      const samples = result.samples as Sample[];
      expect(result.settings).toMatchObject({
        catalogItems: 500,
        marketEventsPerSecond: EVENTS_PER_SECOND,
        gcBeforeSample: true,
        sandboxInOwnProcess: true,
      });
      // Samples every 2 s over the half minute, of a real process and a real database.
      expect(samples.length).toBeGreaterThanOrEqual(8);
      expect(samples.map((sample) => sample.t)).toEqual([...samples.map((sample) => sample.t)].sort((a, b) => a - b));
      expect(samples.at(-1)?.t).toBeGreaterThanOrEqual(28);
      for (const sample of samples) {
        expect(sample.rssMiB).toBeGreaterThan(0);
        expect(sample.heapUsedMiB).toBeGreaterThan(0);
        expect(sample.handles).toBeGreaterThan(0);
        expect(sample.dbBytes).toBeGreaterThan(0);
        expect(sample.dataBytes).toBeGreaterThan(0);
      }
      // Live with the catalog synced (the simulated market lists and removes items, so the count moves around 500).
      expect(
        samples.some((sample) => sample.connection === 'connected' && Math.abs(sample.catalogItems - 500) <= 50),
      ).toBe(true);
      // It bought, and cut the connections.
      expect(result.counters.buysOk).toBeGreaterThan(0);
      expect(result.counters.cuts).toBeGreaterThanOrEqual(1);
      expect(samples.at(-1)?.buys).toBe(result.counters.buysOk);
      // Its verdict is its rule applied to what it measured, and its exit code says it.
      const verdict = soakVerdict({
        samples,
        durationMs: 0.5 * 60_000,
        counters: result.counters as SoakCounters,
        gcBeforeSample: true,
      });
      expect(result.verdict).toEqual({
        pass: verdict.pass,
        memoryFlat: verdict.memoryFlat,
        handlesFlat: verdict.handlesFlat,
        databaseFlat: verdict.databaseFlat,
        gcBeforeSample: true,
        rule: verdict.rule,
        failures: verdict.failures,
      });
      expect(child.status).toBe(verdict.pass ? 0 : 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
