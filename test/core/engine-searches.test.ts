import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { SavedSearch } from '../../src/shared/ipc';
import { type EngineHarness, startEngine } from '../support/faults/harness';
import { waitFor } from '../support/waitFor';
import { adminApi } from '../support/sandboxHttp';

describe('saved searches over the IPC contract', () => {
  let sb: Sandbox;
  let dataDir: string;
  let app: EngineHarness;

  beforeAll(async () => {
    sb = await startSandbox({ items: 50, seed: 43 });
    const merchant = await adminApi(sb).createMerchant({ balance: 10_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'engine-searches-'));
    app = await startEngine(dataDir, { baseUrl: sb.baseUrl, wsUrl: sb.wsUrl, ...merchant });
    await waitFor(() => app.session().balance !== null, 15_000, 'balance');
  });

  afterAll(async () => {
    await app.close();
    await sb.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const gate = (method: 'searches.save' | 'searches.delete' | 'searches.list', input: unknown) =>
    dispatchIpc(app.engine, method, input);
  const query = { search: 'Doppler', phase: 'Ruby', floatMax: 0.03, sort: 'float', direction: 'asc' } as const;

  it('refuses invalid input before the engine, saying what is wrong; nothing is stored', async () => {
    const cases: [unknown, string][] = [
      [{ name: '   ', query }, 'searches.save: name: Name the search'],
      [{ name: 'x'.repeat(81), query }, 'searches.save: name: A name is at most 80 characters'],
      [{ name: 'paged', query: { ...query, offset: 200 } }, 'searches.save: query:'],
      [{ name: 'odd sort', query: { ...query, sort: 'popularity' } }, 'searches.save: query.sort:'],
      [{ name: 'no query' }, 'searches.save: query:'],
      [{ name: 'extra', query, pinned: true }, 'searches.save:'],
    ];
    for (const [input, message] of cases) {
      const answer = await gate('searches.save', input);
      expect(answer, JSON.stringify(input)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      if (!answer.ok) expect(answer.error.message.startsWith(message), answer.error.message).toBe(true);
    }
    expect(await gate('searches.delete', { id: '' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await app.call('searches.list')).toEqual([]);
  });

  it('saves, renames and deletes; a taken name is refused naming the holder; every change is an event with that change only', async () => {
    const before = app.batches.length;
    const rubies = await app.call('searches.save', { name: 'Ruby knives', query });
    expect(rubies).toMatchObject({
      name: 'Ruby knives',
      query: { ...query, search: 'Doppler', seeds: [], discountMin: null },
    });
    await waitFor(() => app.batches.slice(before).some((b) => b.savedSearches !== undefined), 5_000, 'saved event');
    expect(app.batches.slice(before).find((b) => b.savedSearches)?.savedSearches).toEqual({
      saved: [rubies],
      deleted: [],
    });

    const duplicate = await gate('searches.save', { name: 'RUBY knives ', query: { search: 'AK' } });
    expect(duplicate).toEqual({
      ok: false,
      error: {
        code: 'invalid_input',
        message: 'A search is already saved as "Ruby knives": choose another name, or replace that one.',
      },
    });

    const renamed = await app.call('searches.save', { id: rubies.id, name: 'Rubies', query });
    expect(renamed).toMatchObject({ id: rubies.id, createdAt: rubies.createdAt });
    expect((await app.call('searches.list')).map((s: SavedSearch) => s.name)).toEqual(['Rubies']);

    expect(await app.call('searches.delete', { id: rubies.id })).toEqual({ deleted: true });
    const deleted = await waitFor(
      () => app.batches.find((b) => b.savedSearches?.deleted.includes(rubies.id)),
      5_000,
      'deleted event',
    );
    // The rename may share its batch: the deletion, the later news, is what is left of it.
    expect(deleted.savedSearches).toEqual({ saved: [], deleted: [rubies.id] });
    expect(await gate('searches.save', { id: rubies.id, name: 'Rubies', query })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('keeps at most 200: the next is refused saying so and nothing is stored; a save sends only itself, whatever the count', async () => {
    const existing = (await app.call('searches.list')).length;
    const saved: SavedSearch[] = [];
    for (let i = existing; i < 200; i++)
      saved.push(await app.call('searches.save', { name: `Search ${String(i).padStart(3, '0')}`, query }));
    const refused = await gate('searches.save', { name: 'One too many', query });
    expect(refused).toEqual({
      ok: false,
      error: { code: 'invalid_input', message: 'At most 200 searches can be saved: delete one to save another.' },
    });
    const list = await app.call('searches.list');
    expect(list).toHaveLength(200);
    expect(list.some((s: SavedSearch) => s.name === 'One too many')).toBe(false);

    // At the limit a search is still renamed or replaced; its event holds that search, not the list of 200.
    const last = saved.at(-1) as SavedSearch;
    await waitFor(
      () => app.batches.some((b) => b.savedSearches?.saved.some((s) => s.id === last.id)),
      5_000,
      'the last save sent',
    );
    const renamed = await app.call('searches.save', { id: last.id, name: 'Renamed at the limit', query });
    const batch = await waitFor(
      () => app.batches.find((b) => b.savedSearches?.saved.some((s) => s.name === renamed.name)),
      5_000,
      'the rename sent',
    );
    expect(batch.savedSearches).toEqual({ saved: [renamed], deleted: [] });
    expect(JSON.stringify(batch).length).toBeLessThan(2_000);

    // Deleting one makes room again.
    await app.call('searches.delete', { id: last.id });
    expect(await app.call('searches.save', { name: 'Room again', query })).toMatchObject({ name: 'Room again' });
    for (const search of await app.call('searches.list')) await app.call('searches.delete', { id: search.id });
  });

  it('lists around a stored row whose query no longer reads, and logs which one', async () => {
    const good = await app.call('searches.save', { name: 'Good one', query });
    const db = new Database(app.session().store.file);
    db.pragma('busy_timeout = 5000');
    db.prepare('INSERT INTO saved_searches (id, name, query, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?)').run(
      'broken-row',
      'Broken',
      '{"search": 5}',
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T00:00:00.000Z',
    );
    db.close();
    expect(await app.call('searches.list')).toEqual([good]);
    expect(
      app.logs.some((line) => line.includes('saved search broken-row ("Broken") left out') && line.includes('search:')),
    ).toBe(true);
  });
});
