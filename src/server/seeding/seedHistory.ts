import { ApiError, badRequest } from '../domain/apiError';
import type { SandboxCore } from '../domain/core';
import type { HistoryRequest } from './historyParams';
import { checkHistoryParams } from './historyParams';
import type { HistorySeedResult, SeedOptions } from './historySeeder';
import { HistorySeeder, sampleTemplates } from './historySeeder';
import { writeMarker } from './seedMarker';

export type { HistorySeedResult, SeedOptions, SeedProgress } from './historySeeder';

/**
 * Seeds a merchant's history (docs/sandbox.md, "A merchant's history"). Refuses, writing nothing: an unknown
 * merchant (404), parameters outside the caps or the API's limits (400), a merchant that already has trades or
 * is being seeded (409). Afterwards trades still in flight get their expiry timers, as after a restart.
 */
export async function seedMerchantHistory(
  core: SandboxCore,
  merchantId: string,
  request: HistoryRequest,
  options: SeedOptions = {},
): Promise<HistorySeedResult> {
  core.merchants.get(merchantId);
  const templates = sampleTemplates(core);
  if (templates.length === 0) throw badRequest('invalid_request', 'The catalog is empty: there is nothing to trade');
  const holders = new Set(templates.map((t) => t.holder).filter((holder) => holder !== null)).size;
  const params = checkHistoryParams(request, core.clock.now(), holders === 0 ? Number.POSITIVE_INFINITY : holders);
  if (core.seedingHistory.has(merchantId)) {
    throw new ApiError(409, 'invalid_request', `merchant ${merchantId}'s history is being seeded already`);
  }
  if (core.db.prepare('SELECT 1 FROM trades WHERE merchant_id = ? LIMIT 1').get(merchantId)) {
    throw new ApiError(
      409,
      'invalid_request',
      `merchant ${merchantId} already has trades; a history is seeded into a merchant without any (appending is not supported)`,
    );
  }
  core.seedingHistory.add(merchantId);
  try {
    const marker = writeMarker(
      core,
      merchantId,
      params.days * params.tradesPerDay,
      (templates[0] as { itemId: number }).itemId,
    );
    const result = await new HistorySeeder(core, merchantId, params, templates, marker).run(options);
    core.trades.restoreTimers();
    return result;
  } finally {
    core.seedingHistory.delete(merchantId);
    core.trades.history.clear();
    core.ledger.rewritten();
  }
}
