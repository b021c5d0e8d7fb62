import { type ReactNode, useEffect, useId, useRef } from 'react';

/** Where focus was before the first of a chain of dialogs opened (a dialog opened from another inherits it). */
let outerOpener: HTMLElement | null = null;

function openerOf(active: Element | null): HTMLElement | null {
  if (active instanceof HTMLElement && active !== document.body && !active.closest('dialog')) outerOpener = active;
  return outerOpener;
}

/** Where focus goes when the opener is gone, best first: the selected row, the screen's list, its heading. */
const FALLBACK_FOCUS = [
  'main [aria-selected="true"][tabindex]',
  'main [role="grid"]',
  'main table tbody tr[aria-current="true"]',
  'main table tbody tr[tabindex]',
  'main h1',
];

/**
 * Focus goes back where the dialog was opened from, else to the selected row of the screen,
 * never to <body> (keyboard users would start over from the top).
 */
function restoreFocus(opener: HTMLElement | null): void {
  const active = document.activeElement;
  if (active && active !== document.body && active.isConnected) return;
  if (document.querySelector('dialog[open]')) return;
  let target = opener?.isConnected && opener.offsetParent !== null ? opener : null;
  for (const selector of FALLBACK_FOCUS) target ??= document.querySelector<HTMLElement>(selector);
  if (target && !target.hasAttribute('tabindex') && !target.matches('a, button, input, select, textarea'))
    target.tabIndex = -1;
  target?.focus();
}

/**
 * A modal dialog on the native <dialog>: focus is trapped, the page behind is
 * inert, Esc closes it (through onClose, so the store stays the truth).
 */
export function Dialog({
  title,
  onClose,
  children,
  className = '',
  subtitle,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
  subtitle?: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = openerOf(document.activeElement);
    if (dialog && !dialog.open) {
      dialog.showModal();
      // showModal focuses the first control (the close button); prefer the one marked for it.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    return () => {
      dialog?.close();
      // After React has committed (a dialog opened from this one may have taken the focus meanwhile).
      requestAnimationFrame(() => restoreFocus(opener));
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${className}`}
      aria-labelledby={titleId}
      aria-modal="true"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onMouseDown={(e) => {
        // A press on the backdrop (the dialog box itself, outside its content) closes.
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div className="dialog-body">
        <header className="dialog-head">
          <div>
            <h2 id={titleId}>{title}</h2>
            {subtitle ? <div className="dialog-sub">{subtitle}</div> : null}
          </div>
          <button type="button" className="icon-btn" aria-label="Close dialog" onClick={onClose}>
            <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
              <path d="M3 3l10 10M13 3L3 13" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
            </svg>
          </button>
        </header>
        {children}
      </div>
    </dialog>
  );
}
