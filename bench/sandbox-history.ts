/**
 * The sandbox answering `GET /Trades/History?isActive=true` (every trade of the last 14 days, unpaged) for a busy
 * merchant: 140,000 trades (14 days at 10,000 a day) and 500,000. The sandbox runs in a child process
 * (lib/sandbox-history-child.ts); this process reads the answer (gzipped, as the app asks, then plain) and counts
 * its bytes without keeping them, while it sends a cheap request (`GET /Wallet/GetBalance`, one after another,
 * 20 ms apart) and samples the child's RSS every 20 ms.
 *
 * Per size: time to the first byte and to the last, the child's peak RSS over its idle RSS, and the cheap
 * requests' latency meanwhile. Baseline, same run and same child, last (it leaves memory behind): the answer built
 * the way the sandbox did before it was streamed (the whole JSON, then gzip, in one synchronous call), with the
 * same cheap requests waiting on it.
 *
 * Also the paged answer (limit 500, as a back-fill asks), built in the child: the first page, the last page
 * asked at once (OFFSET) and the last page right after the one before it (by key).
 *
 * BENCH_HISTORY_SIZES=20000,140000 overrides the sizes. One run per size (each takes tens of seconds and
 * hundreds of MB of JSON).
 */
import { get as httpGet, Agent } from 'node:http';
import { BenchChild, type ChildMessage } from './lib/child';
import { machineInfo } from './lib/machine';
import { buildResult, summaryLine, writeResult, type Metric } from './lib/result';
import { procStatusMB, sampleRss } from './lib/rss';
import { percentile, round, summarize } from './lib/stats';

const machine = machineInfo();
const log = (line: string) => console.log(`[sandbox-history] ${line}`);
const SIZES = (process.env['BENCH_HISTORY_SIZES'] ?? '140000,500000').split(',').map(Number);
const PING_GAP_MS = 20;

interface Credentials {
  merchantId: string;
  apiKey: string;
}
type Ready = ChildMessage & { baseUrl: string; merchant: Credentials; pingers: Credentials[]; insertSeconds: number };

const agent = new Agent({ keepAlive: true });
const headersOf = (who: Credentials, extra: Record<string, string> = {}) => ({
  'x-merchant-id': who.merchantId,
  'x-api-key': who.apiKey,
  ...extra,
});

/** One GET read to its end without keeping the body: status, bytes, ms to the first body byte and to the end. */
function timedGet(
  url: string,
  headers: Record<string, string>,
  reuse = true,
): Promise<{ status: number; bytes: number; firstByteMs: number; totalMs: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    httpGet(url, { headers, ...(reuse ? { agent } : {}) }, (res) => {
      let bytes = 0;
      let firstByteMs = Number.NaN;
      res.on('data', (chunk: Buffer) => {
        if (bytes === 0) firstByteMs = performance.now() - started;
        bytes += chunk.length;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, bytes, firstByteMs, totalMs: performance.now() - started }),
      );
      res.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * Cheap requests one after another until `stop()`, which gives their latencies (ms) and the failures: a refused
 * or reset request (408 after the sandbox's 10 s header time-out, as when its event loop was blocked that long).
 */
function pingLoop(
  baseUrl: string,
  pingers: Credentials[],
): { stop(): Promise<{ latencies: number[]; failed: string[] }> } {
  const latencies: number[] = [];
  const failed: string[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const who = pingers[i % pingers.length] as Credentials;
      const started = performance.now();
      try {
        const answer = await timedGet(`${baseUrl}/Wallet/GetBalance`, headersOf(who));
        if (answer.status === 200) latencies.push(answer.totalMs);
        else failed.push(`${answer.status} after ${Math.round(answer.totalMs)} ms`);
      } catch (error) {
        failed.push(`${(error as Error).message} after ${Math.round(performance.now() - started)} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, PING_GAP_MS));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { latencies, failed };
    },
  };
}

interface Measured {
  firstByteMs: number;
  totalSeconds: number;
  bytes: number;
  peakRssMB: number;
  pingsMs: number[];
  pingsFailed: string[];
}

async function measureStream(child: BenchChild, ready: Ready, gzip: boolean): Promise<Measured> {
  const rss = sampleRss(child.pid, 20);
  const pings = pingLoop(ready.baseUrl, ready.pingers);
  const answer = await timedGet(
    `${ready.baseUrl}/Trades/History?isActive=true`,
    headersOf(ready.merchant, gzip ? { 'accept-encoding': 'gzip' } : {}),
    false,
  );
  const { latencies: pingsMs, failed: pingsFailed } = await pings.stop();
  if (answer.status !== 200) throw new Error(`Trades/History answered ${answer.status}`);
  return {
    pingsFailed,
    firstByteMs: answer.firstByteMs,
    totalSeconds: answer.totalMs / 1000,
    bytes: answer.bytes,
    peakRssMB: rss.stop().peakMB,
    pingsMs,
  };
}

async function measureBaseline(
  child: BenchChild,
  ready: Ready,
): Promise<{ blockedSeconds: number; gzipBytes: number; peakRssMB: number; pingsMs: number[]; pingsFailed: string[] }> {
  const rss = sampleRss(child.pid, 20);
  const pings = pingLoop(ready.baseUrl, ready.pingers);
  // Let a ping or two through first, so one is surely waiting while the answer is built.
  await new Promise((resolve) => setTimeout(resolve, 100));
  child.send({ type: 'baseline' });
  const done = await child.next<ChildMessage & { blockedMs: number; gzipBytes: number }>('baseline-done');
  const { latencies: pingsMs, failed: pingsFailed } = await pings.stop();
  return {
    blockedSeconds: done.blockedMs / 1000,
    gzipBytes: done.gzipBytes,
    peakRssMB: rss.stop().peakMB,
    pingsMs,
    pingsFailed,
  };
}

const one = (value: number, unit: string): Metric => summarize([value], unit);
const metrics: Record<string, Metric> = {};
const details: Record<string, unknown> = {};
for (const size of SIZES) {
  const label = size >= 1000 ? `${Math.round(size / 1000)}k` : String(size);
  log(`${size.toLocaleString('en-US')} trades: seeding the child's sandbox...`);
  const child = new BenchChild('lib/sandbox-history-child.ts', [], {
    env: { BENCH_TRADES: String(size) },
    timeoutMs: 15 * 60_000,
  });
  try {
    const ready = await child.next<Ready>('ready');
    const idleMB = procStatusMB('VmRSS', child.pid) ?? Number.NaN;
    log('streamed, gzipped...');
    const zipped = await measureStream(child, ready, true);
    log('streamed, plain...');
    const plain = await measureStream(child, ready, false);
    child.send({ type: 'paging' });
    const paged = await child.next<ChildMessage & Record<string, number>>('paging-done');
    log('baseline: built whole...');
    const baseline = await measureBaseline(child, ready);
    metrics[`first_byte_ms_${label}`] = one(zipped.firstByteMs, 'ms');
    metrics[`total_s_${label}`] = one(zipped.totalSeconds, 's');
    metrics[`rss_growth_mb_${label}`] = one(Math.max(zipped.peakRssMB, plain.peakRssMB) - idleMB, 'MB');
    metrics[`ping_ms_${label}`] = summarize([...zipped.pingsMs, ...plain.pingsMs], 'ms', { p99: true });
    metrics[`plain_total_s_${label}`] = one(plain.totalSeconds, 's');
    metrics[`page_first_ms_${label}`] = one(paged['firstPageMs'] as number, 'ms');
    metrics[`page_last_jump_ms_${label}`] = one(paged['lastPageJumpMs'] as number, 'ms');
    metrics[`page_last_next_ms_${label}`] = one(paged['lastPageNextMs'] as number, 'ms');
    metrics[`baseline_blocked_s_${label}`] = one(baseline.blockedSeconds, 's');
    metrics[`ping_failed_${label}`] = one(zipped.pingsFailed.length + plain.pingsFailed.length, 'requests');
    // A failed request waited at least as long as the answer was built.
    metrics[`baseline_ping_max_ms_${label}`] = one(
      Math.max(...baseline.pingsMs, ...(baseline.pingsFailed.length > 0 ? [baseline.blockedSeconds * 1000] : [])),
      'ms',
    );
    metrics[`baseline_ping_failed_${label}`] = one(baseline.pingsFailed.length, 'requests');
    metrics[`baseline_rss_growth_mb_${label}`] = one(baseline.peakRssMB - idleMB, 'MB');
    details[label] = {
      trades: size,
      seedSeconds: round(ready.insertSeconds),
      idleRssMB: round(idleMB),
      gzip: { ...zipped, pingsMs: undefined, pings: zipped.pingsMs.length },
      plain: { ...plain, pingsMs: undefined, pings: plain.pingsMs.length },
      baseline: { ...baseline, pingsMs: undefined, pings: baseline.pingsMs.length },
      pingP99Ms: round(percentile([...zipped.pingsMs, ...plain.pingsMs], 99)),
    };
    log(JSON.stringify(details[label]));
  } finally {
    await child.stop();
  }
}

const largest = SIZES.length > 0 ? `${Math.round(Math.max(...SIZES) / 1000)}k` : '';
const result = buildResult({
  name: 'sandbox-history',
  title: 'sandbox GET /Trades/History?isActive=true for a busy merchant (streamed), while cheap requests go on',
  machine,
  runs: 1,
  metrics,
  baseline: {
    what: 'the same answer built whole (JSON, then gzip) in one synchronous call, as before it was streamed: the event loop blocked that long',
    median: metrics[`baseline_blocked_s_${largest}`]?.median ?? Number.NaN,
    unit: 's',
  },
  ratio: (metrics[`ping_ms_${largest}`]?.max ?? Number.NaN) / (metrics[`baseline_ping_max_ms_${largest}`]?.max ?? 1),
  ratioMeaning: `slowest cheap request while the ${largest} answer is written ÷ the same with the answer built whole`,
  targetText: `${largest}: cheap requests answered within 250 ms meanwhile; RSS grows ≤ 200 MB (not with the rows)`,
  checks: [
    { text: 'slowest cheap request', metric: `ping_ms_${largest}`, stat: 'max', op: '<=', value: 250 },
    { text: 'failed cheap requests', metric: `ping_failed_${largest}`, stat: 'max', op: '<=', value: 0 },
    { text: 'RSS growth', metric: `rss_growth_mb_${largest}`, stat: 'max', op: '<=', value: 200 },
  ],
  notes: [
    `Trades written straight into the sandbox database (test/support/historyRows.ts): realistic wire JSON (~${details[largest] ? Math.round(((details[largest] as { plain: Measured }).plain.bytes / Math.max(...SIZES)) * 10) / 10 : '?'} bytes a trade), mostly COMPLETED, some in protection (stage 1), each size in a fresh child.`,
    'page_*: a paged answer (limit 500) built in the sandbox process: the first page of a new question (count, then page), the last page asked at once (OFFSET over every row before it), the last page right after the one before it (by key from where that one ended, count remembered).',
    `Cheap requests: GET /Wallet/GetBalance one after another, ${PING_GAP_MS} ms apart, rotating 8 merchants (300 requests a minute each), during the gzipped and the plain answer. RSS: the child's VmRSS sampled every 20 ms, peak minus its idle RSS after seeding.`,
  ],
  details,
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
