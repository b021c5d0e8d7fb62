import type { CSSProperties } from 'react';
import { Icon } from '../../components/Icon';
import { activeFilterCount, type FilterProblems, filterProblems, type TriState } from '../../lib/catalogQuery';
import { KNOWN_PHASES, RARITIES } from '../../lib/rarity';
import { clearFilters, editFilters } from '../../state/actions/catalog';
import { useStore } from '../../state/store';
import { DealFilters, WearButtons } from './DealFilters';

function TriSelect({ label, value, onChange, yes, no }: { label: string; value: TriState; onChange: (v: TriState) => void; yes: string; no: string }) {
  return (
    <select aria-label={label} className={`tri ${value !== 'any' ? 'on' : ''}`} value={value} onChange={(e) => onChange(e.target.value as TriState)}>
      <option value="any">{label}: any</option>
      <option value="yes">{yes}</option>
      <option value="no">{no}</option>
    </select>
  );
}

export function SearchBox() {
  const search = useStore((s) => s.catalog.filters.search);
  return (
    <div className="search-box">
      <Icon name="search" size={15} />
      <input
        id="catalog-search"
        type="search"
        aria-label="Search items"
        maxLength={256}
        placeholder="Search by item name…"
        autoComplete="off"
        spellCheck={false}
        value={search}
        onChange={(e) => editFilters({ search: e.target.value })}
        onKeyDown={(e) => {
          if (e.key === 'Enter') editFilters({}, true);
          if (e.key === 'ArrowDown') (document.querySelector('[role="grid"][aria-label="Catalog"]') as HTMLElement | null)?.focus();
        }}
      />
      <kbd aria-hidden="true">/</kbd>
    </div>
  );
}

export function CatalogFilters() {
  const f = useStore((s) => s.catalog.filters);
  const problems = filterProblems(f);
  const count = activeFilterCount(f);
  const shownProblems = (Object.entries(problems) as [keyof FilterProblems, string][]).filter(
    (entry): entry is [keyof typeof PROBLEM_FIELDS, string] => entry[0] in PROBLEM_FIELDS,
  );
  return (
    <div className="filter-bar two-rows" role="group" aria-label="Filters">
      <div className="filter-row">
      <SearchBox />
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
        start={
          <>
            <select aria-label="Phase" className={`tri ${f.phase ? 'on' : ''}`} value={f.phase} onChange={(e) => editFilters({ phase: e.target.value }, true)}>
              <option value="">Phase: any</option>
              {KNOWN_PHASES.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
            <div className="filter-group rarity-group" role="group" aria-label="Rarity">
              <span className="filter-label">Rarity</span>
              {RARITIES.map((r) => {
                const on = f.rarityColors.includes(r.color);
                return (
                  <button
                    key={r.color}
                    type="button"
                    className={`rarity-chip ${on ? 'on' : ''}`}
                    style={{ '--chip': r.color } as CSSProperties}
                    aria-pressed={on}
                    title={`${on ? 'Showing' : 'Show only'} ${r.name} items${f.rarityColors.length > 0 && !on ? ' too' : ''}`}
                    onClick={() =>
                      editFilters({ rarityColors: on ? f.rarityColors.filter((c) => c !== r.color) : [...f.rarityColors, r.color] }, true)
                    }
                  >
                    <span className="rarity-swatch" aria-hidden="true" />
                    {r.name}
                  </button>
                );
              })}
            </div>
            <TriSelect label="StatTrak" value={f.statTrak} yes="StatTrak™ only" no="No StatTrak™" onChange={(v) => editFilters({ statTrak: v }, true)} />
            <TriSelect label="Souvenir" value={f.souvenir} yes="Souvenir only" no="No souvenir" onChange={(v) => editFilters({ souvenir: v }, true)} />
            <TriSelect label="Stickers" value={f.hasStickers} yes="With stickers" no="Without stickers" onChange={(v) => editFilters({ hasStickers: v }, true)} />
          </>
        }
        end={
          <button type="button" className="btn ghost sm" disabled={count === 0 && f.search === ''} onClick={clearFilters}>
            Clear filters{count > 0 ? ` (${count})` : ''}
          </button>
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
} as const;
