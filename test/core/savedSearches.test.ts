import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { LocalStore, SCHEMA_VERSION, StoreError } from '../../src/main/core/store';
import { savedSearchQuerySchema, type SavedSearchQuery } from '../../src/shared/ipc/contract';

const dirs: string[] = [];
function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'saved-searches-'));
  dirs.push(dir);
  return join(dir, 'accounts', 'm1.sqlite');
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const open: LocalStore[] = [];
async function openStore(file: string): Promise<LocalStore> {
  const store = await LocalStore.open({ file });
  open.push(store);
  return store;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((store) => store.close()));
});

const query = (input: Record<string, unknown>): SavedSearchQuery => savedSearchQuerySchema.parse(input);
const blueGems = query({
  search: 'Case Hardened',
  seeds: [
    [661, 661],
    [955, 955],
  ],
  floatMax: 0.07,
  sort: 'float',
  direction: 'asc',
});
const cheapKnives = query({ search: 'Knife', priceMax: 50_000, discountMin: 15, sort: 'discount', direction: 'desc' });

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as Error,
  );

describe('saved searches in the account store', () => {
  it('a saved search survives a reopen, listed by name; renaming keeps its id and creation time', async () => {
    const file = tempFile();
    const store = await openStore(file);
    const knives = await store.saveSearch({ name: 'Cheap knives', query: cheapKnives });
    const gems = await store.saveSearch({ name: '  CH blue gems T1 ', query: blueGems });
    expect(gems).toMatchObject({ name: 'CH blue gems T1', query: blueGems });
    expect(gems.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await store.close();

    const reopened = await openStore(file);
    const { searches, skipped } = await reopened.listSearches();
    expect(skipped).toEqual([]);
    expect(searches.map((s) => s.name)).toEqual(['CH blue gems T1', 'Cheap knives']);
    expect(searches[0]?.query).toEqual(blueGems);

    const renamed = await reopened.saveSearch({
      id: knives.id,
      name: 'Knives under $500',
      query: { ...cheapKnives, discountMin: 20 },
    });
    expect(renamed).toMatchObject({ id: knives.id, name: 'Knives under $500', createdAt: knives.createdAt });
    expect(renamed.query.discountMin).toBe(20);
    expect((await reopened.listSearches()).searches.map((s) => s.id)).toEqual([gems.id, knives.id]);

    expect(await reopened.deleteSearch(gems.id)).toEqual({ deleted: true });
    expect(await reopened.deleteSearch(gems.id)).toEqual({ deleted: false });
    expect((await reopened.listSearches()).searches.map((s) => s.name)).toEqual(['Knives under $500']);
  });

  it('refuses a name another search holds (case and outer spaces ignored), saying which; nothing is lost', async () => {
    const store = await openStore(tempFile());
    const gems = await store.saveSearch({ name: 'Blue gems', query: blueGems });
    const other = await store.saveSearch({ name: 'Knives', query: cheapKnives });
    const duplicate = await refusal(store.saveSearch({ name: ' BLUE GEMS ', query: cheapKnives }));
    expect(duplicate).toBeInstanceOf(StoreError);
    expect(duplicate).toMatchObject({ code: 'conflict' });
    expect(duplicate?.message).toBe(
      'A search is already saved as "Blue gems": choose another name, or replace that one.',
    );
    // Renaming one onto the other's name is the same refusal; saving one under its own name is not.
    expect(await refusal(store.saveSearch({ id: other.id, name: 'blue gems', query: cheapKnives }))).toMatchObject({
      code: 'conflict',
    });
    expect(await store.saveSearch({ id: gems.id, name: 'Blue Gems', query: blueGems })).toMatchObject({
      id: gems.id,
      name: 'Blue Gems',
    });
    // A deleted search cannot be renamed back to life.
    await store.deleteSearch(other.id);
    expect(await refusal(store.saveSearch({ id: other.id, name: 'Knives', query: cheapKnives }))).toMatchObject({
      code: 'not_found',
    });
    expect((await store.listSearches()).searches.map((s) => [s.name, s.query])).toEqual([['Blue Gems', blueGems]]);
  });

  it('refuses a name empty or longer than 80 characters, and a query with paging or an unknown filter', async () => {
    const store = await openStore(tempFile());
    expect(await refusal(store.saveSearch({ name: '   ', query: blueGems }))).toBeInstanceOf(Error);
    expect(await refusal(store.saveSearch({ name: 'x'.repeat(81), query: blueGems }))).toBeInstanceOf(Error);
    expect(await store.saveSearch({ name: 'x'.repeat(80), query: blueGems })).toMatchObject({ name: 'x'.repeat(80) });
    expect(
      await refusal(store.saveSearch({ name: 'paged', query: { ...blueGems, offset: 100 } as SavedSearchQuery })),
    ).toBeInstanceOf(Error);
    expect(
      await refusal(store.saveSearch({ name: 'odd', query: { ...blueGems, colour: 'red' } as SavedSearchQuery })),
    ).toBeInstanceOf(Error);
    expect((await store.listSearches()).searches).toHaveLength(1);
  });

  it('leaves out (and reports) a stored row whose query is not JSON or no longer passes the schema; the others list', async () => {
    const file = tempFile();
    const store = await openStore(file);
    const good = await store.saveSearch({ name: 'Good', query: blueGems });
    await store.close();
    const db = new Database(file);
    const insert = db.prepare(
      'INSERT INTO saved_searches (id, name, query, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?)',
    );
    const at = '2026-11-01T00:00:00.000Z';
    insert.run('torn', 'A torn row', '{"search": "AK', at, at);
    insert.run('old', 'An old filter', JSON.stringify({ ...blueGems, sort: 'popularity' }), at, at);
    insert.run('list', 'Not a query', '[1, 2]', at, at);
    db.close();

    const reopened = await openStore(file);
    const { searches, skipped } = await reopened.listSearches();
    expect(searches).toEqual([good]);
    expect(skipped.map((s) => s.id).sort()).toEqual(['list', 'old', 'torn']);
    expect(skipped.find((s) => s.id === 'torn')?.problem).toContain('not JSON');
    expect(skipped.find((s) => s.id === 'old')?.problem).toContain('sort');
  });

  it('migrates a schema-20 file: keeps every record, adds the table, and the searches then work', async () => {
    const file = tempFile();
    const store = await openStore(file);
    const recipient = await store.saveRecipient({
      label: 'Main',
      tradeUrl: 'https://steamcommunity.com/tradeoffer/new/?partner=1&token=abcd1234',
    });
    await store.setMeta('trades_history_mark', '2026-01-01T00:00:00.000Z');
    await store.close();
    // What a schema-20 build left: the same records, no saved_searches table.
    const db = new Database(file);
    db.exec('DROP TABLE saved_searches');
    db.pragma('user_version = 20');
    db.close();

    const reopened = await openStore(file);
    expect(reopened.migratedFrom).toBe(20);
    expect(await reopened.listRecipients()).toEqual([recipient]);
    expect(await reopened.getMeta('trades_history_mark')).toBe('2026-01-01T00:00:00.000Z');
    expect(await reopened.listSearches()).toEqual({ searches: [], skipped: [] });
    const saved = await reopened.saveSearch({ name: 'After the upgrade', query: blueGems });
    await reopened.close();
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(check.prepare('SELECT id FROM saved_searches').pluck().all()).toEqual([saved.id]);
    check.close();
  });

  it('keeps saved searches when the catalog cache is dropped and re-created', async () => {
    const file = tempFile();
    const store = await openStore(file);
    const saved = await store.saveSearch({ name: 'Kept', query: blueGems });
    await store.close();
    const db = new Database(file);
    db.prepare("UPDATE meta SET value = '-1' WHERE key = 'cache.version'").run();
    db.close();
    const reopened = await openStore(file);
    expect((await reopened.listSearches()).searches).toEqual([saved]);
  });
});
