/**
 * The child process of test/reliability/autobuy-kill.test.ts: an engine on a data directory, for a sandbox
 * account, running until the parent kills it.
 *
 *   node --import tsx test/support/faults/autoBuyEngine.ts
 *
 * Environment: AB_DATA_DIR, AB_BASE_URL, AB_WS_URL, AB_MERCHANT_ID, AB_API_KEY; AB_SETUP (first run only, JSON):
 * `{ tradeUrl, budget, rules: [{ name, pattern, dailyCap }] }` saves a recipient, the daily budget and the rules.
 *
 * Prints one JSON object per line on stdout: `ready` (feed live, catalog cached, balance known; the rules'
 * ids by name), then every auto-buy status (`autoBuy`) and every firing with an outcome (`firing`) the engine
 * announces. The parent makes stdout a file, which Node writes synchronously: a line printed before a SIGKILL
 * is a line the parent reads.
 */
import type { AlertRule } from '../../../src/shared/ipc';
import { startEngine } from './harness';
import { waitFor } from '../waitFor';

interface Setup {
  tradeUrl: string;
  budget: number;
  rules: { name: string; pattern: string; dailyCap: number }[];
}

const env = process.env;
const out = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const app = await startEngine(env.AB_DATA_DIR as string, {
  baseUrl: env.AB_BASE_URL as string,
  wsUrl: env.AB_WS_URL as string,
  merchantId: env.AB_MERCHANT_ID as string,
  apiKey: env.AB_API_KEY as string,
});
app.engine.subscribe((batch) => {
  if (batch.autoBuy) out({ t: 'autoBuy', status: batch.autoBuy });
  for (const firing of batch.firings ?? []) if (firing.autoBuy) out({ t: 'firing', firing });
});
await waitFor(() => app.session().connection.state === 'connected', 20_000, 'the feed');
await waitFor(async () => (await app.call('catalog.query', { limit: 1 })).total > 0, 30_000, 'the catalog');
await waitFor(() => app.session().balance !== null, 10_000, 'the balance');

if (env.AB_SETUP) {
  const setup = JSON.parse(env.AB_SETUP) as Setup;
  const recipient = await app.call('recipients.save', { label: 'Desk', tradeUrl: setup.tradeUrl });
  await app.call('settings.update', { autoBuyDailyBudget: setup.budget });
  for (const rule of setup.rules) {
    await app.call('alerts.saveRule', {
      name: rule.name,
      namePattern: rule.pattern,
      maxPrice: 100_000,
      autoBuy: { enabled: true, recipientId: recipient.id, spendCap: 10_000_000, dailyCap: rule.dailyCap },
    });
  }
}
const rules: AlertRule[] = await app.call('alerts.rules');
out({
  t: 'ready',
  rules: Object.fromEntries(rules.map((rule) => [rule.name, rule.id])),
  status: (await app.call('app.snapshot')).autoBuy,
});

process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
