import type { ReactNode } from 'react';
import { Icon } from '../../components/Icon';
import {
  activeFilterCount,
  type CatalogFilters as FilterForm,
  type FilterProblems,
  filterProblems,
} from '../../lib/catalogQuery';
import { KNOWN_PHASES } from '../../lib/rarity';
import { clearFilters } from '../../state/actions/catalog';
import { useStore } from '../../state/store';
import { DealFilters, TriSelect, WearButtons } from './DealFilters';
import { useEditFilters } from './filterEdit';

/** The search words; `value` and `id` for a form that holds its own filters (the catalog's search box answers to "/"). */
export function SearchBox({ value, id = 'catalog-search' }: { value?: string; id?: string } = {}) {
  const stored = useStore((s) => s.catalog.filters.search);
  const editFilters = useEditFilters();
  const search = value ?? stored;
  const catalog = id === 'catalog-search';
  return (
    <div className="search-box">
      <Icon name="search" size={15} />
      <input
        id={id}
        type="search"
        aria-label={catalog ? 'Search items' : 'Name contains'}
        maxLength={256}
        placeholder={catalog ? 'Search by item name…' : 'Words of the name, e.g. Karambit Doppler'}
        autoComplete="off"
        spellCheck={false}
        value={search}
        onChange={(e) => editFilters({ search: e.target.value })}
        onKeyDown={(e) => {
          if (e.key === 'Enter') editFilters({}, true);
          if (catalog && e.key === 'ArrowDown')
            (document.querySelector('[role="grid"][aria-label="Catalog"]') as HTMLElement | null)?.focus();
        }}
      />
      {catalog ? <kbd aria-hidden="true">/</kbd> : null}
    </div>
  );
}

/**
 * The catalog's filter controls, over the catalog's filters; a form that holds its own (a rule's) passes them as
 * `form` (with `end`, its own last button, and `idPrefix`, its element ids) inside its FilterEditContext.
 */
export function CatalogFilters({
  form,
  end,
  idPrefix = 'filters',
}: { form?: FilterForm; end?: ReactNode; idPrefix?: string } = {}) {
  const stored = useStore((s) => s.catalog.filters);
  const f = form ?? stored;
  const editFilters = useEditFilters();
  const problems = filterProblems(f);
  const count = activeFilterCount(f);
  const shownProblems = (Object.entries(problems) as [keyof FilterProblems, string][]).filter(
    (entry): entry is [keyof typeof PROBLEM_FIELDS, string] => entry[0] in PROBLEM_FIELDS,
  );
  return (
    <div className="filter-bar two-rows" role="group" aria-label="Filters">
      <div className="filter-row">
        <SearchBox {...(form ? { value: f.search, id: `${idPrefix}-search` } : {})} />
        <div className="filter-group" role="group" aria-label="Price range in dollars">
          <span className="filter-label">Price</span>
          <span className={`affix ${problems.priceMin ? 'bad' : ''}`}>
            <span aria-hidden="true">$</span>
            <input
              aria-label="Minimum price"
              inputMode="decimal"
              placeholder="min"
              title={problems.priceMin}
              aria-invalid={problems.priceMin ? true : undefined}
              value={f.priceMin}
              onChange={(e) => editFilters({ priceMin: e.target.value })}
            />
          </span>
          <span className="dash">–</span>
          <span className={`affix ${problems.priceMax ? 'bad' : ''}`}>
            <span aria-hidden="true">$</span>
            <input
              aria-label="Maximum price"
              inputMode="decimal"
              placeholder="max"
              title={problems.priceMax}
              aria-invalid={problems.priceMax ? true : undefined}
              value={f.priceMax}
              onChange={(e) => editFilters({ priceMax: e.target.value })}
            />
          </span>
        </div>
        <div className="filter-group" role="group" aria-label="Float range">
          <span className="filter-label">Float</span>
          <input
            className={`float-input ${problems.floatMin ? 'bad' : ''}`}
            aria-label="Minimum float"
            inputMode="decimal"
            placeholder="0.00"
            title={problems.floatMin}
            aria-invalid={problems.floatMin ? true : undefined}
            value={f.floatMin}
            onChange={(e) => editFilters({ floatMin: e.target.value })}
          />
          <span className="dash">–</span>
          <input
            className={`float-input ${problems.floatMax ? 'bad' : ''}`}
            aria-label="Maximum float"
            inputMode="decimal"
            placeholder="1.00"
            title={problems.floatMax}
            aria-invalid={problems.floatMax ? true : undefined}
            value={f.floatMax}
            onChange={(e) => editFilters({ floatMax: e.target.value })}
          />
        </div>
        <WearButtons wears={f.wears} />
        <input
          className="sticker-input"
          aria-label="Sticker name"
          maxLength={256}
          placeholder="Sticker name"
          value={f.stickerName}
          onChange={(e) => editFilters({ stickerName: e.target.value })}
        />
      </div>
      <DealFilters
        f={f}
        problems={problems}
        idPrefix={idPrefix}
        start={
          <>
            <select
              aria-label="Phase"
              className={`tri ${f.phase ? 'on' : ''}`}
              value={f.phase}
              onChange={(e) => editFilters({ phase: e.target.value }, true)}
            >
              <option value="">Phase: any</option>
              {KNOWN_PHASES.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
            <TriSelect
              label="StatTrak"
              value={f.statTrak}
              yes="StatTrak™ only"
              no="No StatTrak™"
              onChange={(v) => editFilters({ statTrak: v }, true)}
            />
            <TriSelect
              label="Souvenir"
              value={f.souvenir}
              yes="Souvenir only"
              no="No souvenir"
              onChange={(v) => editFilters({ souvenir: v }, true)}
            />
          </>
        }
        end={
          end ?? (
            <button
              type="button"
              className="btn ghost sm"
              disabled={count === 0 && f.search === ''}
              onClick={clearFilters}
            >
              Clear filters{count > 0 ? ` (${count})` : ''}
            </button>
          )
        }
      />
      {/* A value the filter cannot use is said in words: the rows shown ignore it. (A pasted list says
          its error beside its field, and the query keeps the last list that parsed.) */}
      {shownProblems.length > 0 ? (
        <div className="filter-row filter-problems" role="alert">
          {shownProblems.map(([field, text]) => (
            <span key={field}>
              {PROBLEM_FIELDS[field]}: {text} — not applied.
            </span>
          ))}
        </div>
      ) : null}
    </div>
  );
}

const PROBLEM_FIELDS = {
  priceMin: 'Minimum price',
  priceMax: 'Maximum price',
  floatMin: 'Minimum float',
  floatMax: 'Maximum float',
  stickerCountMin: 'Sticker count',
  sameStickerMin: 'Same sticker',
  stickerNames: 'Any of stickers',
  discountMin: 'Under reference by',
  floatRankMax: 'Float rank',
  listingsMin: 'On sale',
} as const;
