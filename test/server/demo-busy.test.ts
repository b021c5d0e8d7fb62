import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TradeHistoryPage } from '../../src/shared/api';
import type { DemoSandbox } from '../../src/server/demo';
import { demoOptionsFromEnv, startDemoSandbox } from '../../src/server/demo';
import { merchantApi } from '../support/sandboxHttp';

const dir = mkdtempSync(join(tmpdir(), 'demo-busy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the demo as a busy merchant (npm start -- --busy)', () => {
  it('MERCHANT_DESK_DEMO_BUSY=1 asks for 14 days at 10,000 a day; without it the demo is the plain one', () => {
    expect(demoOptionsFromEnv({ MERCHANT_DESK_DEMO_BUSY: '1' })).toEqual({
      busy: { days: 14, tradesPerDay: 10_000, recipients: 5000 },
    });
    expect(demoOptionsFromEnv({})).toEqual({});
    expect(demoOptionsFromEnv({ MERCHANT_DESK_DEMO_BUSY: '0' })).toEqual({});
  });

  it('starts with the demo merchant’s history seeded and its back end buying by itself', async () => {
    const lines: string[] = [];
    let demo: DemoSandbox | null = null;
    try {
      demo = await startDemoSandbox(dir, (line) => lines.push(line), {
        busy: { days: 2, tradesPerDay: 200, recipients: 500 },
      });
      const api = merchantApi({ baseUrl: demo.credentials.baseUrl }, demo.credentials);
      const history = await api.get<TradeHistoryPage>('/Trades/History?isActive=true');
      expect(history.body.trades.filter((t) => t.externalId?.startsWith('wd-'))).toHaveLength(400);
      expect(lines).toContain('demo sandbox: busy merchant with 400 trades, buying 10000 a day');
      expect(lines.some((line) => /seeding the busy merchant's history: 400\/400 trades/.test(line))).toBe(true);
      // The load mode's first buy comes 8.64 s after the start (10,000 a day): wait for it.
      const deadline = Date.now() + 30_000;
      let live = 0;
      while (live === 0 && Date.now() < deadline) {
        const page = await api.get<TradeHistoryPage>('/Trades/History?limit=5');
        live = page.body.trades.filter((t) => t.externalId?.startsWith('ld-')).length;
        if (live === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(live).toBeGreaterThan(0);
    } finally {
      await demo?.close();
    }
  });
});
