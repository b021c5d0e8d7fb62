import type { SavedSearch } from '../../../../shared/ipc/contract';

/** The account's saved searches, by name (as the engine lists them). */
export interface SearchesSlice {
  list: SavedSearch[];
  status: 'idle' | 'loading' | 'ready' | 'error';
}

export const initialSearches: SearchesSlice = { list: [], status: 'idle' };
