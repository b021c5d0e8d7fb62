/**
 * What a page of the web host receives over its bridge, measured in the page (an init script, before the app runs):
 * the size of every frame on the app's own bridge socket (the largest in UTF-8 bytes), the notifications, progress
 * and connection states its event batches carry, when each trade update arrived (while `trackTrades` is set), and
 * how the socket closed. On a second socket of its own (the page's token, as filter-sort does) it makes calls for the
 * bench: one at a time (`call`) or a cheap call every `gapMs` whose round trips it keeps (`startPings`).
 */
import type { Page } from '@playwright/test';
import type { IpcEnvelope } from '../../src/shared/ipc/contract';
import { TOKEN_STORAGE_KEY } from '../../src/renderer/src/platform/webBridge';

export interface ProbeState {
  frames: number;
  /** UTF-16 code units of every frame (about the bytes: the JSON is mostly ASCII). */
  chars: number;
  maxBytes: number;
  maxAt: number;
  /** The start of the largest frame (which kind of frame it was). */
  maxHead: string;
  over64k: number;
  /** tradeId: the trade a notification opens (null for a summary); kind: a trade's update, or the desk's own word. */
  notifications: { at: number; kind: string; title: string; body: string; tradeId: string | null }[];
  /** Each progress list the batches carried: kind and pages done / total. */
  progress: { at: number; list: { kind: string; done: number; total: number | null }[] }[];
  connection: { at: number; state: string; detail: string }[];
  invalidated: number;
  trackTrades: boolean;
  /** [tradeId, status, Date.now() at arrival] of every trade in a batch while trackTrades was set. */
  trades: [string, string, number][];
  /** [Date.now() at the call, round trip ms] of each answered ping. */
  pings: [number, number][];
  /** [Date.now() at its start, ms] of each task over 50 ms on the page's main thread (it delays a ping's answer too). */
  longTasks: [number, number][];
  pingFailures: number;
  closes: { at: number; code: number; reason: string }[];
}

/** Plain JavaScript: it runs in the page before the app's own scripts. */
export const PROBE_INIT_SCRIPT = `
window.__name = (fn) => fn;
(() => {
  const Native = window.WebSocket;
  const probe = {
    frames: 0, chars: 0, maxBytes: 0, maxAt: 0, maxHead: '', over64k: 0, notifications: [], progress: [],
    connection: [], invalidated: 0, trackTrades: false, trades: [], pings: [], pingFailures: 0, closes: [],
    pinging: false, maxChars: 0, longTasks: [],
  };
  window.__probe = probe;
  try {
    new PerformanceObserver((list) => {
      for (const task of list.getEntries())
        probe.longTasks.push([Math.round(performance.timeOrigin + task.startTime), Math.round(task.duration)]);
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
  function observe(ws) {
    ws.addEventListener('close', (event) => probe.closes.push({ at: Date.now(), code: event.code, reason: event.reason }));
    ws.addEventListener('message', (event) => {
      const at = Date.now();
      const data = event.data;
      if (typeof data !== 'string') return;
      probe.frames++;
      probe.chars += data.length;
      if (data.length > 65536) probe.over64k++;
      if (data.length > probe.maxChars) {
        probe.maxChars = data.length;
        probe.maxBytes = new TextEncoder().encode(data).length;
        probe.maxAt = at;
        probe.maxHead = data.slice(0, 60);
      }
      if (data.length > 2000000 || !data.startsWith('{"type":"events"')) return;
      let message;
      try { message = JSON.parse(data); } catch { return; }
      const b = message.batch;
      if (!b) return;
      if (b.notifications) {
        for (const n of b.notifications) {
          const tradeId = n.target && n.target.type === 'trade' ? n.target.tradeId : null;
          probe.notifications.push({ at, kind: n.kind, title: n.title, body: n.body, tradeId });
        }
      }
      if (b.progress) probe.progress.push({ at, list: b.progress.map((p) => ({ kind: p.kind, done: p.done, total: p.total })) });
      if (b.tradesInvalidated) probe.invalidated++;
      if (b.connection) probe.connection.push({ at, state: b.connection.state, detail: b.connection.detail });
      if (probe.trackTrades && b.trades) for (const t of b.trades) probe.trades.push([t.tradeId, t.status, at]);
    });
  }
  class Probed extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      if (String(url).includes('/bridge')) observe(this);
    }
  }
  window.WebSocket = Probed;

  const lastList = () => (probe.progress.length > 0 ? probe.progress[probe.progress.length - 1].list : []);
  // What a running bench reads while pings go on: a few values, never the whole probe (see readProbe).
  window.__probeGlance = () => ({
    progress: probe.progress.length > 0 ? probe.progress[probe.progress.length - 1] : null,
    historySummaryAt: (probe.notifications.find((n) => n.title === 'Trade history loaded') || { at: null }).at,
  });
  const lastState = () => (probe.connection.length > 0 ? probe.connection[probe.connection.length - 1].state : null);
  // The conditions the bench waits for (the page's CSP allows no eval of a string predicate).
  window.__probeCheck = (what) => {
    switch (what) {
      case 'history-summary':
        return probe.notifications.some((n) => n.title === 'Trade history loaded');
      case 'progress-clear':
        return lastList().length === 0;
      case 'feed-down':
        // Refused (polling) or unreachable (reconnecting): either way the engine polls trades over REST.
        return lastState() === 'polling' || lastState() === 'reconnecting';
      default:
        return lastState() === what;
    }
  };

  let opening = null;
  let nextId = 0;
  const waiting = new Map();
  function callSocket() {
    opening ??= new Promise((resolve, reject) => {
      const token = localStorage.getItem(${JSON.stringify(TOKEN_STORAGE_KEY)});
      if (!token) { opening = null; reject(new Error('the page holds no bridge token yet')); return; }
      const ws = new Native('ws://' + location.host + '/bridge', ['merchant-desk.bridge', 'merchant-desk.token.' + token]);
      let welcomed = false;
      ws.onmessage = (event) => {
        const data = String(event.data);
        if (data.startsWith('{"type":"events"')) return;
        const message = JSON.parse(data);
        if (!welcomed) {
          welcomed = message.type === 'welcome';
          if (welcomed) resolve(ws); else reject(new Error('the bridge refused the token'));
          return;
        }
        if (message.type !== 'result') return;
        const settle = waiting.get(message.id);
        waiting.delete(message.id);
        if (settle) settle(message.envelope);
      };
      ws.onerror = () => reject(new Error('the bench bridge socket failed'));
      ws.onclose = () => {
        opening = null;
        for (const settle of waiting.values()) settle({ ok: false, error: { code: 'closed', message: 'socket closed' } });
        waiting.clear();
      };
    });
    return opening;
  }
  window.__benchCall = async (method, input) => {
    const ws = await callSocket();
    const id = ++nextId;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ type: 'call', id, method, input }));
    });
  };
  window.__startPings = (method, gapMs) => {
    probe.pinging = true;
    (async () => {
      while (probe.pinging) {
        const wall = Date.now();
        const started = performance.now();
        let envelope;
        try { envelope = await window.__benchCall(method, {}); } catch { envelope = null; }
        const rtt = performance.now() - started;
        if (envelope && envelope.ok) probe.pings.push([wall, rtt]); else probe.pingFailures++;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, gapMs - rtt)));
      }
    })();
  };
})();
`;

/**
 * The probe's state so far (copied out of the page). Only once the pings have stopped: copying an hour's probe (40,000
 * pings, as many progress lists) holds the page's main thread for seconds, which a ping then counts as the bridge's
 * (3.4–3.9 s measured; the page's long-task observer does not see the devtools evaluation). Use `glanceProbe` meanwhile.
 */
export function readProbe(page: Page): Promise<ProbeState> {
  return page.evaluate(() => (window as unknown as { __probe: ProbeState }).__probe);
}

/** One call over the bench's own bridge socket; throws on a failed envelope. */
export async function bridgeCall<T>(page: Page, method: string, input: unknown = {}): Promise<T> {
  const envelope = await page.evaluate(
    ([m, i]) =>
      (window as unknown as { __benchCall(method: string, input: unknown): Promise<IpcEnvelope<unknown>> }).__benchCall(
        m as string,
        i,
      ),
    [method, input] as const,
  );
  if (!envelope.ok) throw new Error(`${method} failed: ${JSON.stringify(envelope)}`);
  return envelope.value as T;
}

export interface ProbeGlance {
  /** The last progress list the batches carried, and when. */
  progress: ProbeState['progress'][number] | null;
  /** When the "Trade history loaded" summary arrived, or null. */
  historySummaryAt: number | null;
}

/** The few values a bench reads while pings run: small, so the read does not delay a ping. */
export function glanceProbe(page: Page): Promise<ProbeGlance> {
  return page.evaluate(() => (window as unknown as { __probeGlance(): ProbeGlance }).__probeGlance());
}

export function startPings(page: Page, method: string, gapMs: number): Promise<void> {
  return page.evaluate(
    ([m, g]) =>
      (window as unknown as { __startPings(method: string, gapMs: number): void }).__startPings(
        m as string,
        g as number,
      ),
    [method, gapMs] as const,
  );
}

export function stopPings(page: Page): Promise<void> {
  return page.evaluate(() => {
    (window as unknown as { __probe: { pinging: boolean } }).__probe.pinging = false;
  });
}

export function trackTrades(page: Page, on: boolean): Promise<void> {
  return page.evaluate((value) => {
    (window as unknown as { __probe: ProbeState }).__probe.trackTrades = value;
  }, on);
}

export type ProbeCondition = 'history-summary' | 'progress-clear' | 'connected' | 'feed-down';

/** Waits until the probe sees `what`: the history summary notified, no progress left, the feed connected or down. */
export async function waitForProbe(page: Page, what: ProbeCondition, timeoutMs: number): Promise<void> {
  await page.waitForFunction(
    (condition) => (window as unknown as { __probeCheck(what: string): boolean }).__probeCheck(condition),
    what,
    { timeout: timeoutMs, polling: 250 },
  );
}

/** Forgets what the probe gathered so far (between phases); pings stop first. */
export function resetProbe(page: Page): Promise<void> {
  return page.evaluate(() => {
    const probe = (window as unknown as { __probe: ProbeState & { maxChars: number } }).__probe;
    Object.assign(probe, {
      frames: 0,
      chars: 0,
      maxBytes: 0,
      maxChars: 0,
      maxAt: 0,
      maxHead: '',
      over64k: 0,
      notifications: [],
      progress: [],
      invalidated: 0,
      trades: [],
      pings: [],
      longTasks: [],
      pingFailures: 0,
      closes: [],
    });
  });
}
