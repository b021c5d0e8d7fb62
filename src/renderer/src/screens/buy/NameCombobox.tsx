import { useState } from 'react';
import { formatCents } from '../../lib/format';
import { useNameSuggestions } from './nameSuggestions';

/**
 * The market hash name with suggestions from the local catalog (ARIA combobox): type a few
 * words, ↓/↑ to choose, Enter to take one, Esc to close the list.
 */
export function NameCombobox({
  id,
  value,
  onChange,
  invalid,
}: {
  id: string;
  value: string;
  onChange: (name: string) => void;
  invalid: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const suggestions = useNameSuggestions(value, open);
  const listId = `${id}-suggestions`;
  const shown = open && suggestions.length > 0 && !(suggestions.length === 1 && suggestions[0]?.name === value);
  const optionId = (index: number) => `${id}-option-${index}`;

  const pick = (name: string) => {
    onChange(name);
    setOpen(false);
    setActive(-1);
  };

  return (
    <div className="combobox">
      <input
        id={id}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={listId}
        aria-activedescendant={shown && active >= 0 ? optionId(active) : undefined}
        aria-invalid={invalid || undefined}
        aria-describedby={`${id}-msg`}
        data-autofocus
        autoComplete="off"
        spellCheck={false}
        maxLength={256}
        value={value}
        placeholder="★ Karambit | Doppler (Factory New)"
        onChange={(e) => {
          onChange(e.target.value);
          setOpen(true);
          setActive(-1);
        }}
        onBlur={() => setOpen(false)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            if (!shown) {
              setOpen(true);
              return;
            }
            const step = e.key === 'ArrowDown' ? 1 : -1;
            setActive((index) => Math.max(-1, Math.min(suggestions.length - 1, index + step)));
          } else if (e.key === 'Enter' && shown && active >= 0) {
            e.preventDefault();
            const chosen = suggestions[active];
            if (chosen) pick(chosen.name);
          } else if (e.key === 'Escape' && shown) {
            // Closes the list only; a second Esc closes the dialog.
            e.preventDefault();
            e.stopPropagation();
            setOpen(false);
          }
        }}
      />
      <ul id={listId} role="listbox" aria-label="Names on sale" className="combobox-list" hidden={!shown}>
        {shown
          ? suggestions.map((s, index) => (
              <li
                key={s.name}
                id={optionId(index)}
                role="option"
                aria-selected={index === active}
                className={index === active ? 'on' : ''}
                // mousedown, not click: the input keeps the focus and its blur does not close the list first
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(s.name);
                }}
              >
                <span className="combobox-name">{s.name}</span>
                <span className="combobox-meta num">
                  from {formatCents(s.cheapest)}
                  {s.listings > 1 ? ` · ${s.listings} listings` : ''}
                </span>
              </li>
            ))
          : null}
      </ul>
    </div>
  );
}
