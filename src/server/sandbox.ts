import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { scaledRateLimits } from '../shared/api';
import { completeItem } from './catalog/generator';
import { Rng } from './catalog/rng';
import { DEMO_MERCHANT, SANDBOX_CHOICES } from './config';
import { SandboxCore } from './domain/core';
import { FeedServer } from './feed/feedServer';
import { buildHttpApp } from './http/app';
import type { HttpTimeouts } from './http/transport';
import type { HistoryRequest } from './seeding/historyParams';
import { discardUnfinishedSeeds } from './seeding/seedMarker';
import type { HistorySeedResult, SeedProgress } from './seeding/seedHistory';
import { seedMerchantHistory } from './seeding/seedHistory';
import type { LoadModeOptions } from './simulator/merchantLoad';
import { MerchantLoad, resolveLoadOptions } from './simulator/merchantLoad';
import { MarketSimulator } from './simulator/simulator';
import { WebhookDispatcher } from './webhooks/dispatcher';

export interface SandboxOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** SQLite file; a temporary one (deleted on close) when absent. */
  dbFile?: string;
  seed?: number;
  items?: number;
  /** Random when absent. */
  adminToken?: string;
  /** Create (or keep) the ready-to-use demo merchant. */
  demoMerchant?: boolean;
  /** Run the market simulator and drive trades to outcomes by themselves (off for tests). */
  simulate?: boolean;
  /** Market events per second while simulating. */
  eventsPerSecond?: number;
  logger?: boolean;
  onInternalError?: (error: unknown) => void;
  /** Client time-outs; SANDBOX_CHOICES where absent (tests shorten them). */
  httpTimeouts?: Partial<HttpTimeouts>;
  /**
   * Seed a merchant's history at start (docs/sandbox.md, "A merchant's history"): the demo merchant by default
   * (`busy` without it), created when missing; a merchant that already has trades is kept as it is.
   */
  busyMerchant?: BusyMerchantOptions;
  /**
   * A merchant's back end buying by itself at a set rate with bursts (docs/sandbox.md, "Load mode"): the busy
   * merchant, else the demo merchant, unless `merchantId` names another. Needs `simulate` (trades must end).
   */
  loadMode?: LoadModeOptions;
  /**
   * Benchmarks only: every rate limit times this whole number (docs/sandbox.md, "Raised rate limits for
   * benchmarks"); the spec's limits where absent.
   */
  rateLimitScale?: number;
}

export interface BusyMerchantOptions extends HistoryRequest {
  merchantId?: string;
  /** Its back end's webhook endpoint from now on (set after the history, before anything live happens). */
  webhookUrl?: string;
  onProgress?: (progress: SeedProgress) => void;
}

export interface BusyMerchant {
  merchantId: string;
  apiKey: string;
  /** What was seeded; null when the merchant already had trades (a restart of a persistent sandbox). */
  seeded: HistorySeedResult | null;
}

export interface DemoCredentials {
  merchantId: string;
  apiKey: string;
}

export interface Sandbox {
  readonly core: SandboxCore;
  readonly app: FastifyInstance;
  readonly baseUrl: string;
  readonly wsUrl: string;
  readonly adminToken: string;
  readonly demo: DemoCredentials | null;
  readonly webhooks: WebhookDispatcher;
  readonly feed: FeedServer;
  readonly simulator: MarketSimulator | null;
  readonly busy: BusyMerchant | null;
  readonly load: MerchantLoad | null;
  close(): Promise<void>;
}

const DEMO_KEY_META = 'demo_api_key';

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Starts the whole sandbox: database, HTTP API and admin helpers on one port. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  // Refused before anything starts.
  const loadMerchantId = options.loadMode ? loadMerchantOf(options, options.loadMode) : null;
  const rateLimits = options.rateLimitScale === undefined ? undefined : scaledRateLimits(options.rateLimitScale);
  const host = options.host ?? '127.0.0.1';
  const tempDir = options.dbFile ? null : mkdtempSync(join(tmpdir(), 'merchant-sandbox-'));
  const dbFile = options.dbFile ?? join(tempDir as string, 'sandbox.db');
  const adminToken = options.adminToken ?? randomBytes(18).toString('base64url');
  const items = Math.min(options.items ?? SANDBOX_CHOICES.defaultItemCount, SANDBOX_CHOICES.maxItemCount);
  let baseUrl = '';
  const imageBase = () => `${baseUrl}/img`;

  // The port is known only after listen, and item images live on it: bind first, seed after.
  const core = new SandboxCore({
    dbFile,
    seed: options.seed ?? 1,
    items,
    imageBaseUrl: 'http://sandbox.invalid/img',
    deferSeeding: true,
  });
  // A seed cut off by a crash or a kill leaves no half-written merchant.
  discardUnfinishedSeeds(core);
  let simulator: MarketSimulator | null = null;
  const itemRng = new Rng((options.seed ?? 1) ^ 0x5eed);
  const webhooks = new WebhookDispatcher(core);
  const { app, limiter } = await buildHttpApp({
    core,
    adminToken,
    logger: options.logger,
    publicUrl: () => baseUrl,
    timeouts: {
      headersMs: options.httpTimeouts?.headersMs ?? SANDBOX_CHOICES.headersTimeoutMs,
      requestMs: options.httpTimeouts?.requestMs ?? SANDBOX_CHOICES.requestTimeoutMs,
      idleMs: options.httpTimeouts?.idleMs ?? SANDBOX_CHOICES.idleTimeoutMs,
    },
    onInternalError: options.onInternalError,
    ...(rateLimits ? { rateLimits } : {}),
    hooks: {
      webhookTest: (merchantId) => webhooks.test(merchantId),
      webhookLog: (merchantId, limit) => webhooks.log(merchantId, limit),
      afterReset: () => {
        // Rate-limit windows belong to the state a reset forgets.
        limiter.reset();
        webhooks.afterReset();
        ensureDemo();
      },
      seedHistory: async (merchantId, request, signal) => {
        const result = await seedMerchantHistory(core, merchantId, request, { signal });
        simulator?.trades.pickUp();
        return result;
      },
      completeItems: (partials) => {
        // Items given without an id get fresh ones after the highest in use.
        let nextId = core.catalog.maxItemId() + 1;
        return partials.map((partial) =>
          completeItem({ ...partial, itemId: partial.itemId ?? nextId++ }, itemRng, {
            seed: options.seed ?? 1,
            count: items,
            imageBaseUrl: imageBase(),
          }),
        );
      },
    },
  });
  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address() as AddressInfo;
  baseUrl = `http://${formatHost(host)}:${address.port}`;
  core.seedIfEmpty(imageBase());

  let demo: DemoCredentials | null = null;
  function ensureDemo(): void {
    if (!options.demoMerchant) return;
    const existing = core.merchants.find(DEMO_MERCHANT.merchantId);
    if (existing) {
      demo = { merchantId: existing.merchantId, apiKey: existing.apiKey };
      return;
    }
    // Keep the key across resets and restarts so printed credentials stay valid.
    const apiKey = core.meta.get(DEMO_KEY_META);
    const created = core.merchants.create({
      merchantId: DEMO_MERCHANT.merchantId,
      balance: DEMO_MERCHANT.balance,
      creditLimit: DEMO_MERCHANT.creditLimit,
      ...(apiKey ? { apiKey } : {}),
    });
    core.meta.set(DEMO_KEY_META, created.apiKey);
    demo = { merchantId: created.merchantId, apiKey: created.apiKey };
  }
  ensureDemo();
  let busy: BusyMerchant | null = null;
  if (options.busyMerchant) {
    try {
      busy = await seedBusyMerchant(
        core,
        { seed: options.seed ?? 1, ...options.busyMerchant },
        options.demoMerchant ? DEMO_MERCHANT.merchantId : 'busy',
      );
    } catch (error) {
      await app.close();
      core.close();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
      throw error;
    }
  }
  let load: MerchantLoad | null = null;
  if (options.loadMode && loadMerchantId !== null) {
    if (!core.merchants.find(loadMerchantId)) core.merchants.create({ merchantId: loadMerchantId });
    load = new MerchantLoad(core, limiter, loadMerchantId, { seed: options.seed ?? 1, ...options.loadMode });
  }
  const feed = new FeedServer(core, app.server);
  simulator = options.simulate
    ? new MarketSimulator(core, {
        seed: options.seed ?? 1,
        eventsPerSecond: options.eventsPerSecond ?? 5,
        imageBaseUrl: imageBase(),
      })
    : null;
  simulator?.start();
  load?.start();

  let closed = false;
  return {
    core,
    app,
    baseUrl,
    wsUrl: `ws://${formatHost(host)}:${address.port}/ws`,
    adminToken,
    get demo() {
      return demo;
    },
    webhooks,
    feed,
    simulator,
    busy,
    load,
    async close() {
      if (closed) return;
      closed = true;
      load?.stop();
      simulator?.stop();
      await feed.close();
      // A client may hold a connection that never sent a request (a fetch aborted while connecting):
      // Node counts it as active, not idle, so app.close() would wait for its headers time-out.
      const stragglers = setTimeout(() => app.server.closeAllConnections(), 1000);
      await app.close();
      clearTimeout(stragglers);
      await webhooks.close();
      core.close();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/** The busy merchant of `startSandbox({ busyMerchant })`: created when missing, seeded when it has no trades yet. */
async function seedBusyMerchant(
  core: SandboxCore,
  options: BusyMerchantOptions,
  fallbackId: string,
): Promise<BusyMerchant> {
  const { merchantId = fallbackId, webhookUrl, onProgress, ...request } = options;
  const merchant = core.merchants.find(merchantId) ?? core.merchants.create({ merchantId });
  const hasTrades = core.db.prepare('SELECT 1 FROM trades WHERE merchant_id = ? LIMIT 1').get(merchantId) !== undefined;
  const seeded = hasTrades ? null : await seedMerchantHistory(core, merchantId, request, { onProgress });
  if (webhookUrl !== undefined) core.merchants.update(merchantId, { webhookUrl });
  return { merchantId, apiKey: merchant.apiKey, seeded };
}

/** Who the load mode buys for; its options are checked here, before the sandbox starts. */
function loadMerchantOf(options: SandboxOptions, loadMode: LoadModeOptions): string {
  if (!options.simulate) throw new RangeError('loadMode needs simulate: without the simulator its trades never end');
  resolveLoadOptions(loadMode);
  const merchantId =
    loadMode.merchantId ??
    options.busyMerchant?.merchantId ??
    (options.demoMerchant ? DEMO_MERCHANT.merchantId : options.busyMerchant ? 'busy' : null);
  if (merchantId === null) throw new RangeError('loadMode needs a merchantId, the demo merchant or a busyMerchant');
  return merchantId;
}
