/**
 * The export as a page starts it: through a bridge socket of the page's own (the renderer's token), `trades.exportCsv`
 * called and timed until the `exports` event that says it ended, cheap calls made meanwhile if asked.
 */
import type { Browser, Page } from '@playwright/test';
import { TOKEN_STORAGE_KEY } from '../../src/renderer/src/platform/webBridge';
import { FIRST_ROW } from './webHost';

/** The renderer on `url`, past its start-up (catalog sync, the first reconcile): an export as a user starts one. */
export async function openExportPage(browser: Browser, url: string): Promise<Page> {
  const context = await browser.newContext();
  // tsx (esbuild keepNames) wraps named functions in __name(); the function passed to page.evaluate needs it too.
  await context.addInitScript('window.__name = (fn) => fn;');
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector(FIRST_ROW, { timeout: 180_000 });
  await page.waitForTimeout(3000);
  return page;
}

/** `reps` exports one after another through a bridge socket of the page's own; cheap queries meanwhile if `withCalls`. */
export function exportsInPage(page: Page, reps: number, withCalls: boolean, idleCount: number) {
  return page.evaluate(
    async ({ reps, withCalls, idleCount, tokenKey }) => {
      const token = localStorage.getItem(tokenKey);
      if (!token) throw new Error('the page holds no bridge token');
      const ws = new WebSocket(`ws://${location.host}/bridge`, [
        'merchant-desk.bridge',
        `merchant-desk.token.${token}`,
      ]);
      type Status = { id: string; state: string; done: number; filename: string };
      const results: ((value: { ok: boolean; value?: unknown; error?: unknown }) => void)[] = [];
      const ended = new Map<string, { at: number; status: Status }>();
      let welcome: (() => void) | null = null;
      let largestFrame = 0;
      let progressEvents = 0;
      ws.onmessage = (event: MessageEvent) => {
        const text = String(event.data);
        largestFrame = Math.max(largestFrame, text.length);
        const message = JSON.parse(text) as {
          type: string;
          envelope?: { ok: boolean; value?: unknown; error?: unknown };
          batch?: { exports?: Status[] };
        };
        if (message.type === 'welcome') welcome?.();
        else if (message.type === 'result' && message.envelope) results.shift()?.(message.envelope);
        else if (message.type === 'events' && message.batch?.exports) {
          progressEvents += 1;
          for (const status of message.batch.exports)
            if (status.state !== 'running' && !ended.has(status.id))
              ended.set(status.id, { at: performance.now(), status });
        }
      };
      await new Promise<void>((resolve, reject) => {
        welcome = resolve;
        ws.onerror = () => reject(new Error('the bridge socket failed'));
      });
      let id = 0;
      const call = async (method: string, input: unknown): Promise<unknown> => {
        const answered = new Promise<{ ok: boolean; value?: unknown; error?: unknown }>((resolve) =>
          results.push(resolve),
        );
        ws.send(JSON.stringify({ type: 'call', id: ++id, method, input }));
        const envelope = await answered;
        if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope.error)}`);
        return envelope.value;
      };
      // The same cheap call with no export running: what the UI gets meanwhile is compared with this.
      const idle: number[] = [];
      for (let i = 0; i < idleCount; i++) {
        const sent = performance.now();
        await call('trades.query', { offset: 100, limit: 50 });
        idle.push(performance.now() - sent);
      }
      const out = [];
      for (let rep = 0; rep < reps; rep++) {
        largestFrame = 0;
        progressEvents = 0;
        const started = performance.now();
        const status = (await call('trades.exportCsv', {})) as Status;
        const calls: number[] = [];
        while (!ended.has(status.id)) {
          if (!withCalls) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            continue;
          }
          const sent = performance.now();
          await call('trades.query', { offset: 100, limit: 50 });
          calls.push(performance.now() - sent);
        }
        const end = ended.get(status.id) as { at: number; status: Status };
        if (end.status.state !== 'done') throw new Error(`the export ended ${end.status.state}`);
        out.push({
          ms: end.at - started,
          rows: end.status.done,
          filename: end.status.filename,
          calls,
          largestFrame,
          progressEvents,
        });
      }
      ws.close();
      return { out, idle };
    },
    { reps, withCalls, idleCount, tokenKey: TOKEN_STORAGE_KEY },
  );
}
