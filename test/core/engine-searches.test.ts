import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchIpc } from '../../src/main/core/ipc/dispatch';
import type { Sandbox } from '../../src/server/sandbox';
import { startSandbox } from '../../src/server/sandbox';
import type { SavedSearch } from '../../src/shared/ipc';
import { type EngineHarness, startEngine, waitFor } from '../support/faults/harness';
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

  const gate = (method: 'searches.save' | 'searches.delete' | 'searches.list', input: unknown) => dispatchIpc(app.engine, method, input);
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

  it('saves, renames and deletes; a taken name is refused naming the holder; every change is an event with the list', async () => {
    const before = app.batches.length;
    const rubies = await app.call('searches.save', { name: 'Ruby knives', query });
    expect(rubies).toMatchObject({ name: 'Ruby knives', query: { ...query, search: 'Doppler', seeds: [], discountMin: null } });
    await waitFor(() => app.batches.slice(before).some((b) => b.savedSearches?.some((s) => s.id === rubies.id)), 5_000, 'saved event');

    const duplicate = await gate('searches.save', { name: 'RUBY knives ', query: { search: 'AK' } });
    expect(duplicate).toEqual({ ok: false, error: { code: 'invalid_input', message: 'A search is already saved as "Ruby knives": choose another name, or replace that one.' } });

    const renamed = await app.call('searches.save', { id: rubies.id, name: 'Rubies', query });
    expect(renamed).toMatchObject({ id: rubies.id, createdAt: rubies.createdAt });
    expect((await app.call('searches.list')).map((s: SavedSearch) => s.name)).toEqual(['Rubies']);

    const mark = app.batches.length;
    expect(await app.call('searches.delete', { id: rubies.id })).toEqual({ deleted: true });
    await waitFor(() => app.batches.slice(mark).some((b) => b.savedSearches !== undefined && b.savedSearches.length === 0), 5_000, 'deleted event');
    expect(await gate('searches.save', { id: rubies.id, name: 'Rubies', query })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('lists around a stored row whose query no longer reads, and logs which one', async () => {
    const good = await app.call('searches.save', { name: 'Good one', query });
    const db = new Database(app.session().store.file);
    db.pragma('busy_timeout = 5000');
    db.prepare('INSERT INTO saved_searches (id, name, query, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?)').run(
      'broken-row', 'Broken', '{"search": 5}', '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z',
    );
    db.close();
    expect(await app.call('searches.list')).toEqual([good]);
    expect(app.logs.some((line) => line.includes('saved search broken-row ("Broken") left out') && line.includes('search:'))).toBe(true);
  });
});
