import { type CSSProperties, type ReactNode, useState } from 'react';
import { WEAR_BANDS, WEARS } from '../../../../shared/filters';
import type { CatalogFilters, DealFilterGroup, FilterProblems, TriState } from '../../lib/catalogQuery';
import { dealFilterCounts } from '../../lib/catalogQuery';
import { formatInt } from '../../lib/format';
import { readPref, writePref } from '../../lib/persist';
import { RARITIES } from '../../lib/rarity';
import { useEditFilters } from './filterEdit';
import { SeedLists } from './SeedLists';

const GROUPS: readonly { id: DealFilterGroup; title: string }[] = [
  { id: 'rarity', title: 'Rarity' },
  { id: 'pattern', title: 'Seed list' },
  { id: 'charms', title: 'Charms' },
  { id: 'stickers', title: 'Sticker combos' },
  { id: 'market', title: 'Deals' },
];

const OPEN_PREF = 'catalog-filter-sections';

export function TriSelect({
  label,
  value,
  onChange,
  yes,
  no,
}: {
  label: string;
  value: TriState;
  onChange: (v: TriState) => void;
  yes: string;
  no: string;
}) {
  return (
    <select
      aria-label={label}
      className={`tri ${value !== 'any' ? 'on' : ''}`}
      value={value}
      onChange={(e) => onChange(e.target.value as TriState)}
    >
      <option value="any">{label}: any</option>
      <option value="yes">{yes}</option>
      <option value="no">{no}</option>
    </select>
  );
}

/** The rarity chips: an item of any pressed rarity matches. */
function RarityChips({ colors }: { colors: CatalogFilters['rarityColors'] }) {
  const editFilters = useEditFilters();
  return RARITIES.map((r) => {
    const on = colors.includes(r.color);
    return (
      <button
        key={r.color}
        type="button"
        className={`rarity-chip ${on ? 'on' : ''}`}
        style={{ '--chip': r.color } as CSSProperties}
        aria-pressed={on}
        title={`${on ? 'Showing' : 'Show only'} ${r.name} items${colors.length > 0 && !on ? ' too' : ''}`}
        onClick={() =>
          editFilters({ rarityColors: on ? colors.filter((c) => c !== r.color) : [...colors, r.color] }, true)
        }
      >
        <span className="rarity-swatch" aria-hidden="true" />
        {r.name}
      </button>
    );
  });
}

/** The wear buttons beside the float range: a float in any pressed band matches. */
export function WearButtons({ wears }: { wears: CatalogFilters['wears'] }) {
  const editFilters = useEditFilters();
  return (
    <div className="filter-group wear-group" role="group" aria-label="Wear">
      {WEARS.map((wear) => {
        const on = wears.includes(wear);
        const band = WEAR_BANDS[wear];
        return (
          <button
            key={wear}
            type="button"
            className={`wear-btn ${on ? 'on' : ''}`}
            aria-pressed={on}
            title={`${band.label}: float ${band.min.toFixed(2)}–${Math.min(band.max, 1).toFixed(2)}`}
            onClick={() => editFilters({ wears: on ? wears.filter((w) => w !== wear) : [...wears, wear] }, true)}
          >
            {wear}
            <span className="sr-only"> ({band.label})</span>
          </button>
        );
      })}
    </div>
  );
}

/** How many seeds a list covers, for the line under the field. */
function seedCount(ranges: CatalogFilters['seedRanges']): number {
  return ranges.reduce((sum, [low, high]) => sum + high - low + 1, 0);
}

function TextFilter({
  label,
  value,
  onChange,
  placeholder,
  className = '',
  problem,
  problemId,
  inputMode,
  name,
  suffix,
}: {
  label: string;
  /** The field's accessible name when the visible words around it do not read as one. */
  name?: string;
  /** Words after the field ("%", "stickers"). */
  suffix?: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  className?: string;
  problem?: string | undefined;
  problemId?: string;
  inputMode?: 'numeric' | 'decimal';
}) {
  const editFilters = useEditFilters();
  return (
    <label className="filter-group">
      <span className="filter-label">{label}</span>
      <input
        className={`${className} ${problem ? 'bad' : ''}`}
        maxLength={2000}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        inputMode={inputMode}
        aria-label={name}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem && problemId ? problemId : undefined}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') editFilters({}, true);
        }}
      />
      {suffix ? <span className="filter-label">{suffix}</span> : null}
    </label>
  );
}

/** A list field's error, said beside it (the query keeps the last list that parsed). */
function ListError({ id, problem }: { id: string; problem: string | undefined }) {
  return problem ? (
    <span id={id} className="field-error list-error" role="alert">
      {problem}
    </span>
  ) : null;
}

function Section({ id, title, open, children }: { id: string; title: string; open: boolean; children: ReactNode }) {
  return (
    <div id={id} className="filter-row filter-section" role="group" aria-label={title} hidden={!open}>
      <span className="section-title" aria-hidden="true">
        {title}
      </span>
      {children}
    </div>
  );
}

function readOpen(): DealFilterGroup[] {
  const saved = readPref(OPEN_PREF);
  return saved ? (saved.split(',').filter((id) => GROUPS.some((g) => g.id === id)) as DealFilterGroup[]) : [];
}

/**
 * The filters past the bar's two rows (rarity, seed lists, charms, sticker combos, discount, listings on sale and float
 * rank) in sections that open from toggles at the end of its second row (`start` its other filters, `end` its last
 * button), so the bar keeps to two lines; a closed section with filters set says how many.
 */
export function DealFilters({
  f,
  problems,
  start,
  end,
  idPrefix = 'filters',
}: {
  f: CatalogFilters;
  problems: FilterProblems;
  start: ReactNode;
  end: ReactNode;
  idPrefix?: string;
}) {
  const editFilters = useEditFilters();
  const [open, setOpen] = useState<DealFilterGroup[]>(() => {
    const counts = dealFilterCounts(f);
    return [...new Set([...readOpen(), ...GROUPS.filter((g) => counts[g.id] > 0).map((g) => g.id)])];
  });
  const counts = dealFilterCounts(f);
  // A section whose filters get set from elsewhere (a saved search opened) opens to show them.
  const [seen, setSeen] = useState(counts);
  if (GROUPS.some((g) => counts[g.id] !== seen[g.id])) {
    setSeen(counts);
    const gained = GROUPS.filter((g) => seen[g.id] === 0 && counts[g.id] > 0 && !open.includes(g.id)).map((g) => g.id);
    if (gained.length > 0) setOpen([...open, ...gained]);
  }
  const toggle = (id: DealFilterGroup) => {
    const next = open.includes(id) ? open.filter((g) => g !== id) : [...open, id];
    setOpen(next);
    writePref(OPEN_PREF, next.join(',') || null);
  };
  const isOpen = (id: DealFilterGroup) => open.includes(id);
  const seeds = seedCount(f.seedRanges);
  return (
    <>
      {/* The toggles follow the row's other filters (they wrap onto its second line on a narrow window). */}
      <div className="filter-row section-toggles">
        {start}
        {/* Named, not labelled on screen: each toggle says what it opens, and the bar keeps to two lines. */}
        <span className="filter-group" role="group" aria-label="More filters">
          {GROUPS.map((g) => (
            <button
              key={g.id}
              type="button"
              className={`section-toggle ${isOpen(g.id) ? 'open' : ''} ${counts[g.id] > 0 ? 'on' : ''}`}
              aria-expanded={isOpen(g.id)}
              aria-controls={`${idPrefix}-${g.id}`}
              onClick={() => toggle(g.id)}
            >
              <span className="chevron" aria-hidden="true">
                {isOpen(g.id) ? '▾' : '▸'}
              </span>
              {g.title}
              {counts[g.id] > 0 ? (
                <span className="count-pill num">
                  {' '}
                  {counts[g.id]}
                  <span className="sr-only"> set</span>
                </span>
              ) : null}
            </button>
          ))}
        </span>
        {/* A list error stays said while its section is closed. */}
        {!isOpen('pattern') && problems.seeds ? <span className="field-error">Seed list: {problems.seeds}</span> : null}
        {!isOpen('charms') && problems.charmPatterns ? (
          <span className="field-error">Charm patterns: {problems.charmPatterns}</span>
        ) : null}
        <span className="spacer" />
        {end}
      </div>

      <Section id={`${idPrefix}-rarity`} title="Rarity" open={isOpen('rarity')}>
        <RarityChips colors={f.rarityColors} />
      </Section>

      <Section id={`${idPrefix}-pattern`} title="Seed list" open={isOpen('pattern')}>
        <TextFilter
          label="Paint seeds"
          className="list-input"
          placeholder="661, 670, 955, 1-25"
          value={f.seeds}
          problem={problems.seeds}
          problemId={`${idPrefix}-seeds-error`}
          onChange={(seeds) => editFilters({ seeds })}
        />
        <ListError id={`${idPrefix}-seeds-error`} problem={problems.seeds} />
        {!problems.seeds && seeds > 0 ? (
          <span className="field-hint num" aria-live="polite">
            {formatInt(seeds)} seed{seeds === 1 ? '' : 's'}
          </span>
        ) : null}
        <SeedLists f={f} listProblem={problems.seeds} />
      </Section>

      <Section id={`${idPrefix}-charms`} title="Charms" open={isOpen('charms')}>
        <select
          aria-label="Has a charm"
          className={`tri ${f.hasCharm !== 'any' ? 'on' : ''}`}
          value={f.hasCharm}
          onChange={(e) => editFilters({ hasCharm: e.target.value as TriState }, true)}
        >
          <option value="any">Charm: any</option>
          <option value="yes">With a charm</option>
          <option value="no">Without a charm</option>
        </select>
        <TextFilter
          label="Charm name"
          className="name-input"
          placeholder="e.g. Die-cast AK"
          value={f.charmName}
          onChange={(charmName) => editFilters({ charmName })}
        />
        <TextFilter
          label="Charm patterns"
          className="list-input"
          placeholder="e.g. 1-500, 90210"
          value={f.charmPatterns}
          problem={problems.charmPatterns}
          problemId={`${idPrefix}-charm-patterns-error`}
          onChange={(charmPatterns) => editFilters({ charmPatterns })}
        />
        <ListError id={`${idPrefix}-charm-patterns-error`} problem={problems.charmPatterns} />
      </Section>

      <Section id={`${idPrefix}-stickers`} title="Sticker combos" open={isOpen('stickers')}>
        <TriSelect
          label="Stickers"
          value={f.hasStickers}
          yes="With stickers"
          no="Without stickers"
          onChange={(v) => editFilters({ hasStickers: v }, true)}
        />
        <TextFilter
          label="At least"
          suffix="stickers"
          name="At least this many stickers"
          className="count-input"
          inputMode="numeric"
          placeholder="n"
          value={f.stickerCountMin}
          problem={problems.stickerCountMin}
          onChange={(stickerCountMin) => editFilters({ stickerCountMin })}
        />
        <select
          aria-label="Same sticker"
          className={`tri ${f.sameStickerMin !== '' ? 'on' : ''}`}
          value={f.sameStickerMin}
          onChange={(e) => editFilters({ sameStickerMin: e.target.value }, true)}
        >
          <option value="">Same sticker: any</option>
          {[2, 3, 4, 5].map((n) => (
            <option key={n} value={String(n)}>
              {n} × the same sticker
            </option>
          ))}
        </select>
        <TextFilter
          label="Any of stickers"
          className="names-input"
          placeholder="Crown (Foil), Titan (Holo)"
          value={f.stickerNames}
          problem={problems.stickerNames}
          onChange={(stickerNames) => editFilters({ stickerNames })}
        />
        <TextFilter
          label="Exclude words"
          className="name-input"
          placeholder="e.g. Souvenir"
          value={f.excludeWords}
          onChange={(excludeWords) => editFilters({ excludeWords })}
        />
      </Section>

      <Section id={`${idPrefix}-market`} title="Deals" open={isOpen('market')}>
        <TextFilter
          label="Under reference by at least"
          suffix="%"
          name="Under reference by at least (percent)"
          className="count-input"
          inputMode="decimal"
          placeholder="15"
          value={f.discountMin}
          problem={problems.discountMin}
          onChange={(discountMin) => editFilters({ discountMin })}
        />
        <TextFilter
          label="At least"
          suffix="on sale"
          name="At least this many of its name on sale"
          className="count-input"
          inputMode="numeric"
          placeholder="5"
          value={f.listingsMin}
          problem={problems.listingsMin}
          onChange={(listingsMin) => editFilters({ listingsMin })}
        />
        <TextFilter
          label="Float rank within its name ≤"
          name="Float rank within its name at most"
          className="count-input"
          inputMode="numeric"
          placeholder="3"
          value={f.floatRankMax}
          problem={problems.floatRankMax}
          onChange={(floatRankMax) => editFilters({ floatRankMax })}
        />
      </Section>
    </>
  );
}
