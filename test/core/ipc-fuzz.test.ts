import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPC_METHODS, IPC_METHOD_NAMES } from '../../src/shared/ipc';
import { Engine } from '../../src/main/core/engine/engine';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { MemorySecretStore } from '../../src/main/core/secrets';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { FaultProxy } from '../support/faultProxy';
import { adminApi } from '../support/sandboxHttp';

/**
 * Every IPC method, fed payloads its schema refuses, answers a typed
 * `invalid_input` error and never reaches the engine; and no payload of any
 * shape makes the engine spend money except a buy request that validates.
 */
describe('IPC boundary under fuzzing', () => {
  let sb: Sandbox;
  let proxy: FaultProxy;
  let engine: Engine;
  let dataDir: string;
  let handled = 0;

  beforeAll(async () => {
    sb = await startSandbox({ items: 300, seed: 8 });
    proxy = new FaultProxy(Number(new URL(sb.baseUrl).port));
    await proxy.start();
    const merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'ipc-fuzz-'));
    engine = new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo here')),
      override: { baseUrl: proxy.baseUrl, wsUrl: proxy.wsUrl, merchantId: merchant.merchantId, apiKey: merchant.apiKey },
    });
    await engine.start();
    const original = engine.handle.bind(engine);
    engine.handle = ((method, input) => {
      handled++;
      return original(method, input);
    }) as Engine['handle'];
  }, 30_000);

  afterAll(async () => {
    await engine.close();
    await proxy.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses unknown methods', async () => {
    for (const name of ['buy', 'buy.byId.extra', '__proto__', 'constructor', 'app.snapshot ', 42, null, {}]) {
      const answer = await dispatchIpc(engine, name, {});
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
  });

  it('answers every refused payload with invalid_input before the engine sees it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...IPC_METHOD_NAMES), fc.anything({ withNullPrototype: true, withBigInt: true, maxDepth: 3 }), async (method, payload) => {
        const valid = IPC_METHODS[method].input.safeParse(payload).success;
        fc.pre(!valid);
        const before = handled;
        const answer = await dispatchIpc(engine, method, payload);
        expect(answer.ok).toBe(false);
        if (!answer.ok) {
          expect(answer.error.code).toBe('invalid_input');
          expect(answer.error.message.startsWith(method)).toBe(true);
        }
        expect(handled).toBe(before);
      }),
      { numRuns: 400 },
    );
  });

  it('never sends a buy for a malformed buy request', async () => {
    const buysBefore = proxy.count('/Items/Buy');
    const nearlyValid = fc.record(
      {
        itemId: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        assetId: fc.oneof(fc.string(), fc.integer()),
        price: fc.oneof(fc.integer({ min: -10, max: 0 }), fc.double(), fc.string()),
        recipient: fc.oneof(fc.record({ tradeUrl: fc.integer() }), fc.record({ recipientId: fc.constant('') }), fc.constant({})),
        tradeDurationSeconds: fc.oneof(fc.integer({ min: 0, max: 599 }), fc.integer({ min: 43_201, max: 1e6 })),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('buy.byId', 'buy.byName', 'buy.check'), nearlyValid, async (method, payload) => {
        fc.pre(!IPC_METHODS[method].input.safeParse(payload).success);
        const answer = await dispatchIpc(engine, method, payload);
        expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      }),
      { numRuns: 300 },
    );
    expect(proxy.count('/Items/Buy')).toBe(buysBefore);
  });
});
