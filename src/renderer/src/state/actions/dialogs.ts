import type { Dialog } from '../slices/ui';
import { getState, useStore } from '../store';

export function openDialog(dialog: Dialog): void {
  useStore.setState((s) => ({ ui: { ...s.ui, dialog } }));
}

export function closeDialog(): void {
  if (getState().ui.dialog === null) return;
  useStore.setState((s) => ({ ui: { ...s.ui, dialog: null } }));
}

export function togglePalette(): void {
  const open = getState().ui.dialog?.kind === 'palette';
  if (open) closeDialog();
  else if (getState().ui.dialog === null) openDialog({ kind: 'palette' });
}
