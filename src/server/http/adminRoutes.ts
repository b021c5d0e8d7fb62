import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Item } from '../../shared/api';
import { TRADE_STATUSES, itemSchema, stickerSchema } from '../../shared/api';
import { ApiError, notFound } from '../domain/apiError';
import type { SandboxCore } from '../domain/core';
import { itemFor } from '../domain/itemRecord';
import { createMerchantSchema, describeMerchant, updateMerchantSchema } from '../domain/merchants';
import { historyRequestSchema, type HistoryRequest } from '../seeding/historyParams';
import type { HistorySeedResult } from '../seeding/seedHistory';
import { toUtcIso } from '../../shared/time';
import { parseOrReject } from './validation';

/** What the admin API needs from parts that live outside the core (webhooks, feed). */
export interface AdminHooks {
  webhookTest(merchantId: string): Promise<{ delivered: boolean; httpStatus: number | null }>;
  webhookLog(merchantId: string | undefined, limit: number): unknown[];
  /** Called by POST /admin/reset after the core is back to its seeded state. */
  afterReset(): void;
  /** Fills in what partial items leave out (the generator). */
  completeItems(partials: PartialItem[]): Item[];
  /** Seeds a merchant's history (src/server/seeding); stopped when the signal fires. */
  seedHistory(merchantId: string, request: HistoryRequest, signal: AbortSignal): Promise<HistorySeedResult>;
}

const ADMIN_BODY_LIMIT = 64 * 1024 * 1024;

const idParam = z.object({ merchantId: z.string().min(1).max(64) });
const itemIdParam = z.object({
  itemId: z
    .string()
    .regex(/^\d{1,15}$/)
    .transform(Number),
});
const tradeIdParam = z.object({ tradeId: z.string().min(1).max(128) });

const balanceSchema = z.strictObject({
  type: z.enum(['ADMIN TOP UP', 'ADMIN DEDUCT', 'CRYPTO DEPOSIT']),
  amount: z.int().positive(),
  note: z.string().max(500).nullable().optional(),
});
// wearPercent may be left out: it is derived from wear.
const partialItemSchema = itemSchema
  .partial()
  .extend({
    stickers: z
      .array(stickerSchema.partial({ wearPercent: true }))
      .max(10)
      .optional(),
  })
  .strict();
export type PartialItem = z.infer<typeof partialItemSchema>;
const upsertItemsSchema = z.strictObject({ items: z.array(partialItemSchema).min(1).max(10_000) });
const priceSchema = z.strictObject({ price: z.int().positive() });
const transitionSchema = z.strictObject({
  status: z.enum(TRADE_STATUSES),
  errorCode: z.int().nullable().optional(),
  failReason: z.string().min(1).max(1000).nullable().optional(),
});
const advanceSchema = z.strictObject({
  seconds: z
    .number()
    .min(0)
    .max(10 * 365 * 24 * 3600),
});
const maintenanceSchema = z.strictObject({ on: z.boolean() });
const webhookLogQuery = z.strictObject({
  merchantId: z.string().min(1).max(64).optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/)
    .transform(Number)
    .pipe(z.int().min(1).max(1000))
    .optional(),
});

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Test helpers in the manner of a payment provider's test mode, behind `x-admin-token`. */
export function registerAdminRoutes(
  app: FastifyInstance,
  core: SandboxCore,
  adminToken: string,
  hooks: AdminHooks,
): void {
  const expected = digest(adminToken);
  app.register(async (admin) => {
    admin.addHook('onRequest', async (request: FastifyRequest) => {
      const token = request.headers['x-admin-token'];
      if (typeof token !== 'string' || !timingSafeEqual(expected, digest(token))) {
        throw new ApiError(401, 'unauthorized', 'Invalid or missing x-admin-token');
      }
    });

    admin.post('/admin/merchants', async (request, reply) => {
      const input = parseOrReject(createMerchantSchema, request.body ?? {}, 'merchant');
      reply.code(201);
      return describeMerchant(core.merchants.create(input));
    });

    admin.get('/admin/merchants/:merchantId', async (request) => {
      const { merchantId } = parseOrReject(idParam, request.params, 'path');
      return describeMerchant(core.merchants.get(merchantId));
    });

    admin.patch('/admin/merchants/:merchantId', async (request) => {
      const { merchantId } = parseOrReject(idParam, request.params, 'path');
      const input = parseOrReject(updateMerchantSchema, request.body, 'merchant update');
      return describeMerchant(core.merchants.update(merchantId, input));
    });

    admin.post('/admin/merchants/:merchantId/balance', async (request, reply) => {
      const { merchantId } = parseOrReject(idParam, request.params, 'path');
      const input = parseOrReject(balanceSchema, request.body, 'balance change');
      core.merchants.get(merchantId);
      const entry = core.db.transaction(() =>
        core.ledger.post(merchantId, {
          type: input.type,
          amount: input.type === 'ADMIN DEDUCT' ? -input.amount : input.amount,
          note: input.note ?? null,
        }),
      )();
      reply.code(201);
      return entry;
    });

    admin.post('/admin/merchants/:merchantId/history', async (request, reply) => {
      const { merchantId } = parseOrReject(idParam, request.params, 'path');
      const input = parseOrReject(historyRequestSchema, request.body ?? {}, 'history');
      // A client that goes away (Ctrl-C on curl) stops the seed, and what it wrote is removed.
      const stop = new AbortController();
      reply.raw.on('close', () => {
        if (!reply.raw.writableEnded) stop.abort();
      });
      const result = await hooks.seedHistory(merchantId, input, stop.signal);
      reply.code(201);
      return { ...result, from: toUtcIso(result.from), to: toUtcIso(result.to) };
    });

    admin.post('/admin/merchants/:merchantId/webhook-test', async (request) => {
      const { merchantId } = parseOrReject(idParam, request.params, 'path');
      core.merchants.get(merchantId);
      return hooks.webhookTest(merchantId);
    });

    admin.post('/admin/items', { bodyLimit: ADMIN_BODY_LIMIT }, async (request) => {
      const input = parseOrReject(upsertItemsSchema, request.body, 'items');
      const records = core.catalog.upsert(hooks.completeItems(input.items));
      return {
        items: records.map((record) => itemFor(record, { steamId: true, inspectInGame: true, tradeUrl: true })),
      };
    });

    admin.patch('/admin/items/:itemId', async (request) => {
      const { itemId } = parseOrReject(itemIdParam, request.params, 'path');
      const { price } = parseOrReject(priceSchema, request.body, 'price change');
      const record = core.catalog.setPrice(itemId, price);
      return itemFor(record, { steamId: true, inspectInGame: true, tradeUrl: true });
    });

    admin.delete('/admin/items/:itemId', async (request) => {
      const { itemId } = parseOrReject(itemIdParam, request.params, 'path');
      // Sold elsewhere: off sale, or the trade in flight that holds it ends (CANCELLED 505).
      const outcome = core.sellElsewhere(itemId);
      if (!outcome) throw notFound(`item ${itemId} on sale or in a trade in flight`);
      return { itemId, removed: true, trade: outcome.trade ? core.trades.toWire(outcome.trade) : null };
    });

    admin.post('/admin/catalog/rebuild', async () => ({ lastUpdate: core.catalog.rebuild() }));

    admin.get('/admin/trades/:tradeId', async (request) => {
      const { tradeId } = parseOrReject(tradeIdParam, request.params, 'path');
      return core.trades.toWire(core.trades.get(tradeId));
    });

    admin.post('/admin/trades/:tradeId/transition', async (request) => {
      const { tradeId } = parseOrReject(tradeIdParam, request.params, 'path');
      const input = parseOrReject(transitionSchema, request.body, 'transition');
      return core.trades.toWire(core.trades.transition(tradeId, input));
    });

    admin.get('/admin/clock', async () => ({
      now: core.clock.nowIso(),
      offsetMs: core.clock.offset,
      pending: core.clock.pending(),
    }));

    admin.post('/admin/clock/advance', async (request) => {
      const { seconds } = parseOrReject(advanceSchema, request.body, 'clock advance');
      await core.clock.advance(seconds);
      return { now: core.clock.nowIso(), offsetMs: core.clock.offset };
    });

    admin.post('/admin/maintenance', async (request) => {
      const { on } = parseOrReject(maintenanceSchema, request.body, 'maintenance switch');
      core.maintenance = on;
      return { maintenance: on };
    });

    admin.post('/admin/reset', async () => {
      core.reset();
      hooks.afterReset();
      return { reset: true, ...core.catalog.totals() };
    });

    admin.get('/admin/webhooks', async (request) => {
      const query = parseOrReject(webhookLogQuery, request.query, 'query');
      return { deliveries: hooks.webhookLog(query.merchantId, query.limit ?? 100) };
    });
  });
}
