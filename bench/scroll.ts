/**
 * The catalog grid scrolled end to end in Chromium with 500k rows: frames are
 * timed with requestAnimationFrame in the page; fps = frames per 1-second window,
 * median over the windows. Two passes per run:
 *  - end to end: the scrollbar dragged from top to bottom in 10 s (scrollTop set
 *    every frame: ~50,000 rows per second go by, rows load behind it);
 *  - wheel: 6 s of mouse-wheel scrolling through Playwright (CDP input events,
 *    ~3 rows per wheel notch), where rows do load and render.
 * The renderer's JS heap (performance.memory.usedJSHeapSize, precise) is sampled
 * every 250 ms: it pages rows from the cache and must never hold the catalog.
 *
 * Baseline, same run, same browser: a minimal hand-written virtual list (500k
 * rows, same row height and columns, plain DOM, no framework, no data fetching)
 * scrolled the same way.
 */
import { rmSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { machineInfo } from './lib/machine';
import { buildResult, runCount, summaryLine, writeResult } from './lib/result';
import { createMerchant, scratchDir, startBenchSandbox } from './lib/sandbox';
import { max, median, summarize } from './lib/stats';
import { ensureFreshRenderer, FIRST_ROW, launchChromium, prepareDataDir, spawnWebHost } from './lib/webHost';

const ITEMS = 500_000;
const RUNS = runCount(5, 2);
const DRAG_MS = 10_000;
const WHEEL_MS = 6_000;
const machine = machineInfo();
const log = (line: string) => console.log(`[scroll] ${line}`);

interface PassResult {
  fpsWindows: number[];
  frames: number;
  longFrames: number;
  heapMaxMB: number;
  reachedEnd: boolean;
}

/** Installs the frame and heap recorder in the page. */
async function startRecording(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __bench: { frames: number[]; heap: number[]; stop: boolean } };
    w.__bench = { frames: [], heap: [], stop: false };
    const tick = (t: number) => {
      w.__bench.frames.push(t);
      if (!w.__bench.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const sample = () => {
      const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
      if (memory) w.__bench.heap.push(memory.usedJSHeapSize);
      if (!w.__bench.stop) setTimeout(sample, 250);
    };
    sample();
  });
}

async function stopRecording(page: Page, reachedEnd: boolean): Promise<PassResult> {
  const { frames, heap } = await page.evaluate(() => {
    const w = window as unknown as { __bench: { frames: number[]; heap: number[]; stop: boolean } };
    w.__bench.stop = true;
    return { frames: w.__bench.frames, heap: w.__bench.heap };
  });
  const fpsWindows: number[] = [];
  const first = frames[0] ?? 0;
  const last = frames[frames.length - 1] ?? 0;
  for (let start = first; start + 1000 <= last; start += 1000)
    fpsWindows.push(frames.filter((t) => t >= start && t < start + 1000).length);
  let longFrames = 0;
  for (let i = 1; i < frames.length; i++) if ((frames[i] as number) - (frames[i - 1] as number) > 34) longFrames++;
  return { fpsWindows, frames: frames.length, longFrames, heapMaxMB: max(heap) / 1024 / 1024, reachedEnd };
}

/** Drags the scroll position from top to bottom of `selector` over `ms`. */
async function dragPass(page: Page, selector: string): Promise<PassResult> {
  await page.evaluate((sel) => {
    const el = document.querySelector(sel) as HTMLElement;
    el.scrollTop = 0;
  }, selector);
  await page.waitForTimeout(300);
  await startRecording(page);
  const reachedEnd = await page.evaluate(
    ({ sel, ms }) =>
      new Promise<boolean>((resolve) => {
        const el = document.querySelector(sel) as HTMLElement;
        const range = el.scrollHeight - el.clientHeight;
        const start = performance.now();
        const step = (t: number) => {
          const fraction = Math.min(1, (t - start) / ms);
          el.scrollTop = fraction * range;
          if (fraction < 1) requestAnimationFrame(step);
          else setTimeout(() => resolve(el.scrollTop >= range - 2), 200);
        };
        requestAnimationFrame(step);
      }),
    { sel: selector, ms: DRAG_MS },
  );
  return stopRecording(page, reachedEnd);
}

/** Mouse-wheel scrolling over the grid for `ms`. */
async function wheelPass(page: Page, selector: string): Promise<PassResult> {
  const box = await page.locator(selector).boundingBox();
  if (!box) throw new Error(`no ${selector}`);
  await page.evaluate((sel) => {
    (document.querySelector(sel) as HTMLElement).scrollTop = 0;
  }, selector);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.waitForTimeout(300);
  await startRecording(page);
  const until = Date.now() + WHEEL_MS;
  while (Date.now() < until) {
    await page.mouse.wheel(0, 100);
    await page.waitForTimeout(8);
  }
  await page.waitForTimeout(200);
  return stopRecording(page, true);
}

/** tsx (esbuild keepNames) wraps named functions in __name(); functions passed to page.evaluate need it too. */
const KEEP_NAMES_SHIM = 'window.__name = (fn) => fn;';

const BASELINE_PAGE = `<!doctype html><html><head><style>
body { margin: 0; font: 13px system-ui, sans-serif; }
#scroll { height: 760px; overflow: auto; contain: strict; position: relative; }
.row { position: absolute; left: 0; right: 0; height: 36px; display: grid; grid-template-columns: 58px 2.6fr 0.6fr 86px 56px 1fr 0.7fr 102px 52px; align-items: center; border-bottom: 1px solid #ddd; }
</style></head><body><div id="scroll"><div id="body" style="position:relative"></div></div><script>
const total = ${ITEMS}, rowHeight = 36, cap = 15000000;
const real = total * rowHeight, virt = Math.min(real, cap);
const scroll = document.getElementById('scroll'), body = document.getElementById('body');
body.style.height = virt + 'px';
const pool = [];
function render() {
  const vh = scroll.clientHeight, ratio = (real - vh) / (virt - vh);
  const realTop = scroll.scrollTop * ratio, first = Math.floor(realTop / rowHeight), count = Math.ceil(vh / rowHeight) + 20;
  for (let i = 0; i < count; i++) {
    const index = Math.min(total - 1, Math.max(0, first - 10 + i));
    let el = pool[i];
    if (!el) { el = document.createElement('div'); el.className = 'row'; body.appendChild(el); pool[i] = el; }
    el.style.top = (index * rowHeight - realTop + scroll.scrollTop) + 'px';
    el.innerHTML = '<div>●</div><div>Item ' + index + ' | Skin (Field-Tested)</div><div>—</div><div>0.' + (index % 1000) + '</div><div>' + (index % 1000) + '</div><div>—</div><div>—</div><div>$' + (index % 10000) / 100 + '</div><div>3h</div>';
  }
}
scroll.addEventListener('scroll', render);
render();
</script></body></html>`;

await ensureFreshRenderer(log);
const bench = await startBenchSandbox(ITEMS);
const dataDir = scratchDir('scroll');
const browser = await launchChromium();
const ours: { drag: PassResult; wheel: PassResult }[] = [];
const base: { drag: PassResult; wheel: PassResult }[] = [];
try {
  const merchant = createMerchant(bench.sb, { balance: 1_000_000 });
  await prepareDataDir({ items: ITEMS, dataDir, baseUrl: bench.sb.baseUrl, wsUrl: bench.sb.wsUrl, merchant, log });
  const host = await spawnWebHost({ baseUrl: bench.sb.baseUrl, wsUrl: bench.sb.wsUrl, dataDir, merchant });
  try {
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript(KEEP_NAMES_SHIM);
      const page = await context.newPage();
      await page.goto(host.url);
      await page.waitForSelector(FIRST_ROW, { timeout: 60_000 });
      await page.waitForTimeout(500);
      const drag = await dragPass(page, '.grid-scroll');
      const wheel = await wheelPass(page, '.grid-scroll');
      const heapNowMB = await page.evaluate(
        () => (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize / 1024 / 1024,
      );
      ours.push({ drag, wheel });
      await context.close();

      const context2 = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context2.addInitScript(KEEP_NAMES_SHIM);
      const page2 = await context2.newPage();
      await page2.setContent(BASELINE_PAGE);
      const drag2 = await dragPass(page2, '#scroll');
      const wheel2 = await wheelPass(page2, '#scroll');
      base.push({ drag: drag2, wheel: wheel2 });
      await context2.close();
      log(
        `run ${i + 1}/${RUNS}: end-to-end ${median(drag.fpsWindows)} fps median (min ${Math.min(...drag.fpsWindows)}, ${drag.longFrames} frames > 34 ms, reached end ${drag.reachedEnd}), ` +
          `wheel ${median(wheel.fpsWindows)} fps (min ${Math.min(...wheel.fpsWindows)}, ${wheel.longFrames} long); heap max ${Math.round(Math.max(drag.heapMaxMB, wheel.heapMaxMB))} MB, after ${Math.round(heapNowMB)} MB ` +
          `| baseline ${median(drag2.fpsWindows)} / ${median(wheel2.fpsWindows)} fps`,
      );
    }
  } finally {
    await host.stop();
  }
} finally {
  await browser.close();
  await bench.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const dragFps = ours.map((r) => median(r.drag.fpsWindows));
const wheelFps = ours.map((r) => median(r.wheel.fpsWindows));
const baseDrag = base.map((r) => median(r.drag.fpsWindows));
const result = buildResult({
  name: 'scroll',
  title: 'catalog grid scrolled end to end in Chromium, 500k rows',
  machine,
  runs: RUNS,
  metrics: {
    end_to_end_fps: summarize(dragFps, 'fps'),
    wheel_fps: summarize(wheelFps, 'fps'),
    heap_mb: summarize(
      ours.map((r) => Math.max(r.drag.heapMaxMB, r.wheel.heapMaxMB)),
      'MB',
    ),
    long_frames_end_to_end: summarize(
      ours.map((r) => r.drag.longFrames),
      'frames',
    ),
    baseline_end_to_end_fps: summarize(baseDrag, 'fps'),
    baseline_wheel_fps: summarize(
      base.map((r) => median(r.wheel.fpsWindows)),
      'fps',
    ),
  },
  baseline: {
    what: 'minimal hand-written virtual list (plain DOM, 500k rows), same scroll, same browser',
    median: median(baseDrag),
    unit: 'fps',
  },
  ratio: median(dragFps) / median(baseDrag),
  ratioMeaning: 'end-to-end fps, ours ÷ minimal list',
  targetText: '≥ 55 fps median; renderer JS heap ≤ 150 MB',
  checks: [
    { text: 'end to end', metric: 'end_to_end_fps', stat: 'median', op: '>=', value: 55 },
    { text: 'wheel', metric: 'wheel_fps', stat: 'median', op: '>=', value: 55 },
    { text: 'heap', metric: 'heap_mb', stat: 'max', op: '<=', value: 150 },
  ],
  notes: [
    `End to end: scrollTop moved every animation frame from top to bottom over ${DRAG_MS / 1000} s; wheel: ${WHEEL_MS / 1000} s of page.mouse.wheel(0, 100) every ~8 ms. fps = rAF callbacks per 1 s window, median of windows; the metric is the median over runs.`,
    'Headless Chromium (Debian, --disable-gpu), 1280×800; the web host and sandbox run on the same 2 cores.',
  ],
  details: {
    perRun: ours.map((r, i) => ({
      dragFpsWindows: r.drag.fpsWindows,
      wheelFpsWindows: r.wheel.fpsWindows,
      dragLongFrames: r.drag.longFrames,
      wheelLongFrames: r.wheel.longFrames,
      heapMaxMB: Math.round(Math.max(r.drag.heapMaxMB, r.wheel.heapMaxMB)),
      baselineDragFps: median(base[i]?.drag.fpsWindows ?? []),
      baselineWheelFps: median(base[i]?.wheel.fpsWindows ?? []),
    })),
  },
});
log(`wrote ${writeResult(result)}`);
console.log(summaryLine(result));
