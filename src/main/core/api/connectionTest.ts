import type { ConnectionTestResult } from '../../../shared/ipc';
import { formatCents } from '../../../shared/money';
import { MerchantApiClient } from './client';
import type { ClientRateLimiter } from './rateLimiter';

/** Settings' "Test connection": one balance read with these credentials, inside the merchant's rate budget. */
export async function testConnection(
  credentials: { baseUrl: string; wsUrl: string; merchantId: string; apiKey: string },
  limiter: ClientRateLimiter,
): Promise<ConnectionTestResult> {
  const client = new MerchantApiClient(credentials, { timeoutMs: 10_000, limiter });
  try {
    const balance = await client.getBalance();
    return {
      ok: true,
      message: `Connected as ${credentials.merchantId}: ${formatCents(balance.total_available)} available`,
      merchantId: credentials.merchantId,
      balance,
    };
  } catch (error) {
    return { ok: false, message: `Could not connect: ${(error as Error).message}`, merchantId: null, balance: null };
  }
}
