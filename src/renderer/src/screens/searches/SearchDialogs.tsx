import { useId, useState } from 'react';
import type { SavedSearch } from '../../../../shared/ipc/contract';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { errorMessage } from '../../lib/ipc';
import { filterSummary } from '../../lib/filterSummary';
import { watchOf } from '../../lib/savedSearch';
import { createWatch, renameSearch, saveCurrentSearch, searchNamed } from '../../state/actions/searches';
import { closeDialog } from '../../state/actions/dialogs';
import { toast } from '../../state/actions/toast';
import { useStore } from '../../state/store';

/** The contract's SAVED_SEARCH_NAME_MAX (the contract's module brings zod, which stays out of the renderer). */
const SAVED_SEARCH_NAME_MAX = 80;

function nameProblem(name: string): string | null {
  if (name.trim() === '') return 'Name the search';
  if (name.trim().length > SAVED_SEARCH_NAME_MAX) return `At most ${SAVED_SEARCH_NAME_MAX} characters`;
  return null;
}

/** A name prompt: Enter saves, Esc cancels. */
function NameForm({
  initial,
  submitLabel,
  onSubmit,
  note,
}: {
  initial: string;
  submitLabel: (name: string) => string;
  onSubmit: (name: string) => Promise<void>;
  note?: string;
}) {
  const id = useId();
  const [name, setName] = useState(initial);
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = nameProblem(name);
  return (
    <form
      className="dialog-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setTouched(true);
        if (problem) return;
        setSaving(true);
        setError(null);
        onSubmit(name.trim()).then(
          () => closeDialog(),
          (e: unknown) => {
            setError(errorMessage(e));
            setSaving(false);
          },
        );
      }}
    >
      <Field label="Name" htmlFor={`${id}-name`} error={touched ? problem : null} hint={note}>
        <input
          id={`${id}-name`}
          autoFocus
          data-autofocus
          maxLength={SAVED_SEARCH_NAME_MAX + 20}
          value={name}
          placeholder="CH blue gems T1"
          onChange={(e) => setName(e.target.value)}
          onFocus={(e) => e.target.select()}
        />
      </Field>
      {error ? (
        <div className="notice error" role="alert">
          {error}
        </div>
      ) : null}
      <footer className="dialog-actions">
        <button type="button" className="btn ghost" onClick={closeDialog}>
          Cancel
        </button>
        <button type="submit" className="btn primary" disabled={saving}>
          {saving ? 'Saving…' : submitLabel(name)}
        </button>
      </footer>
    </form>
  );
}

/** Names the catalog's current filters and sort; a name already saved replaces that search's filters. */
export function SaveSearchDialog() {
  return (
    <Dialog
      title="Save search"
      subtitle="The catalog's search, filters and sort, under a name"
      onClose={closeDialog}
      className="search-dialog"
    >
      <NameForm
        initial=""
        note="Open it later from the sidebar or the command palette (Ctrl K). Using a saved name replaces that search."
        submitLabel={(name) => {
          const existing = searchNamed(name);
          return existing ? `Replace “${existing.name}”` : 'Save search';
        }}
        onSubmit={async (name) => {
          const existing = searchNamed(name);
          const saved = await saveCurrentSearch(existing ? existing.name : name, existing?.id);
          toast('success', existing ? 'Saved search replaced' : 'Search saved', saved.name);
        }}
      />
    </Dialog>
  );
}

export function RenameSearchDialog({ searchId }: { searchId: string }) {
  const search = useStore((s) => s.searches.list.find((other) => other.id === searchId));
  if (!search) return <Gone />;
  return (
    <Dialog title={`Rename “${search.name}”`} onClose={closeDialog} className="search-dialog">
      <NameForm
        initial={search.name}
        submitLabel={() => 'Rename'}
        onSubmit={async (name) => {
          await renameSearch(search, name);
        }}
      />
    </Dialog>
  );
}

function Gone() {
  return (
    <Dialog title="Saved search" onClose={closeDialog}>
      <p>This saved search was deleted.</p>
      <footer className="dialog-actions">
        <button type="button" className="btn" data-autofocus onClick={closeDialog}>
          Close
        </button>
      </footer>
    </Dialog>
  );
}

function WatchBody({ search }: { search: SavedSearch }) {
  const input = watchOf(search);
  const matches = filterSummary(search.query);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="dialog-form">
      <p>
        A watch is an alert rule: each new listing that matches it notifies you. Auto-buy stays off until you switch it
        on in the rule.
      </p>
      <p>
        <strong>The watch matches:</strong> {matches.length > 0 ? matches.join(' · ') : 'every listing'}.
      </p>
      <p className="muted small">Every filter of this search carries over; edit the rule to change them.</p>
      {error ? (
        <div className="notice error" role="alert">
          {error}
        </div>
      ) : null}
      <footer className="dialog-actions">
        <button type="button" className="btn ghost" onClick={closeDialog}>
          Cancel
        </button>
        <button
          type="button"
          className="btn primary"
          data-autofocus
          disabled={saving}
          onClick={() => {
            setSaving(true);
            setError(null);
            createWatch(input).then(
              () => closeDialog(),
              (e: unknown) => {
                setError(errorMessage(e));
                setSaving(false);
              },
            );
          }}
        >
          {saving ? 'Creating…' : 'Create watch'}
        </button>
      </footer>
    </div>
  );
}

export function WatchSearchDialog({ searchId }: { searchId: string }) {
  const search = useStore((s) => s.searches.list.find((other) => other.id === searchId));
  if (!search) return <Gone />;
  return (
    <Dialog title={`Watch “${search.name}”`} onClose={closeDialog} className="search-dialog">
      <WatchBody search={search} />
    </Dialog>
  );
}
