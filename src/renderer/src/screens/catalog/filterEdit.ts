import { createContext, useContext } from 'react';
import type { CatalogFilters } from '../../lib/catalogQuery';
import { editFilters } from '../../state/actions/catalog';

/** An edit of a filter form; `immediate`: apply it now rather than after typing pauses. */
export type FilterEdit = (patch: Partial<CatalogFilters>, immediate?: boolean) => void;

/** Where the filter controls send their edits: the catalog's filters, unless a form that holds its own (a rule) provides another. */
export const FilterEditContext = createContext<FilterEdit>(editFilters);

export function useEditFilters(): FilterEdit {
  return useContext(FilterEditContext);
}
