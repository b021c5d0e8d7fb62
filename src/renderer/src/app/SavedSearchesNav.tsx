import { useId, useState } from 'react';
import type { SavedSearch } from '../../../shared/ipc/contract';
import { deleteSearch, openSearch } from '../state/actions/searches';
import { openDialog } from '../state/actions/dialogs';
import { useStore } from '../state/store';

/** One saved search in the sidebar: its name opens it; "⋯" shows watch, rename and delete (Esc hides them). */
function SavedSearchItem({ search }: { search: SavedSearch }) {
  const menuId = useId();
  const [menu, setMenu] = useState<'closed' | 'open' | 'confirmDelete'>('closed');
  const close = () => setMenu('closed');
  return (
    <li
      className="nav-search"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && menu !== 'closed') {
          e.stopPropagation();
          close();
          e.currentTarget.querySelector<HTMLButtonElement>('.nav-search-more')?.focus();
        }
      }}
    >
      <div className="nav-search-row">
        <button
          type="button"
          className="nav-search-open"
          title={`Open saved search “${search.name}”`}
          onClick={() => openSearch(search)}
        >
          {search.name}
        </button>
        <button
          type="button"
          className="nav-search-more"
          aria-label={`Actions for saved search “${search.name}”`}
          aria-expanded={menu !== 'closed'}
          aria-controls={menuId}
          onClick={() => setMenu(menu === 'closed' ? 'open' : 'closed')}
        >
          <span aria-hidden="true">⋯</span>
        </button>
      </div>
      {menu === 'closed' ? null : (
        <div className="nav-search-menu" id={menuId} role="group" aria-label={`Saved search “${search.name}”`}>
          {menu === 'open' ? (
            <>
              <button
                type="button"
                className="link-btn"
                onClick={() => {
                  close();
                  openDialog({ kind: 'watchSearch', searchId: search.id });
                }}
              >
                Watch
              </button>
              <button
                type="button"
                className="link-btn"
                onClick={() => {
                  close();
                  openDialog({ kind: 'renameSearch', searchId: search.id });
                }}
              >
                Rename
              </button>
              <button type="button" className="link-btn" onClick={() => setMenu('confirmDelete')}>
                Delete
              </button>
            </>
          ) : (
            <>
              <span className="small">Delete it?</span>
              <button type="button" className="link-btn neg" autoFocus onClick={() => void deleteSearch(search)}>
                Delete
              </button>
              <button type="button" className="link-btn" onClick={close}>
                Keep
              </button>
            </>
          )}
        </div>
      )}
    </li>
  );
}

/** The account's saved searches, under Catalog in the sidebar. */
export function SavedSearchesNav() {
  const list = useStore((s) => s.searches.list);
  if (list.length === 0) return null;
  return (
    <ul className="nav-searches" aria-label="Saved searches">
      {list.map((search) => (
        <SavedSearchItem key={search.id} search={search} />
      ))}
    </ul>
  );
}
