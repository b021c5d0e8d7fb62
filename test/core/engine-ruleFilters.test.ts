/**
 * Alert rules hold the catalog's filters, against the real sandbox: a rule with a seed list, a charm and a
 * discount fires on a new listing that matches them all and on none that misses one; a rule stored before
 * rules held filters fires as it did; bad filters are refused with a clear error and nothing is stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { Item, KeyChain } from '../../src/shared/api';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import type { MerchantCredentials } from '../support/sandboxHttp';
import { adminApi } from '../support/sandboxHttp';

const CHARM: KeyChain = { name: 'Charm | Lil Ava', img: 'https://img.invalid/charm.png', slot: 0, pattern: 7 };

describe('alert rules with the catalog filters, against the real sandbox', () => {
  let sb: Sandbox;
  let merchant: MerchantCredentials;
  let dataDir: string;
  let app: EngineHarness | null = null;

  async function launch(): Promise<EngineHarness> {
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    const started = app;
    await waitFor(() => started.session().connection.state === 'connected', 15_000, 'feed');
    await waitFor(async () => (await started.call('catalog.query', { limit: 1 })).total > 0, 20_000, 'catalog');
    return started;
  }

  /** Lists these items (in one frame); each spec sets what the test reads, no random stickers or charms. */
  const list = (
    specs: {
      itemId: number;
      name: string;
      price: number;
      paintSeed: number;
      float?: number;
      keyChains?: KeyChain[];
      stickers?: string[];
    }[],
  ) =>
    adminApi(sb).post<{ items: Item[] }>('/admin/items', {
      items: specs.map((s) => ({
        itemId: s.itemId,
        market_hash_name: s.name,
        price: s.price,
        phase: null,
        paintSeed: s.paintSeed,
        float: s.float ?? 0.2,
        keyChains: s.keyChains ?? [],
        stickers: (s.stickers ?? []).map((name, slot) => ({
          name,
          img: 'https://img.invalid/sticker.png',
          slot,
          wear: null,
        })),
      })),
    });

  const firedItems = async (harness: EngineHarness, ruleId: string) =>
    (await harness.call('alerts.firings'))
      .filter((f) => f.ruleId === ruleId)
      .map((f) => f.itemId)
      .sort();

  beforeEach(async () => {
    sb = await startSandbox({ items: 200, seed: 31 });
    merchant = await adminApi(sb).createMerchant({ balance: 1_000_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-rule-filters-'));
  });

  afterEach(async () => {
    await app?.close();
    app = null;
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fires on a new listing in the seed list, with a charm and at least 20 % under its reference, and on none that misses one', async () => {
    const harness = await launch();
    const name = '★ Filter Test Knife | Case Hardened (Field-Tested)';
    // The name's market: four listings at $100 (none in the list, none with a charm).
    await list([0, 1, 2, 3].map((i) => ({ itemId: 96_000_001 + i, name, price: 10_000, paintSeed: 300 + i })));
    await waitFor(
      async () => (await harness.call('catalog.query', { search: 'Filter Test Knife' })).total === 4,
      10_000,
      'the market cached',
    );
    const rule = await harness.call('alerts.saveRule', {
      name: 'CH blue gems',
      filters: {
        search: 'Filter Test Knife',
        seeds: [
          [1, 25],
          [661, 661],
          [670, 670],
        ],
        hasCharm: true,
        discountMin: 20,
      },
      maxPrice: 100_000,
    });
    expect(rule.filters).toMatchObject({
      seeds: [
        [1, 25],
        [661, 661],
        [670, 670],
      ],
      hasCharm: true,
      discountMin: 20,
      search: 'Filter Test Knife',
    });
    expect(await firedItems(harness, rule.id)).toEqual([]);

    // One frame: the match and three that miss one filter each. The reference is the median of the five plain
    // listings (the charmed ones apart), $100: $50 is 50 % under it, $98 2 %.
    await list([
      { itemId: 96_000_101, name, price: 5000, paintSeed: 661, keyChains: [CHARM] },
      { itemId: 96_000_102, name, price: 5000, paintSeed: 662, keyChains: [CHARM] },
      { itemId: 96_000_103, name, price: 5000, paintSeed: 670 },
      { itemId: 96_000_104, name, price: 9800, paintSeed: 12, keyChains: [CHARM] },
    ]);
    await waitFor(async () => (await firedItems(harness, rule.id)).length > 0, 10_000, 'the rule fired');
    // The frame's items are decided together: once the match fired, the others were decided too.
    expect(await firedItems(harness, rule.id)).toEqual([96_000_101]);
    const [row] = (await harness.call('catalog.query', { search: 'Filter Test Knife', seeds: [[661, 661]] })).rows;
    expect(row?.market?.discount).toBe(50);
  }, 60_000);

  it('fires a rule stored before rules held filters as it did: its name pattern, float range, sticker and maximum price', async () => {
    let harness = await launch();
    const saved = await harness.call('alerts.saveRule', { name: 'Legacy', maxPrice: 5000 });
    await harness.close();
    app = null;
    // What an older app wrote for this rule.
    const db = new Database(accountStoreFile(dataDir, merchant.merchantId, 'account'));
    const legacy = {
      ...saved,
      filters: undefined,
      namePattern: 'Legacy Blade | Slaughter',
      phase: null,
      floatMin: 0.1,
      floatMax: 0.3,
      stickerNames: ['crown'],
    };
    db.prepare('UPDATE alert_rules SET json = ? WHERE id = ?').run(JSON.stringify(legacy), saved.id);
    db.close();

    harness = await launch();
    const [rule] = await harness.call('alerts.rules');
    expect(rule).toMatchObject({
      id: saved.id,
      maxPrice: 5000,
      filters: {
        search: 'Legacy Blade | Slaughter',
        floatMin: 0.1,
        floatMax: 0.3,
        stickerNames: ['crown'],
        phase: null,
      },
    });
    const name = 'Legacy Blade | Slaughter (Minimal Wear)';
    await list([
      { itemId: 96_000_202, name, price: 4000, paintSeed: 1, float: 0.35, stickers: ['Crown (Foil)'] },
      { itemId: 96_000_203, name, price: 4000, paintSeed: 1, float: 0.2 },
      { itemId: 96_000_204, name, price: 5001, paintSeed: 1, float: 0.2, stickers: ['Crown (Foil)'] },
      {
        itemId: 96_000_205,
        name: 'Legacy Blade | Fade (Minimal Wear)',
        price: 4000,
        paintSeed: 1,
        float: 0.2,
        stickers: ['Crown (Foil)'],
      },
      // Last: once it fired, the frame's others were decided.
      { itemId: 96_000_201, name, price: 4000, paintSeed: 1, float: 0.2, stickers: ['Crown (Foil)'] },
    ]);
    await waitFor(async () => (await firedItems(harness, saved.id)).length > 0, 10_000, 'the legacy rule fired');
    expect(await firedItems(harness, saved.id)).toEqual([96_000_201]);
  }, 60_000);

  it('refuses bad filters with a clear error and stores nothing', async () => {
    const harness = await launch();
    const save = (input: unknown) => dispatchIpc(harness.engine, 'alerts.saveRule', input);
    expect(await save({ name: 'backwards', filters: { seeds: [[25, 1]] } })).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: 'alerts.saveRule: filters.seeds.0: a range runs backwards' },
    });
    expect(await save({ name: 'past 999', filters: { seeds: [[1, 1000]] } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('filters.seeds.0.1') },
    });
    expect(await save({ name: 'a list as text', filters: { seeds: '661, 670' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringContaining('filters.seeds') },
    });
    expect(await save({ name: 'over 100 %', filters: { discountMin: 150 } })).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_input',
        message: expect.stringMatching(/^alerts\.saveRule: filters\.discountMin: .*100/),
      },
    });
    expect(await save({ name: 'none on sale', filters: { listingsMin: 0 } })).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: 'alerts.saveRule: filters.listingsMin: listings on sale: at least 1' },
    });
    expect(await save({ name: 'half a listing', filters: { listingsMin: 2.5 } })).toEqual({
      ok: false,
      error: {
        code: 'invalid_input',
        message: 'alerts.saveRule: filters.listingsMin: listings on sale: a whole number',
      },
    });
    expect(await save({ name: 'a sort', filters: { sort: 'price' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_input' },
    });
    expect(await harness.call('alerts.rules')).toEqual([]);
  }, 60_000);
});
