import { useEffect } from 'react';
import { CHORD_TIMEOUT_MS, interpretKey } from '../lib/keyboard';
import { getState } from '../state/store';
import { runKeyCommand } from './commands';

function isEditable(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  if (el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement) return true;
  if (el instanceof HTMLInputElement)
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color'].includes(el.type);
  return false;
}

function isButton(el: EventTarget | null): boolean {
  return (
    el instanceof HTMLElement &&
    (el.matches(
      'button, a[href], summary, [role="button"], [role="link"], input[type="checkbox"], input[type="radio"]',
    ) ||
      el.closest('tr[tabindex]') !== null)
  );
}

/** The app's keyboard map on window keydown. */
export function useKeyboard(): void {
  useEffect(() => {
    let pending: string | null = null;
    let timer: number | null = null;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing || (e.repeat && e.key === 'g')) return;
      const { ui } = getState();
      const result = interpretKey(pending, {
        key: e.key,
        ctrlKey: e.ctrlKey,
        metaKey: e.metaKey,
        altKey: e.altKey,
        shiftKey: e.shiftKey,
        inEditable: isEditable(e.target),
        onButton: isButton(e.target),
        modalOpen: ui.dialog !== null,
        onCatalog: ui.screen === 'catalog',
        screen: ui.screen,
      });
      pending = result.pending;
      if (timer !== null) window.clearTimeout(timer);
      timer = pending ? window.setTimeout(() => (pending = null), CHORD_TIMEOUT_MS) : null;
      if (result.command) {
        // Esc in a native dialog is handled by the dialog's cancel event too; both close the same state.
        if (result.command !== 'dialog.close' || ui.dialog === null) e.preventDefault();
        runKeyCommand(result.command, e.target);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      if (timer !== null) window.clearTimeout(timer);
    };
  }, []);
}
