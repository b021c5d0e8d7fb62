import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/server/sandbox';
import type { AlertFiring, AutoBuyStatus } from '../../src/shared/ipc';
import { FaultProxy } from '../support/faultProxy';
import { waitFor } from '../support/waitFor';
import { adminApi, TEST_TRADE_URL, type MerchantCredentials } from '../support/sandboxHttp';

/**
 * The app killed (SIGKILL) with auto-buys in flight: the sandbox made the trades, their answers never came
 * back (muted at a proxy). The app restarted on the same data directory must count them against the daily
 * budget and the rules' caps before it learns their outcome, look them up by order id, and never let the
 * server spend past a cap or the budget. The engine runs in a child process
 * (test/support/faults/autoBuyEngine.ts); the sandbox and the proxy run here.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const CHILD = join(ROOT, 'test/support/faults/autoBuyEngine.ts');

type Line =
  | { t: 'ready'; rules: Record<string, string>; status: AutoBuyStatus }
  | { t: 'autoBuy'; status: AutoBuyStatus }
  | { t: 'firing'; firing: AlertFiring };

describe('auto-buy: SIGKILL with buys in flight, restart on the same data directory', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let merchant: MerchantCredentials;
  let dir: string;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 9 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    proxy = FaultProxy.forBaseUrl(sb.baseUrl);
    await proxy.start();
    dir = mkdtempSync(join(tmpdir(), 'autobuy-kill-'));
  }, 30_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await proxy?.close();
    await sb?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Cents the server's trades of auto-buy order ids hold (of one rule: auto-<rule>-<item>-<price>). */
  const serverSpend = (ruleId?: string) =>
    sb.core.db
      .prepare('SELECT coalesce(sum(price), 0) FROM trades WHERE merchant_id = ? AND external_id LIKE ?')
      .pluck()
      .get(merchant.merchantId, ruleId === undefined ? 'auto-%' : `auto-${ruleId.slice(0, 12)}-%`) as number;

  const list = async (name: string, count: number, firstId: number) => {
    const answer = await adminApi(sb).post('/admin/items', {
      items: Array.from({ length: count }, (_, i) => ({
        itemId: firstId + i,
        market_hash_name: `${name} ${i + 1} (Field-Tested)`,
        price: 1000,
        phase: null,
      })),
    });
    expect(answer.status).toBe(200);
  };

  /** One engine process; its stdout is a file (see autoBuyEngine.ts), read as lines. */
  function launch(run: number, setup?: unknown) {
    const outFile = join(dir, `run${run}.out`);
    const fd = openSync(outFile, 'w');
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      cwd: ROOT,
      stdio: ['ignore', fd, 'pipe'],
      env: {
        ...process.env,
        AB_DATA_DIR: join(dir, 'data'),
        AB_BASE_URL: proxy.baseUrl,
        AB_WS_URL: proxy.wsUrl,
        AB_MERCHANT_ID: merchant.merchantId,
        AB_API_KEY: merchant.apiKey,
        ...(setup ? { AB_SETUP: JSON.stringify(setup) } : {}),
      },
    });
    closeSync(fd);
    children.push(child);
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (stderr += chunk));
    const lines = (): Line[] =>
      readFileSync(outFile, 'utf8')
        .split('\n')
        .filter((text) => text.trim() !== '')
        .flatMap((text) => {
          try {
            return [JSON.parse(text) as Line];
          } catch {
            return []; // a line cut by the kill
          }
        });
    const exited = new Promise<NodeJS.Signals | number | null>((done) =>
      child.on('exit', (code, signal) => done(signal ?? code)),
    );
    return {
      child,
      lines,
      stderr: () => stderr,
      exited,
      ready: () =>
        waitFor(
          () => {
            if (child.exitCode !== null) throw new Error(`the engine exited: ${stderr.slice(-2000)}`);
            return lines().find((line): line is Extract<Line, { t: 'ready' }> => line.t === 'ready');
          },
          60_000,
          `run ${run} ready`,
        ),
      /** The last auto-buy status it announced. */
      status: () =>
        lines().reduce<AutoBuyStatus | null>(
          (last, line) => (line.t === 'ready' || line.t === 'autoBuy' ? line.status : last),
          null,
        ),
      /** The latest state of each firing it announced with an outcome, by item id. */
      firings: () =>
        new Map(lines().flatMap((line) => (line.t === 'firing' ? [[line.firing.itemId, line.firing] as const] : []))),
    };
  }

  const skipped = (status: AutoBuyStatus | null) =>
    status?.rules.reduce((sum, rule) => sum + rule.skippedToday, 0) ?? 0;

  it('counts the killed buys at once, finds their trades by order id, and the server never spends past the budget or a cap', async () => {
    const first = launch(1, {
      tradeUrl: TEST_TRADE_URL,
      budget: 5000,
      rules: [
        { name: 'capped', pattern: 'Kill Alpha', dailyCap: 3000 },
        { name: 'open', pattern: 'Kill Beta', dailyCap: 10_000_000 },
      ],
    });
    const { rules } = await first.ready();
    const capped = rules.capped as string;

    // A burst of $10 listings; every buy reaches the sandbox, which makes the trade, and its answer never comes.
    const unmute = proxy.inject('/Items/Buy', { kind: 'mute' });
    await list('Kill Alpha', 10, 97_000_001);
    await list('Kill Beta', 10, 97_100_001);
    await waitFor(
      () => serverSpend() === 5000 && skipped(first.status()) === 15,
      20_000,
      'five trades made, fifteen matches held back',
    );
    // Still in flight: no outcome of any of them has come back to the app.
    expect(first.firings().size).toBe(0);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    unmute();

    const second = launch(2);
    const ready = await second.ready();
    await list('Kill Alpha', 10, 97_200_001);
    await list('Kill Beta', 10, 97_300_001);
    await waitFor(
      () => skipped(second.status()) === 35 || [...second.firings().keys()].some((id) => id >= 97_200_001),
      30_000,
      'the new listings decided',
    );
    expect(serverSpend(capped)).toBeLessThanOrEqual(3000);
    expect(serverSpend()).toBeLessThanOrEqual(5000);
    expect(skipped(second.status())).toBe(35);
    // What it held from before the kill as it started: the five buys, counted while their outcome was unknown.
    expect(ready.status.spentToday).toBe(5000);
    expect(ready.status.rules.find((rule) => rule.ruleId === capped)?.spentToday).toBe(3000);

    // Looked up by order id after the restart's reconcile: the five are bought, with their trades.
    await waitFor(
      () => [...second.firings().values()].filter((firing) => firing.autoBuy?.tradeId).length === 5,
      30_000,
      'the five trades found',
    );
    expect(second.status()?.spentToday).toBe(5000);
    expect(serverSpend()).toBe(5000);
    expect(proxy.count('/Items/Buy')).toBe(5);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 180_000);
});
