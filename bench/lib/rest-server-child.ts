/**
 * Child process of rest-throughput (pinned to one core by the parent): the sandbox
 * with BENCH_MERCHANTS merchants that each hold the same BENCH_TRADES trades, or (BENCH_MODE=bare)
 * a bare fastify server answering GET /Trades/History with a fixed body (gzipped once
 * at start for clients that accept gzip).
 *
 * Trades: BENCH_TRADES real buys by one template merchant through the sandbox's domain
 * (each moved SENT → COMPLETED at once, so no active-offer limit applies), then its
 * trade rows are copied in SQL to every other merchant (new trade ids, same
 * content): creating 400k trades by buying would take minutes and measure nothing
 * of the endpoint. Many merchants because the sandbox allows 300 requests a minute
 * per merchant; the parent rotates their headers on every request.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { startSandbox } from '../../src/server/sandbox';
import { childMain, parentStop, toParent } from './child';
import { scratchDir } from './sandbox';

/** Trades per merchant (the default page shows 50 of them). */
const TRADES = Number(process.env['BENCH_TRADES'] ?? 200);

childMain(async () => {
  if (process.env['BENCH_MODE'] === 'bare') {
    const body = Buffer.from(process.env['BENCH_BODY'] as string);
    // Compressed once, at the sandbox's level: the baseline pays no compression per request either.
    const gzipped = gzipSync(body, { level: 1 });
    const app = Fastify({ logger: false });
    app.get('/Trades/History', async (request, reply) => {
      reply.type('application/json; charset=utf-8');
      if (!/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.send(body);
      return reply.header('Content-Encoding', 'gzip').header('Vary', 'Accept-Encoding').send(gzipped);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address() as { port: number };
    await toParent({ type: 'ready', baseUrl: `http://127.0.0.1:${address.port}` });
    await parentStop();
    await app.close();
    return {};
  }

  const merchants = Number(process.env['BENCH_MERCHANTS'] ?? 2000);
  const dir = scratchDir('rest');
  const sb = await startSandbox({ items: 2000, seed: 3, dbFile: join(dir, 'sandbox.db') });
  try {
    const core = sb.core;
    const template = core.merchants.create({ balance: 1_000_000_000 });
    const items = core.db
      .prepare('SELECT item_id, asset_id, price FROM items WHERE on_sale = 1 ORDER BY item_id LIMIT ?')
      .all(TRADES) as {
      item_id: number;
      asset_id: string;
      price: number;
    }[];
    for (const [i, item] of items.entries()) {
      const result = core.buying.buy(template.merchantId, {
        itemId: item.item_id,
        assetId: item.asset_id,
        price: item.price,
        tradeUrl: `https://steamcommunity.com/tradeoffer/new/?partner=${10_000 + i}&token=BenchTok`,
        externalId: `bench-${i}`,
      });
      core.trades.transition(result.tradeId, { status: 'SENT' });
      core.trades.transition(result.tradeId, { status: 'COMPLETED' });
    }
    const columns = (
      core.db
        .prepare(
          "SELECT name FROM pragma_table_info('trades') WHERE name NOT IN ('seq', 'trade_id', 'merchant_id', 'wire')",
        )
        .pluck()
        .all() as string[]
    ).join(', ');
    // The stored wire JSON names the trade id: rewrite it for the copy.
    const copy = core.db.prepare(
      `INSERT INTO trades (trade_id, merchant_id, wire, ${columns})
       SELECT trade_id || '-' || @m, @m, replace(wire, trade_id, trade_id || '-' || @m), ${columns} FROM trades WHERE merchant_id = @t ORDER BY seq`,
    );
    const credentials: { merchantId: string; apiKey: string }[] = [
      { merchantId: template.merchantId, apiKey: template.apiKey },
    ];
    core.db.transaction(() => {
      for (let i = 1; i < merchants; i++) {
        const m = core.merchants.create({});
        copy.run({ m: m.merchantId, t: template.merchantId });
        credentials.push({ merchantId: m.merchantId, apiKey: m.apiKey });
      }
    })();
    const tradeRows = core.db.prepare('SELECT count(*) FROM trades').pluck().get() as number;
    await toParent({ type: 'ready', baseUrl: sb.baseUrl, credentials, tradeRows });
    await parentStop();
  } finally {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {};
});
