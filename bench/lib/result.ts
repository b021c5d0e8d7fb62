import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineInfo, type MachineInfo } from './machine';
import { formatValue, round, type Summary } from './stats';

export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
export const RESULTS_DIR = join(BENCH_DIR, 'results');
export const ROOT_DIR = join(BENCH_DIR, '..');

export type Metric = Summary;

/** One condition of a target, checked against a metric's statistic. */
export interface Check {
  text: string;
  metric: string;
  stat: 'median' | 'p95' | 'p99' | 'max' | 'min';
  op: '<=' | '>=';
  value: number;
  measured: number;
  unit: string;
  met: boolean;
}

export interface BenchResult {
  name: string;
  /** What the benchmark measures, one line (the docs table's first column). */
  title: string;
  machine: MachineInfo;
  node: string;
  date: string;
  runs: number;
  /** --quick runs are for development; committed results come from full runs. */
  quick: boolean;
  metrics: Record<string, Metric>;
  baseline: { what: string; median: number; unit: string };
  /** ours / baseline (for rates: ours / baseline too, so > 1 is better for rates, < 1 for times). */
  ratio: number;
  ratioMeaning: string;
  target: { text: string; met: boolean; checks: Check[] };
  notes: string[];
  details?: Record<string, unknown>;
}

export interface CheckSpec {
  text: string;
  metric: string;
  stat: Check['stat'];
  op: Check['op'];
  value: number;
}

export function isQuick(): boolean {
  return process.env['BENCH_QUICK'] === '1' || process.argv.includes('--quick');
}

/** Runs to do: `full` normally, `quick` with --quick, BENCH_RUNS overrides both. */
export function runCount(full: number, quick: number): number {
  const forced = Number(process.env['BENCH_RUNS']);
  if (Number.isInteger(forced) && forced > 0) return forced;
  return isQuick() ? quick : full;
}

export interface ResultInput {
  name: string;
  title: string;
  runs: number;
  metrics: Record<string, Metric>;
  baseline: { what: string; median: number; unit: string };
  ratio: number;
  ratioMeaning: string;
  targetText: string;
  checks: CheckSpec[];
  notes?: string[];
  details?: Record<string, unknown>;
  /** Load average captured when the benchmark started. */
  machine?: MachineInfo;
}

export function buildResult(input: ResultInput): BenchResult {
  const checks: Check[] = input.checks.map((spec) => {
    const metric = input.metrics[spec.metric];
    if (!metric) throw new Error(`check on unknown metric ${spec.metric}`);
    const measured = metric[spec.stat];
    if (measured === undefined) throw new Error(`metric ${spec.metric} has no ${spec.stat}`);
    const met = Number.isFinite(measured) && (spec.op === '<=' ? measured <= spec.value : measured >= spec.value);
    return { ...spec, measured, unit: metric.unit, met };
  });
  return {
    name: input.name,
    title: input.title,
    machine: input.machine ?? machineInfo(),
    node: process.version,
    date: new Date().toISOString(),
    runs: input.runs,
    quick: isQuick(),
    metrics: input.metrics,
    baseline: { ...input.baseline, median: round(input.baseline.median) },
    ratio: round(input.ratio),
    ratioMeaning: input.ratioMeaning,
    target: { text: input.targetText, met: checks.every((c) => c.met), checks },
    notes: [
      ...(input.notes ?? []),
      // A profiled child runs slower and holds its samples in memory: its times and RSS are not the plain figures.
      ...(process.env['BENCH_CPU_PROF']
        ? ['BENCH_CPU_PROF was set: the web host ran under --cpu-prof (slower, and its RSS holds the samples).']
        : []),
    ],
    ...(input.details ? { details: input.details } : {}),
  };
}

export function resultFile(name: string): string {
  return join(RESULTS_DIR, `${name}.json`);
}

export function writeResult(result: BenchResult): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = resultFile(result.name);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

export function readResults(): BenchResult[] {
  let files: string[] = [];
  try {
    files = readdirSync(RESULTS_DIR).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const out: BenchResult[] = [];
  for (const file of files) {
    try {
      const parsed = JSON.parse(readFileSync(join(RESULTS_DIR, file), 'utf8')) as BenchResult;
      if (parsed && typeof parsed.name === 'string' && parsed.metrics && parsed.target) out.push(parsed);
    } catch {
      // A half-written or foreign file: left out of the table.
    }
  }
  return out;
}

/** "p95 4.1 ms (≤ 20 ms)" */
export function describeCheck(check: Check): string {
  const stat = check.stat === 'median' ? 'median' : check.stat;
  return `${stat} ${formatValue(check.measured, check.unit)} (${check.op === '<=' ? '≤' : '≥'} ${formatValue(check.value, check.unit)})`;
}

/** One console line per benchmark. */
export function summaryLine(result: BenchResult): string {
  const checks = result.target.checks.map((c) => `${c.metric} ${describeCheck(c)}${c.met ? '' : ' MISSED'}`).join('; ');
  return `${result.name}: ${checks}; baseline ${formatValue(result.baseline.median, result.baseline.unit)} (${result.baseline.what}); ratio ${result.ratio} → ${result.target.met ? 'met' : 'NOT met'}`;
}
