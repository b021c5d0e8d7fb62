/**
 * Named seed lists in the app's settings (issue 26): saved through `settings.update` (checked in main),
 * refused with the reason when bad (the saved ones kept), and still there when the engine opens its data
 * directory again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { AppSettings } from '../../src/shared/ipc';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi } from '../support/sandboxHttp';

describe('named seed lists in the settings, against the real sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness;
  const account = () => ({ baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
  const settings = async (): Promise<AppSettings> => (await app.call('app.snapshot', {})).settings;

  beforeEach(async () => {
    sb = await startSandbox({ items: 20, seed: 26 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-seed-lists-'));
    app = await startEngine(dataDir, account());
  });

  afterEach(async () => {
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('saves lists under their names (trimmed, the seeds as parsed), refuses bad ones with the reason, and keeps them across a reopen', async () => {
    expect((await settings()).seedLists).toEqual([]);
    const saved = await dispatchIpc(app.engine, 'settings.update', {
      seedLists: [
        { name: '  CH blue gems T1 ', seeds: '661, 670;955\n1-25, 3' },
        { name: 'Fade 100%', seeds: '763' },
      ],
    });
    const lists = [
      { name: 'CH blue gems T1', seeds: '1-25, 661, 670, 955' },
      { name: 'Fade 100%', seeds: '763' },
    ];
    expect(saved).toEqual({ ok: true, value: expect.objectContaining({ seedLists: lists }) });

    const refusals: [unknown, string][] = [
      [[{ name: '   ', seeds: '1' }], 'settings.update: seedLists.0.name: Name the seed list'],
      [
        [{ name: 'x'.repeat(61), seeds: '1' }],
        "settings.update: seedLists.0.name: A seed list's name is at most 60 characters",
      ],
      [
        [{ name: 'Typo', seeds: '661, 9x5' }],
        'settings.update: seedLists.0.seeds: "9x5" is not a number or a range like 1-25',
      ],
      [[{ name: 'Past', seeds: '1000' }], 'settings.update: seedLists.0.seeds: "1000" is past 999'],
      [[{ name: 'Empty', seeds: ' , ' }], 'settings.update: seedLists.0.seeds: The seed list holds no seed'],
      [
        [...lists, { name: 'ch BLUE gems t1', seeds: '1' }],
        'settings.update: seedLists.2.name: Two seed lists are named "ch BLUE gems t1"',
      ],
      [
        Array.from({ length: 101 }, (_, i) => ({ name: `List ${i}`, seeds: String(i) })),
        'settings.update: seedLists: At most 100 seed lists',
      ],
      [[{ name: 'Extra', seeds: '1', color: 'blue' }], 'settings.update: seedLists.0: Unrecognized key: "color"'],
    ];
    for (const [seedLists, message] of refusals) {
      expect(await dispatchIpc(app.engine, 'settings.update', { seedLists, theme: 'light' })).toEqual({
        ok: false,
        error: expect.objectContaining({ code: 'invalid_input', message }),
      });
    }
    // Nothing of a refused change was taken: the lists and the theme are as before.
    expect(await settings()).toMatchObject({ seedLists: lists, theme: 'dark' });

    // 100 lists are fine; deleting one sends the rest.
    const hundred = Array.from({ length: 100 }, (_, i) => ({
      name: `List ${String(i).padStart(3, '0')}`,
      seeds: String(i),
    }));
    expect(await dispatchIpc(app.engine, 'settings.update', { seedLists: hundred })).toMatchObject({ ok: true });
    expect(await dispatchIpc(app.engine, 'settings.update', { seedLists: lists.slice(1) })).toMatchObject({ ok: true });

    await app.close();
    app = await startEngine(dataDir, account());
    expect((await settings()).seedLists).toEqual(lists.slice(1));
  }, 60_000);
});
