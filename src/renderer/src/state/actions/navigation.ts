import type { NavigateTarget } from '../../../../shared/ipc/models';
import { type Screen, screenFromHash } from '../slices/ui';
import { getState, update } from '../store';
import { openDetail } from './catalog';
import { closeDialog } from './dialogs';
import { selectTrade } from './trades';

/** Go to a screen (the hash is the source of truth, so Back works). */
export function navigate(screen: Screen, sub: string | null = null): void {
  const hash = `#/${screen}${sub ? `/${encodeURIComponent(sub)}` : ''}`;
  if (window.location.hash !== hash) window.location.hash = hash;
  else syncFromHash();
}

/** Apply the current location hash to the store. */
export function syncFromHash(): void {
  const { screen, sub } = screenFromHash(window.location.hash);
  if (getState().ui.screen !== screen) update('ui', (u) => ({ ...u, screen }));
  if (screen === 'trades') {
    const open = getState().trades.detail.id;
    if (sub && open !== sub) selectTrade(sub);
    else if (!sub && open) selectTrade(null);
  }
}

/** What clicking a notification opens. */
export function openTarget(target: NavigateTarget | null): void {
  if (!target) return;
  closeDialog();
  if (target.type === 'trades') navigate('trades');
  else if (target.type === 'trade') {
    navigate('trades', target.tradeId);
    selectTrade(target.tradeId);
  } else {
    navigate('catalog');
    openDetail(target.itemId);
  }
}

export function focusSearch(): void {
  if (getState().ui.screen !== 'catalog') navigate('catalog');
  focusWhenShown('catalog-search');
}

/** The way from read-only to live: Settings with the API key field focused, so what is typed goes into it. */
export function openApiKeyField(): void {
  closeDialog();
  navigate('settings');
  focusWhenShown(API_KEY_FIELD_ID);
}

export const API_KEY_FIELD_ID = 'settings-api-key';

/** Focuses (and selects) a field of a screen that is mounting: on the first frame it is there, for up to a second. */
function focusWhenShown(id: string, frames = 60): void {
  requestAnimationFrame(() => {
    const input = document.getElementById(id);
    if (input instanceof HTMLInputElement) {
      input.focus();
      input.select();
    } else if (frames > 1) focusWhenShown(id, frames - 1);
  });
}
