import type { SavedSearch } from '../../../../shared/ipc/contract';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { queryOfForm } from '../../lib/savedSearch';
import { withSearchChanges } from '../slices/searches';
import { readWithBatches } from '../batchesSince';
import { getState, update } from '../store';
import { saveRule } from './alerts';
import { navigate, openQuery } from './navigation';
import { toast } from './toast';

export async function loadSearches(): Promise<void> {
  update('searches', (s) => ({ ...s, status: s.status === 'ready' ? 'ready' : 'loading' }));
  try {
    const { answer, since } = await readWithBatches(() => unwrap(api().searches.list({})));
    // Saves and deletions that came while the list was read may be newer than it.
    const list = since.reduce(
      (held, { savedSearches }) => (savedSearches ? withSearchChanges(held, savedSearches) : held),
      answer,
    );
    update('searches', () => ({ list, status: 'ready' }));
  } catch (error) {
    update('searches', (s) => ({ ...s, status: 'error' }));
    toast('error', 'Could not load saved searches', errorMessage(error));
  }
}

/** The saved search named `name` (case and outer spaces ignored), if any. */
export function searchNamed(name: string): SavedSearch | undefined {
  const wanted = name.trim().toLowerCase();
  return getState().searches.list.find((s) => s.name.trim().toLowerCase() === wanted);
}

/** Saves the catalog's current filters and sort under `name`; `replaceId` replaces that search's query. Throws with the engine's message. */
export async function saveCurrentSearch(name: string, replaceId?: string): Promise<SavedSearch> {
  const { filters, sort } = getState().catalog;
  const saved = await unwrap(
    api().searches.save({ ...(replaceId ? { id: replaceId } : {}), name, query: queryOfForm(filters, sort) }),
  );
  update('searches', (s) => ({ ...s, list: withSearchChanges(s.list, { saved: [saved], deleted: [] }) }));
  return saved;
}

/** Renames a saved search (its query unchanged). Throws with the engine's message. */
export async function renameSearch(search: SavedSearch, name: string): Promise<SavedSearch> {
  const saved = await unwrap(api().searches.save({ id: search.id, name, query: search.query }));
  update('searches', (s) => ({ ...s, list: withSearchChanges(s.list, { saved: [saved], deleted: [] }) }));
  return saved;
}

export async function deleteSearch(search: SavedSearch): Promise<void> {
  try {
    await unwrap(api().searches.delete({ id: search.id }));
    update('searches', (s) => ({ ...s, list: withSearchChanges(s.list, { saved: [], deleted: [search.id] }) }));
    toast('info', 'Saved search deleted', search.name);
  } catch (error) {
    toast('error', 'Could not delete the saved search', errorMessage(error));
  }
}

/** Shows the catalog with the saved search's filters and sort. */
export function openSearch(search: SavedSearch): void {
  openQuery(search.query, `“${search.name}”`);
}

/** Creates the alert rule a watch of this search is (see watchOf); throws with the engine's message. */
export async function createWatch(input: Parameters<typeof saveRule>[0]): Promise<void> {
  const rule = await saveRule(input);
  navigate('alerts');
  toast(
    'success',
    'Watch created',
    `“${rule.name}” notifies on new matching listings. Edit the rule to switch on auto-buy.`,
  );
}
