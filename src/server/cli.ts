import { parseArgs } from 'node:util';
import { MAX_TEST_RATE_LIMIT_SCALE, RATE_LIMITS } from '../shared/api';
import { SANDBOX_CHOICES } from './config';
import type { SeedProgress } from './seeding/seedHistory';
import { LOAD_DEFAULTS, LOAD_MAX_PEAK_PER_DAY } from './simulator/merchantLoad';
import { startSandbox } from './sandbox';
import { BUSY_DEFAULTS, HISTORY_LIMITS } from './seeding/historyParams';

const USAGE = `Usage: npm run sandbox -- [options]
  --port N            port to listen on (default 8787; 0 = any free port)
  --host H            address to bind (default 127.0.0.1)
  --db FILE           SQLite file; state survives restarts (default: temporary)
  --seed N            catalog seed (default 1)
  --items N           catalog size at first start (default ${SANDBOX_CHOICES.defaultItemCount}, max ${SANDBOX_CHOICES.maxItemCount})
  --admin-token T     token for the /admin helpers (default: random, printed)
  --simulate          run the market simulator: trades reach outcomes, items move
  --events-per-sec N  market events per second while simulating (default 5)
  --busy              seed the demo merchant's history at start, when it has no trades yet:
                      ${BUSY_DEFAULTS.days} days × ${BUSY_DEFAULTS.tradesPerDay} trades a day over ${BUSY_DEFAULTS.recipients} recipients
  --busy-days N       days of that history (max ${HISTORY_LIMITS.maxDays}; implies --busy)
  --busy-per-day N    trades a day (max ${HISTORY_LIMITS.maxTradesPerDay}; implies --busy)
  --busy-recipients N recipients, at least trades a day / ${HISTORY_LIMITS.maxTradesPerRecipientPerDay} (implies --busy)
  --load              load mode: the demo merchant's back end buys by itself (implies --simulate),
                      ${LOAD_DEFAULTS.tradesPerDay} a day with bursts of ${LOAD_DEFAULTS.burstFactor}× for ${LOAD_DEFAULTS.burstMinutes} minutes every ${LOAD_DEFAULTS.burstEveryMinutes / 60} hours
  --load-per-day N    its buys a day outside bursts (implies --load)
  --load-burst N      its rate multiplier during a burst; 1 = no bursts (implies --load)
  --test-rate-limit-scale N
                      benchmarks only: every rate limit times N (1-${MAX_TEST_RATE_LIMIT_SCALE}; default 1, the spec's
                      ${RATE_LIMITS.default} a minute, ${RATE_LIMITS.catalog} for the catalog)
  --json              print the ready line as JSON
  --help`;

function fail(message: string): never {
  process.stderr.write(`sandbox: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function intOption(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number`);
  const n = Number(value);
  if (n < min || n > max) fail(`--${name} must be between ${min} and ${max}`);
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        db: { type: 'string' },
        seed: { type: 'string' },
        items: { type: 'string' },
        'admin-token': { type: 'string' },
        simulate: { type: 'boolean' },
        'events-per-sec': { type: 'string' },
        busy: { type: 'boolean' },
        'busy-days': { type: 'string' },
        'busy-per-day': { type: 'string' },
        'busy-recipients': { type: 'string' },
        load: { type: 'boolean' },
        'load-per-day': { type: 'string' },
        'load-burst': { type: 'string' },
        'test-rate-limit-scale': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const busy =
    values.busy || values['busy-days'] || values['busy-per-day'] || values['busy-recipients']
      ? {
          days: intOption(values['busy-days'], 'busy-days', BUSY_DEFAULTS.days, 1, HISTORY_LIMITS.maxDays),
          tradesPerDay: intOption(
            values['busy-per-day'],
            'busy-per-day',
            BUSY_DEFAULTS.tradesPerDay,
            1,
            HISTORY_LIMITS.maxTradesPerDay,
          ),
          recipients: intOption(
            values['busy-recipients'],
            'busy-recipients',
            BUSY_DEFAULTS.recipients,
            1,
            HISTORY_LIMITS.maxRecipients,
          ),
          onProgress: ({ written, total, elapsedMs }: SeedProgress) =>
            process.stderr.write(`sandbox: seeding history: ${written}/${total} trades (${elapsedMs} ms)\n`),
        }
      : undefined;
  const load =
    values.load || values['load-per-day'] || values['load-burst']
      ? {
          tradesPerDay: intOption(
            values['load-per-day'],
            'load-per-day',
            LOAD_DEFAULTS.tradesPerDay,
            1,
            LOAD_MAX_PEAK_PER_DAY,
          ),
          burstFactor: intOption(values['load-burst'], 'load-burst', LOAD_DEFAULTS.burstFactor, 1, 1000),
          recipients: busy?.recipients ?? LOAD_DEFAULTS.recipients,
        }
      : undefined;
  const rateLimitScale = intOption(
    values['test-rate-limit-scale'],
    'test-rate-limit-scale',
    1,
    1,
    MAX_TEST_RATE_LIMIT_SCALE,
  );
  if (rateLimitScale !== 1)
    process.stderr.write(
      `sandbox: TEST rate limits: ${rateLimitScale}× the spec's (${RATE_LIMITS.default * rateLimitScale} a minute); not the real API's\n`,
    );
  const startedAt = Date.now();
  const sandbox = await startSandbox({
    port: intOption(values.port, 'port', 8787, 0, 65535),
    host: values.host ?? '127.0.0.1',
    dbFile: values.db,
    seed: intOption(values.seed, 'seed', 1, 0, 2 ** 31 - 1),
    items: intOption(values.items, 'items', SANDBOX_CHOICES.defaultItemCount, 1, SANDBOX_CHOICES.maxItemCount),
    adminToken: values['admin-token'],
    demoMerchant: true,
    simulate: (values.simulate ?? false) || load !== undefined,
    eventsPerSecond: intOption(values['events-per-sec'], 'events-per-sec', 5, 0, 100_000),
    ...(busy ? { busyMerchant: busy } : {}),
    ...(load ? { loadMode: load } : {}),
    ...(rateLimitScale !== 1 ? { rateLimitScale } : {}),
    onInternalError: (error) =>
      process.stderr.write(`sandbox: internal error: ${(error as Error).stack ?? String(error)}\n`),
  });
  const demo = sandbox.demo as { merchantId: string; apiKey: string };
  const ready = {
    base_url: sandbox.baseUrl,
    ws_url: sandbox.wsUrl,
    admin_token: sandbox.adminToken,
    merchant_id: demo.merchantId,
    api_key: demo.apiKey,
    items_on_sale: sandbox.core.catalog.totals().totalItems,
    started_in_ms: Date.now() - startedAt,
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(ready)}\n`);
  } else {
    process.stdout.write(
      `Merchant Trading API sandbox ready (${ready.items_on_sale} items on sale, ${ready.started_in_ms} ms)\n` +
        Object.entries(ready)
          .slice(0, 5)
          .map(([key, value]) => `  ${key.padEnd(12)} ${value}\n`)
          .join(''),
    );
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`sandbox: ${signal}, closing\n`);
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`sandbox: close failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  process.stderr.write(`sandbox: ${(error as Error).message}\n`);
  process.exit(1);
});
