import type { Page } from '@playwright/test';
import { TOKEN_STORAGE_KEY } from '../../src/renderer/src/platform/webBridge';

/** A call through the bridge: an IPC method and its input. */
export interface BridgeCall {
  method: string;
  input: unknown;
}

/**
 * Times calls as the UI waits for them: from the page, over the web bridge's protocol on a second socket of the
 * page (the UI's is private to its module), the token the page stored offered at the upgrade, one call at a time.
 * `warm`: each call once first, untimed (a page as a user pages it, not its first open). Each call's times, ms.
 */
export function timeBridgeCalls(page: Page, calls: BridgeCall[], reps: number, warm = true): Promise<number[][]> {
  return page.evaluate(
    async ({ calls, reps, warm, tokenKey }) => {
      const token = localStorage.getItem(tokenKey);
      if (!token) throw new Error('the page holds no bridge token');
      const ws = new WebSocket(`ws://${location.host}/bridge`, [
        'merchant-desk.bridge',
        `merchant-desk.token.${token}`,
      ]);
      const frames: ((data: string) => void)[] = [];
      ws.onmessage = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data)) as { type: string };
        if (message.type !== 'events') frames.shift()?.(String(event.data));
      };
      const next = () => new Promise<string>((resolve) => frames.push(resolve));
      // The welcome is the first frame: wait for it from the start.
      const welcomed = next();
      await new Promise<void>((resolve, reject) => {
        ws.onopen = () => resolve();
        ws.onerror = () => reject(new Error('the bridge socket failed'));
      });
      if ((JSON.parse(await welcomed) as { type: string }).type !== 'welcome')
        throw new Error('the bridge refused the token');
      let id = 0;
      const call = async ({ method, input }: { method: string; input: unknown }) => {
        const answered = next();
        ws.send(JSON.stringify({ type: 'call', id: ++id, method, input }));
        const result = JSON.parse(await answered) as { envelope: { ok: boolean } };
        if (!result.envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(result.envelope)}`);
      };
      if (warm) for (const c of calls) await call(c);
      const out: number[][] = calls.map(() => []);
      for (let rep = 0; rep < reps; rep++)
        for (const [i, c] of calls.entries()) {
          const started = performance.now();
          await call(c);
          out[i]?.push(performance.now() - started);
        }
      ws.close();
      return out;
    },
    { calls, reps, warm, tokenKey: TOKEN_STORAGE_KEY },
  );
}
