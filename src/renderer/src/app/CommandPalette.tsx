import { useId, useMemo, useState } from 'react';
import { Dialog } from '../components/Dialog';
import { rankByQuery } from '../lib/fuzzy';
import { closeDialog } from '../state/actions/dialogs';
import { buildCommands, type Command } from './commands';

export function CommandPalette() {
  const id = useId();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const all = useMemo(() => buildCommands(), []);
  const results = rankByQuery(all, query, (c) => `${c.title} ${c.group} ${c.keywords ?? ''}`);
  const current = Math.min(active, Math.max(0, results.length - 1));

  const run = (command: Command | undefined) => {
    if (!command) return;
    closeDialog();
    // Let the palette close before the command opens its own dialog or moves focus.
    requestAnimationFrame(() => command.run());
  };

  return (
    <Dialog title="Command palette" onClose={closeDialog} className="palette">
      <input
        className="palette-input"
        role="combobox"
        aria-label="Search commands"
        aria-expanded="true"
        aria-controls={`${id}-list`}
        aria-activedescendant={results[current] ? `${id}-${results[current].id}` : undefined}
        autoFocus
        data-autofocus
        placeholder="Type a command…"
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setActive((current + 1) % Math.max(1, results.length));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            setActive((current - 1 + results.length) % Math.max(1, results.length));
          } else if (e.key === 'Enter') {
            e.preventDefault();
            run(results[current]);
          }
        }}
      />
      <ul className="palette-list" role="listbox" id={`${id}-list`} aria-label="Commands">
        {results.length === 0 ? <li className="palette-empty muted">No command matches “{query}”</li> : null}
        {results.map((c, i) => (
          <li
            key={c.id}
            id={`${id}-${c.id}`}
            role="option"
            aria-selected={i === current}
            className={`palette-item ${i === current ? 'on' : ''}`}
            onMouseMove={() => i !== current && setActive(i)}
            onClick={() => run(c)}
          >
            <span className="palette-group muted">{c.group}</span>
            <span className="palette-title">{c.title}</span>
            {c.hint ? <kbd>{c.hint}</kbd> : null}
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
