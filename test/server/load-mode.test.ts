import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxOptions } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { adminApi } from '../support/sandboxHttp';

const opened: Sandbox[] = [];

async function open(options: SandboxOptions): Promise<Sandbox> {
  const sb = await startSandbox({
    items: 10_000,
    seed: 9,
    simulate: true,
    eventsPerSecond: 0,
    demoMerchant: true,
    ...options,
  });
  opened.push(sb);
  return sb;
}

afterEach(async () => {
  for (const sb of opened.splice(0)) await sb.close();
});

const MINUTE = 60_000;

/** The demo merchant's trades created in [from, to) of sandbox time. */
function boughtBetween(sb: Sandbox, from: number, to: number): number {
  return (
    sb.core.db
      .prepare("SELECT count(*) AS n FROM trades WHERE merchant_id = 'demo' AND created_at >= ? AND created_at < ?")
      .get(from, to) as { n: number }
  ).n;
}

describe('load mode (startSandbox loadMode, sandbox --load)', () => {
  it('buys at the set rate, 20× during a burst, on the sandbox clock, and never breaks a limit', async () => {
    // 7,200 a day is 5 a minute; a burst of 20× is 100 a minute, for 3 minutes starting 10 minutes in.
    const sb = await open({
      loadMode: {
        tradesPerDay: 7200,
        burstFactor: 20,
        burstMinutes: 3,
        firstBurstMinutes: 10,
        burstEveryMinutes: 600,
        recipients: 400,
      },
    });
    const admin = adminApi(sb);
    const load = sb.load;
    if (!load) throw new Error('no load mode');
    const start = sb.core.clock.now();

    await admin.advance(10 * 60);
    // Real time runs on too (a few seconds of it here): generous bounds around 50.
    expect(boughtBetween(sb, start, start + 10 * MINUTE)).toBeGreaterThanOrEqual(45);
    expect(boughtBetween(sb, start, start + 10 * MINUTE)).toBeLessThanOrEqual(55);

    await admin.advance(3 * 60);
    const burst = boughtBetween(sb, start + 10 * MINUTE, start + 13 * MINUTE);
    expect(burst).toBeGreaterThanOrEqual(270);
    expect(burst).toBeLessThanOrEqual(310);

    // After the burst, back to 5 a minute; trades ended meanwhile (the simulator moved them).
    await admin.advance(10 * 60);
    const after = boughtBetween(sb, start + 13 * MINUTE, start + 23 * MINUTE);
    expect(after).toBeGreaterThanOrEqual(45);
    expect(after).toBeLessThanOrEqual(60);
    expect(load.stats.bought).toBe(boughtBetween(sb, start, sb.core.clock.now() + 1));
    expect(load.stats.refused).toBe(0);
    expect(load.stats.skipped.rateLimit).toBe(0);
    const ended = sb.core.db
      .prepare("SELECT count(*) AS n FROM trades WHERE merchant_id = 'demo' AND status NOT IN ('PENDING', 'SENT')")
      .get() as { n: number };
    expect(ended.n).toBeGreaterThan(load.stats.bought / 2);

    // The limits: at most 300 buys in any 60 s of sandbox time, 30 active per recipient, 5 per holding account.
    const times = (
      sb.core.db
        .prepare("SELECT created_at AS at FROM trades WHERE merchant_id = 'demo' ORDER BY created_at")
        .all() as {
        at: number;
      }[]
    ).map((row) => row.at);
    let first = 0;
    let busiest = 0;
    for (let i = 0; i < times.length; i++) {
      while ((times[i] as number) - (times[first] as number) >= MINUTE) first++;
      busiest = Math.max(busiest, i - first + 1);
    }
    expect(busiest).toBeGreaterThan(90);
    expect(busiest).toBeLessThanOrEqual(150);
    const maxActive = (column: string) =>
      (
        sb.core.db
          .prepare(
            `SELECT coalesce(max(n), 0) AS n FROM (SELECT count(*) AS n FROM trades WHERE status IN ('PENDING', 'SENT') GROUP BY ${column})`,
          )
          .get() as { n: number }
      ).n;
    expect(maxActive('partner')).toBeLessThanOrEqual(30);
    expect(maxActive('holder')).toBeLessThanOrEqual(5);
  });

  it('refuses a rate the limits do not allow, before the sandbox starts', async () => {
    await expect(open({ loadMode: { tradesPerDay: 20_000, burstFactor: 20 } })).rejects.toThrow(
      /half the 300-a-minute budget/,
    );
    await expect(open({ loadMode: { tradesPerDay: 10_000, recipients: 100 } })).rejects.toThrow(
      /at least 417 recipients/,
    );
    await expect(open({ loadMode: { tradesPerDay: -5 } })).rejects.toThrow(/positive/);
    await expect(open({ simulate: false, loadMode: {} })).rejects.toThrow(/needs simulate/);
  });
});
