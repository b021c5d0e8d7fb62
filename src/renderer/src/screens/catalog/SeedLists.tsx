import { useState } from 'react';
import { formatNumberList } from '../../../../shared/filters';
import { SEED_LIST_NAME_MAX, type SeedList, withSeedList } from '../../../../shared/seedLists';
import type { CatalogFilters } from '../../lib/catalogQuery';
import { useEditFilters } from './filterEdit';
import { saveSeedLists } from '../../state/actions/seedLists';
import { useStore } from '../../state/store';

const NO_LISTS: readonly SeedList[] = [];

/**
 * Named seed lists beside the seed field: pick one (it fills the field), delete the one shown, or save the
 * field's list under a name (a name already used is replaced). The lists live in the app's settings.
 */
export function SeedLists({ f, listProblem }: { f: CatalogFilters; listProblem: string | undefined }) {
  const editFilters = useEditFilters();
  const lists = useStore((s) => s.settings.settings?.seedLists ?? NO_LISTS);
  const [name, setName] = useState('');
  const [said, setSaid] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  // The list the field holds now, if one is saved (editing the field leaves it).
  const current = formatNumberList(f.seedRanges);
  const shown = listProblem || current === '' ? undefined : lists.find((list) => list.seeds === current);

  const store = async (next: SeedList[], done: string) => {
    setBusy(true);
    const refused = await saveSeedLists(next);
    setBusy(false);
    setSaid(refused === null ? { text: done, error: false } : { text: refused, error: true });
    return refused === null;
  };
  const save = async () => {
    const trimmed = name.trim();
    const problem = listProblem
      ? 'Fix the seed list before saving it'
      : current === ''
        ? 'Paste seeds to save a list'
        : trimmed === ''
          ? 'Name the seed list'
          : null;
    if (problem) {
      setSaid({ text: problem, error: true });
      return;
    }
    const replaced = lists.some((list) => list.name.toLowerCase() === trimmed.toLowerCase());
    if (
      await store(
        withSeedList(lists, { name: trimmed, seeds: current }),
        `${replaced ? 'Replaced' : 'Saved'} “${trimmed}”`,
      )
    )
      setName('');
  };
  const remove = (list: SeedList) =>
    void store(
      lists.filter((other) => other !== list),
      `Deleted “${list.name}”`,
    );

  return (
    <>
      <label className="filter-group">
        <span className="filter-label">Saved lists</span>
        <select
          className={`tri ${shown ? 'on' : ''}`}
          value={shown?.name ?? ''}
          disabled={lists.length === 0}
          onChange={(e) => {
            const picked = lists.find((list) => list.name === e.target.value);
            if (picked) editFilters({ seeds: picked.seeds }, true);
            setSaid(null);
          }}
        >
          <option value="">{lists.length === 0 ? 'None saved yet' : 'Pick a list'}</option>
          {lists.map((list) => (
            <option key={list.name} value={list.name}>
              {list.name}
            </option>
          ))}
        </select>
      </label>
      {shown ? (
        <button
          type="button"
          className="btn ghost sm"
          aria-label={`Delete the seed list ${shown.name}`}
          disabled={busy}
          onClick={() => remove(shown)}
        >
          Delete
        </button>
      ) : null}
      <label className="filter-group">
        <span className="filter-label">Save as</span>
        <input
          className="name-input"
          placeholder="List name"
          maxLength={SEED_LIST_NAME_MAX}
          autoComplete="off"
          value={name}
          aria-invalid={said?.error ? true : undefined}
          aria-describedby={said ? 'seed-list-said' : undefined}
          onChange={(e) => setName(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void save();
          }}
        />
      </label>
      <button type="button" className="btn sm" disabled={busy} onClick={() => void save()}>
        Save list
      </button>
      <span
        id="seed-list-said"
        className={said?.error ? 'field-error' : 'field-hint'}
        role={said?.error ? 'alert' : 'status'}
      >
        {said?.text ?? ''}
      </span>
    </>
  );
}
