import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { BuyResult, CatalogEnvelope, TradeHistoryPage } from '../../src/shared/api';
import { TEST_TRADE_URL, adminApi, merchantApi } from '../support/sandboxHttp';

interface Ready {
  base_url: string;
  ws_url: string;
  admin_token: string;
  merchant_id: string;
  api_key: string;
}

const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function launch(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  ready: Promise<Ready>;
  exited: Promise<number | null>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', ...args], { cwd: process.cwd() });
  let stdout = '';
  let stderr = '';
  const ready = new Promise<Ready>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as Ready);
    });
    child.on('exit', () => reject(new Error(`exited before ready: ${stderr}`)));
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exited, stderr: () => stderr };
}

describe('sandbox CLI', () => {
  const db = join(dir, 'state.db');

  it('prints its URLs and demo credentials, answers /health, keeps state across a restart, stops cleanly on SIGTERM', async () => {
    const first = launch([
      '--port',
      '0',
      '--db',
      db,
      '--items',
      '500',
      '--seed',
      '3',
      '--admin-token',
      'secret-admin',
      '--json',
    ]);
    const ready = await first.ready;
    expect(ready.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.ws_url).toBe(`${ready.base_url.replace('http', 'ws')}/ws`);
    expect(ready.admin_token).toBe('secret-admin');
    expect((await fetch(`${ready.base_url}/health`)).status).toBe(200);

    const demo = merchantApi({ baseUrl: ready.base_url }, { merchantId: ready.merchant_id, apiKey: ready.api_key });
    const catalog = (await demo.get<CatalogEnvelope>('/Items/GetAllItemsOnSale')).body;
    expect(catalog.totalItems).toBe(500);
    const item = catalog.items[0] as CatalogEnvelope['items'][number];
    const bought = await demo.post<BuyResult>('/Items/Buy', {
      itemId: item.itemId,
      assetId: item.assetId,
      price: item.price,
      tradeUrl: TEST_TRADE_URL,
    });
    expect(bought.status).toBe(200);
    const advanced = await adminApi({ baseUrl: ready.base_url, adminToken: 'secret-admin' }).advance(3600);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = launch(['--port', '0', '--db', db, '--admin-token', 'secret-admin', '--json']);
    const again = await second.ready;
    expect(again.api_key).toBe(ready.api_key);
    const demoAgain = merchantApi(
      { baseUrl: again.base_url },
      { merchantId: again.merchant_id, apiKey: again.api_key },
    );
    const trades = (await demoAgain.get<TradeHistoryPage>('/Trades/History')).body;
    expect(trades.trades.map((t) => t.tradeId)).toEqual([bought.body.tradeId]);
    expect(
      (await demoAgain.post<CatalogEnvelope>('/Items/SearchItems', { itemId: [item.itemId] })).body.totalItems,
    ).toBe(0);
    const clock = (
      await adminApi({ baseUrl: again.base_url, adminToken: 'secret-admin' }).get<{ now: string; offsetMs: number }>(
        '/admin/clock',
      )
    ).body;
    // The test clock's offset survived: time did not jump back to real time.
    expect(Date.parse(clock.now)).toBeGreaterThan(Date.parse(advanced.now));
    expect(clock.offsetMs).toBeGreaterThan(3590 * 1000);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 60_000);

  it('refuses bad options and a database from a newer version with a clear message', async () => {
    const bad = launch(['--items', 'many']);
    await bad.ready.catch(() => undefined);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain('--items must be a whole number');

    for (const [value, message] of [
      ['0', '--test-rate-limit-scale must be between 1 and 1000'],
      ['2.5', '--test-rate-limit-scale must be a whole number'],
    ] as const) {
      const scale = launch(['--port', '0', '--test-rate-limit-scale', value]);
      await scale.ready.catch(() => undefined);
      expect(await scale.exited).toBe(2);
      expect(scale.stderr()).toContain(message);
    }

    const newer = join(dir, 'newer.db');
    const handle = new Database(newer);
    handle.pragma('user_version = 99');
    handle.close();
    const refused = launch(['--port', '0', '--db', newer]);
    await refused.ready.catch(() => undefined);
    expect(await refused.exited).toBe(1);
    expect(refused.stderr()).toContain('newer version');
  }, 30_000);
});
