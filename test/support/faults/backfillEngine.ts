/**
 * The child process of test/core/engine-backfill.test.ts: an engine on a data directory, for a sandbox account,
 * running (its history back-fill under way) until the parent kills it.
 *
 *   node --import tsx test/support/faults/backfillEngine.ts
 *
 * Environment: BF_DATA_DIR, BF_BASE_URL, BF_WS_URL, BF_MERCHANT_ID, BF_API_KEY. Prints `ready` once started.
 */
import { startEngine } from './harness';

const env = process.env;
await startEngine(env.BF_DATA_DIR as string, {
  baseUrl: env.BF_BASE_URL as string,
  wsUrl: env.BF_WS_URL as string,
  merchantId: env.BF_MERCHANT_ID as string,
  apiKey: env.BF_API_KEY as string,
});
process.stdout.write('ready\n');
