import type { SavedSearch } from '../../../../shared/ipc/contract';
import type { SavedSearchChanges } from '../../../../shared/ipc/events';

/** The account's saved searches, by name (as the engine lists them). */
export interface SearchesSlice {
  list: SavedSearch[];
  status: 'idle' | 'loading' | 'ready' | 'error';
}

export const initialSearches: SearchesSlice = { list: [], status: 'idle' };

const byName = (a: SavedSearch, b: SavedSearch) =>
  a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || a.id.localeCompare(b.id);

/** The list with the engine's changes applied (a save replaces the search of its id), by name. */
export function withSearchChanges(list: SavedSearch[], changes: SavedSearchChanges): SavedSearch[] {
  const gone = new Set([...changes.deleted, ...changes.saved.map((search) => search.id)]);
  return [...list.filter((search) => !gone.has(search.id)), ...changes.saved].sort(byName);
}
