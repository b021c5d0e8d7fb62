import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { IpcParsedInput } from '../../src/shared/ipc';
import { Engine, type IpcHandlers } from '../../src/main/core/engine/engine';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import { MemorySecretStore } from '../../src/main/core/secrets';
import { tradeUrlFor } from '../support/sandboxHttp';

/*
 * The engine's method table is typed by the contract: `npm run typecheck` compiles this file, and each line marked
 * @ts-expect-error must fail to compile (if one compiled, the marker itself would be the error). Never called.
 */
export function miswiredTables(handlers: IpcHandlers): IpcHandlers[] {
  const miswired: IpcHandlers = {
    ...handlers,
    // @ts-expect-error trades.get's handler takes a tradeId, catalog.item gives an itemId
    'catalog.item': handlers['trades.get'],
    // @ts-expect-error a handler that reads a field its method's input does not have
    'recipients.delete': async (input: IpcParsedInput<'trades.get'>) => ({ deleted: input.tradeId !== '' }),
    // @ts-expect-error a handler whose result is another method's
    'alerts.rules': handlers['recipients.list'],
  };
  // @ts-expect-error a table missing a method
  const incomplete: IpcHandlers = { 'app.snapshot': handlers['app.snapshot'] };
  return [miswired, incomplete];
}

describe('the engine’s method table', () => {
  const dirs: string[] = [];
  const engines: Engine[] = [];

  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('hands each method its own validated input', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engine-handlers-'));
    dirs.push(dataDir);
    // Nothing listens at this address: the account's cache opens and stays offline, which is all this needs.
    const engine = new Engine({
      dataDir,
      secrets: new MemorySecretStore(),
      log: () => {},
      startDemo: () => Promise.reject(new Error('no demo in this test')),
      override: {
        baseUrl: 'http://127.0.0.1:9',
        wsUrl: 'ws://127.0.0.1:9/ws',
        merchantId: 'handlers',
        apiKey: 'account-key-0123456789',
      },
    });
    engines.push(engine);
    await engine.start();
    const call = async (method: string, input: unknown = {}) => {
      const answer = await dispatchIpc(engine, method, input);
      if (!answer.ok) throw new Error(`${method}: ${answer.error.message}`);
      return answer.value;
    };

    const saved = (await call('recipients.save', { label: 'Main', tradeUrl: tradeUrlFor(12_345_678) })) as {
      id: string;
    };
    expect(await call('recipients.list')).toEqual([expect.objectContaining({ id: saved.id, label: 'Main' })]);
    expect(await call('recipients.delete', { id: saved.id })).toEqual({ deleted: true });
    expect(await call('recipients.delete', { id: saved.id })).toEqual({ deleted: false });
    expect(await call('catalog.item', { itemId: 424_242 })).toBeNull();
    expect(await call('trades.get', { tradeId: 'no-such-trade' })).toBeNull();
    expect(await call('wallet.ledger', { offset: 5, limit: 7 })).toMatchObject({
      rows: [],
      total: 0,
      offset: 5,
      limit: 7,
    });
    expect(await call('settings.update', { theme: 'light' })).toMatchObject({ theme: 'light' });

    // The background share of the request budget: the account's limiter follows it; out-of-range values are refused.
    const limiter = engine.limiterFor('handlers');
    const bulkGrants = () => {
      let granted = 0;
      while (limiter.tryAcquire('default', 'bulk')) granted++;
      return granted;
    };
    // Paging holds half of 300 less the live reserve by default, 135 (the engine's own sync may hold a few of them
    // already), then at 70 % 210 less 21: 54 more.
    expect(bulkGrants()).toBeGreaterThan(0);
    expect(await call('settings.update', { bulkSharePercent: 70 })).toMatchObject({ bulkSharePercent: 70 });
    expect(bulkGrants()).toBe(54);
    for (const bad of [95, 5, 50.5, '50']) {
      expect(await dispatchIpc(engine, 'settings.update', { bulkSharePercent: bad })).toMatchObject({
        ok: false,
        error: { code: 'invalid_input' },
      });
    }
    expect(await call('app.snapshot')).toMatchObject({ settings: { bulkSharePercent: 70 } });
    expect(await dispatchIpc(engine, 'recipients.save', { label: 'Bad', tradeUrl: 'https://example.com/' })).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('Not a trade offer URL') as unknown },
    });
  }, 60_000);
});
