/**
 * Cold start with 500k cached items: from spawning the web host
 * (`node out/main/web.js --base-url … --data-dir …`, the built web host `npm start`
 * runs where Electron is absent)
 * to the first catalog row painted in Chromium. Wall clock of this process:
 * t0 = spawn, then the host's URL line, page.goto, the grid's first data row in
 * the DOM, and two animation frames later (painted).
 *
 * The data dir is prepared once (lib/webHost.ts prepareDataDir): the cache holds
 * the sandbox's 500k items and is fresh, so the engine does not sync at start.
 * Chromium is already running (a new context per run, nothing cached).
 *
 * Baseline, same run: the floor of "a node process up and a page painted": a
 * plain `node` HTTP server (no engine) serving a static page with a
 * 20-row table, spawned and painted the same way.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { machineInfo } from './lib/machine';
import { buildResult, runCount, summaryLine, writeResult } from './lib/result';
import { createMerchant, scratchDir, startBenchSandbox } from './lib/sandbox';
import { median, summarize } from './lib/stats';
import { ensureFreshRenderer, FIRST_ROW, launchChromium, prepareDataDir, spawnWebHost } from './lib/webHost';

const ITEMS = 500_000;
const RUNS = runCount(5, 2);
const machine = machineInfo();
const log = (line: string) => console.log(`[cold-start] ${line}`);

const STATIC_SERVER = `
const http = require('node:http');
const rows = Array.from({ length: 20 }, (_, i) => '<tr><td>Item ' + i + '</td><td>$' + i + '.00</td></tr>').join('');
const page = '<!doctype html><html><body><table role="grid"><tbody>' + rows + '</tbody></table></body></html>';
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(page); });
server.listen(0, '127.0.0.1', () => console.log('Merchant Desk web host: http://127.0.0.1:' + server.address().port + '/'));
process.on('SIGTERM', () => process.exit(0));
`;

await ensureFreshRenderer(log);
const bench = await startBenchSandbox(ITEMS);
const dataDir = scratchDir('cold');
const browser = await launchChromium();
const runs: { upMs: number; domMs: number; paintedMs: number; syncedAtStart: boolean }[] = [];
const floors: number[] = [];
try {
  const merchant = createMerchant(bench.sb, { balance: 1_000_000 });
  await prepareDataDir({ items: ITEMS, dataDir, baseUrl: bench.sb.baseUrl, wsUrl: bench.sb.wsUrl, merchant, log });

  const paint = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null))));
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const t0 = performance.now();
    const host = await spawnWebHost({ baseUrl: bench.sb.baseUrl, wsUrl: bench.sb.wsUrl, dataDir, merchant, t0 });
    try {
      await page.goto(host.url, { waitUntil: 'commit' });
      await page.waitForSelector(FIRST_ROW, { timeout: 60_000 });
      const domMs = performance.now() - t0;
      await page.evaluate(paint);
      const paintedMs = performance.now() - t0;
      const syncedAtStart = host.stderr.some((line) => line.startsWith('catalog sync ('));
      runs.push({
        upMs: Math.round(host.upMs),
        domMs: Math.round(domMs),
        paintedMs: Math.round(paintedMs),
        syncedAtStart,
      });
      log(
        `run ${i + 1}/${RUNS}: host URL ${Math.round(host.upMs)} ms, first row in DOM ${Math.round(domMs)} ms, painted ${Math.round(paintedMs)} ms${syncedAtStart ? ' (the engine synced at start!)' : ''}`,
      );
    } finally {
      await context.close();
      await host.stop();
    }

    // The floor, interleaved.
    const context2 = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page2 = await context2.newPage();
    const f0 = performance.now();
    const child = spawn(process.execPath, ['-e', STATIC_SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
          const m = /(http:\/\/\S+)/.exec(line);
          if (m?.[1]) resolve(m[1]);
        }),
      );
      await page2.goto(url, { waitUntil: 'commit' });
      await page2.waitForSelector('tr');
      await page2.evaluate(paint);
      floors.push(performance.now() - f0);
    } finally {
      await context2.close();
      child.kill('SIGTERM');
    }
  }
} finally {
  await browser.close();
  await bench.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const result = buildResult({
  name: 'cold-start',
  title: 'cold start with 500k cached items: web host spawned → first catalog row painted in Chromium',
  machine,
  runs: RUNS,
  metrics: {
    first_row_painted_s: summarize(
      runs.map((r) => r.paintedMs / 1000),
      's',
    ),
    host_url_s: summarize(
      runs.map((r) => r.upMs / 1000),
      's',
    ),
    first_row_dom_s: summarize(
      runs.map((r) => r.domMs / 1000),
      's',
    ),
    floor_s: summarize(
      floors.map((ms) => ms / 1000),
      's',
    ),
  },
  baseline: {
    what: 'floor: plain node HTTP server spawned, static 20-row table painted in the same Chromium',
    median: median(floors) / 1000,
    unit: 's',
  },
  ratio: median(runs.map((r) => r.paintedMs)) / median(floors),
  ratioMeaning: 'ours ÷ floor',
  targetText: '≤ 1.5 s',
  checks: [{ text: 'first row painted', metric: 'first_row_painted_s', stat: 'median', op: '<=', value: 1.5 }],
  notes: [
    'Measured from spawn (node out/main/web.js, the built web host npm start runs without Electron) to two animation frames after the first data row is in the DOM; Chromium already running, a fresh context per run.',
    'The cache is fresh (no sync at start); the OS page cache is warm (one unmeasured start first).',
  ],
  details: { perRun: runs, floorMs: floors.map((v) => Math.round(v)) },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
