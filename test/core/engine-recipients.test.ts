import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi, tradeUrlFor } from '../support/sandboxHttp';

describe('saved recipients: no duplicates, and editable', () => {
  let sb: Sandbox;
  let dataDir: string;
  let app: EngineHarness;

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 41 });
    const merchant = await adminApi(sb).createMerchant({ balance: 10_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-recipients-'));
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    await waitFor(() => app.session().balance !== null, 15_000, 'balance');
  });

  afterAll(async () => {
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => error as { code?: string; message: string },
    );

  it('refuses a second recipient with the same trade account or the same label, saying which one holds it; nothing is lost', async () => {
    const main = await app.call('recipients.save', { label: 'Main storage', tradeUrl: tradeUrlFor(111) });
    const sameAccount = await refusal(
      app.call('recipients.save', {
        label: 'Other',
        tradeUrl: tradeUrlFor(111).replace(/token=\w+/, 'token=NewTok99'),
      }),
    );
    expect(sameAccount).toMatchObject({ code: 'invalid_input' });
    expect(sameAccount?.message).toContain('"Main storage"');
    const sameLabel = await refusal(
      app.call('recipients.save', { label: '  main STORAGE ', tradeUrl: tradeUrlFor(222) }),
    );
    expect(sameLabel).toMatchObject({ code: 'invalid_input' });
    expect(sameLabel?.message).toContain('"Main storage"');
    expect(await app.call('recipients.list')).toEqual([main]);
  });

  it('edits a recipient in place: label and trade URL change, id and creation time stay', async () => {
    const [main] = await app.call('recipients.list');
    if (!main) throw new Error('no recipient');
    const edited = await app.call('recipients.save', {
      id: main.id,
      label: 'Vault',
      tradeUrl: tradeUrlFor(111).replace(/token=\w+/, 'token=Fresh123'),
    });
    expect(edited).toMatchObject({ id: main.id, label: 'Vault', createdAt: main.createdAt });
    expect(edited.tradeUrl).toContain('token=Fresh123');
    expect(await app.call('recipients.list')).toEqual([edited]);
    // Saving it unchanged is not a duplicate of itself.
    expect(await app.call('recipients.save', { id: main.id, label: 'Vault', tradeUrl: edited.tradeUrl })).toMatchObject(
      { id: main.id },
    );
  });
});
