/**
 * Sandbox REST throughput on one core: GET /Trades/History (default page: 50 of a
 * merchant's ~200 trades) with autocannon. The sandbox runs in a child process
 * pinned to CPU 0 (taskset); this process (autocannon) is pinned to CPU 1.
 *
 * The sandbox enforces 300 requests a minute per merchant, so the child creates
 * 2,000 merchants holding the same 200 trades (lib/rest-server-child.ts) and every
 * request carries the next merchant's credentials (autocannon setupRequest): the
 * limit is never reached. 200s and other statuses are counted apart; only 200s
 * count toward the rate. No Accept-Encoding (autocannon sends none): the JSON is
 * not compressed; a gzip pass is reported beside it.
 *
 * Baseline, same run: a bare fastify server on the same pinned core answering the
 * same path with the same bytes (a body captured from the sandbox), same load.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import autocannon, { type Result } from 'autocannon';
import { BenchChild, type ChildMessage } from './lib/child';
import { machineInfo } from './lib/machine';
import { buildResult, runCount, summaryLine, writeResult } from './lib/result';
import { median, summarize } from './lib/stats';

const RUNS = runCount(5, 2);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = 32;
const machine = machineInfo();
const log = (line: string) => console.log(`[rest-throughput] ${line}`);
const pinned = existsSync('/usr/bin/taskset');
if (pinned) spawnSync('/usr/bin/taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

type Ready = ChildMessage & { baseUrl: string; credentials?: { merchantId: string; apiKey: string }[]; tradeRows?: number };

async function load(baseUrl: string, credentials: { merchantId: string; apiKey: string }[] | null, seconds: number, gzip = false): Promise<Result> {
  let next = 0;
  return autocannon({
    url: baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        path: '/Trades/History',
        setupRequest: (request) => {
          const headers: Record<string, string> = gzip ? { 'accept-encoding': 'gzip' } : {};
          if (credentials) {
            const c = credentials[next++ % credentials.length] as { merchantId: string; apiKey: string };
            headers['x-merchant-id'] = c.merchantId;
            headers['x-api-key'] = c.apiKey;
          }
          return { ...request, headers };
        },
      },
    ],
  });
}

const ok = (r: Result) => r['2xx'] / r.duration;

const server = new BenchChild('lib/rest-server-child.ts', [], { cpus: '0', env: { BENCH_MERCHANTS: '2000' } });
const ours: Result[] = [];
let gz: Result | null = null;
let body = '';
let tradeRows = 0;
try {
  const ready = await server.next<Ready>('ready');
  tradeRows = ready.tradeRows ?? 0;
  const credentials = ready.credentials ?? [];
  const first = credentials[0] as { merchantId: string; apiKey: string };
  const sample = await fetch(`${ready.baseUrl}/Trades/History`, { headers: { 'x-merchant-id': first.merchantId, 'x-api-key': first.apiKey } });
  body = await sample.text();
  log(`sandbox ready: ${credentials.length} merchants, ${tradeRows} trades; a page is ${body.length} bytes (${(JSON.parse(body) as { trades: unknown[] }).trades.length} trades)`);
  await load(ready.baseUrl, credentials, 3); // warm-up
  for (let i = 0; i < RUNS; i++) {
    const r = await load(ready.baseUrl, credentials, SECONDS);
    ours.push(r);
    log(`run ${i + 1}/${RUNS}: ${Math.round(ok(r))} 200s/s (${r['2xx']} ok, ${r.non2xx} other, ${r.errors} errors), latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`);
  }
  gz = await load(ready.baseUrl, credentials, SECONDS, true);
  log(`with Accept-Encoding: gzip: ${Math.round(ok(gz))} 200s/s (${gz.non2xx} other)`);
} finally {
  await server.stop();
}

const bare = new BenchChild('lib/rest-server-child.ts', [], { cpus: '0', env: { BENCH_MODE: 'bare', BENCH_BODY: body } });
const baseline: Result[] = [];
try {
  const ready = await bare.next<Ready>('ready');
  await load(ready.baseUrl, null, 2);
  for (let i = 0; i < RUNS; i++) {
    const r = await load(ready.baseUrl, null, SECONDS);
    baseline.push(r);
    log(`baseline ${i + 1}/${RUNS}: ${Math.round(ok(r))} 200s/s`);
  }
} finally {
  await bare.stop();
}

const result = buildResult({
  name: 'rest-throughput',
  title: 'sandbox REST throughput on one core, GET /Trades/History (autocannon)',
  machine,
  runs: RUNS,
  metrics: {
    ok_per_sec: summarize(ours.map(ok), 'req/s'),
    latency_p99_ms: summarize(ours.map((r) => r.latency.p99), 'ms'),
    non_2xx: summarize(ours.map((r) => r.non2xx), 'responses'),
    gzip_ok_per_sec: summarize(gz ? [ok(gz)] : [], 'req/s'),
    bare_fastify_per_sec: summarize(baseline.map(ok), 'req/s'),
  },
  baseline: { what: 'bare fastify on the same core, same path, same response bytes', median: median(baseline.map(ok)), unit: 'req/s' },
  ratio: median(ours.map(ok)) / median(baseline.map(ok)),
  ratioMeaning: 'ours ÷ bare fastify',
  targetText: '≥ 5,000 req/s',
  checks: [{ text: '200s per second', metric: 'ok_per_sec', stat: 'median', op: '>=', value: 5000 }],
  notes: [
    `Sandbox pinned to CPU 0${pinned ? '' : ' (taskset missing: NOT pinned)'}, autocannon (${CONNECTIONS} connections, ${SECONDS} s per run) on CPU 1. 2,000 merchants × ~200 trades; each request uses the next merchant’s credentials, so the 300/min limit never applies (non-2xx are counted apart and excluded).`,
    `Responses are the default page (50 trades, ${body.length} bytes), uncompressed; gzip_ok_per_sec is one run with Accept-Encoding: gzip.`,
  ],
  details: { tradeRows, bodyBytes: body.length, connections: CONNECTIONS },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
