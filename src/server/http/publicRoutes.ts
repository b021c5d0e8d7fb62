import { Readable, pipeline } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ENDPOINTS,
  buyByNameRequestChecks,
  buyByNameRequestShapeSchema,
  buyRequestChecks,
  buyRequestShapeSchema,
  searchItemsRequestSchema,
} from '../../shared/api';
import { acceptsGzip } from '../domain/catalog';
import { HISTORY_GZIP_LEVEL } from '../domain/tradeHistory';
import type { SandboxCore } from '../domain/core';
import type { Merchant } from '../domain/merchants';
import { parseChecked, parseOrReject } from './validation';

declare module 'fastify' {
  interface FastifyRequest {
    merchant: Merchant | null;
  }
}

export function merchantOf(request: FastifyRequest): Merchant {
  if (!request.merchant) throw new Error('route registered without the authentication hook');
  return request.merchant;
}

/** GetAllItemsOnSale and GetBalance take no parameters: any is refused, like unknown parameters elsewhere. */
const noQuerySchema = z.strictObject({});

/** The seven endpoints of the spec. Authentication and limits run before them (guard.ts). */
export function registerPublicRoutes(app: FastifyInstance, core: SandboxCore): void {
  const json = 'application/json; charset=utf-8';

  app.get(ENDPOINTS.getAllItemsOnSale.path, async (request, reply) => {
    const merchant = merchantOf(request);
    parseOrReject(noQuerySchema, request.query, 'query');
    reply.type(json);
    if (acceptsGzip(request.headers['accept-encoding'])) {
      // Compressed here from cached segments (Catalog.streamEnvelopeGzip); the compress plugin leaves it alone.
      reply.header('Content-Encoding', 'gzip').header('Vary', 'Accept-Encoding');
      return reply.send(Readable.from(core.catalog.streamEnvelopeGzip(merchant.reveal), { objectMode: false }));
    }
    return reply.send(Readable.from(core.catalog.streamEnvelope(merchant.reveal)));
  });

  app.post(ENDPOINTS.searchItems.path, async (request, reply) => {
    const merchant = merchantOf(request);
    const body = parseOrReject(searchItemsRequestSchema, request.body, 'request');
    const records = body.itemId
      ? core.catalog.searchByIds(body.itemId)
      : core.catalog.searchByNames(body.market_hash_name ?? []);
    reply.type(json);
    return core.catalog.envelopeOf(records, merchant.reveal);
  });

  app.post(ENDPOINTS.buy.path, async (request) => {
    const body = parseChecked(buyRequestShapeSchema, buyRequestChecks, request.body);
    return core.buying.buy(merchantOf(request).merchantId, body);
  });

  app.post(ENDPOINTS.buyByName.path, async (request) => {
    const body = parseChecked(buyByNameRequestShapeSchema, buyByNameRequestChecks, request.body);
    return core.buying.buyByName(merchantOf(request).merchantId, body);
  });

  app.get(ENDPOINTS.tradeHistory.path, async (request, reply) => {
    const query = parseOrReject(ENDPOINTS.tradeHistory.query, request.query, 'query');
    // Compressed here, from a cache of answers (TradeHistory.historyBody): repeated polls cost no serialization
    // or compression. The compress plugin leaves a body with Content-Encoding alone.
    const gzip = acceptsGzip(request.headers['accept-encoding']);
    reply.type(json);
    if (gzip) reply.header('Content-Encoding', 'gzip').header('Vary', 'Accept-Encoding');
    const merchantId = merchantOf(request).merchantId;
    if (query.isActive !== true) return reply.send(core.trades.history.historyBody(merchantId, query, gzip));
    // The unpaged 14-day window (hundreds of MB for a busy merchant) is streamed as it is read, never held whole.
    // fastify destroys the stream when the client goes; pipeline passes that on to the reading generator.
    const text = Readable.from(core.trades.history.streamActive(merchantId, query), { objectMode: false });
    if (!gzip) return reply.send(text);
    return reply.send(pipeline(text, createGzip({ level: HISTORY_GZIP_LEVEL }), () => {}));
  });

  app.get(ENDPOINTS.getBalance.path, async (request) => {
    parseOrReject(noQuerySchema, request.query, 'query');
    const merchant = core.merchants.get(merchantOf(request).merchantId);
    return {
      balance: merchant.balance,
      credit_limit: merchant.creditLimit,
      total_available: merchant.balance + merchant.creditLimit,
    };
  });

  app.get(ENDPOINTS.balanceHistory.path, async (request) => {
    const query = parseOrReject(ENDPOINTS.balanceHistory.query, request.query, 'query');
    return core.ledger.list(merchantOf(request).merchantId, query);
  });
}
