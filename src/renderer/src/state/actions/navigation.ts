import type { NavigateTarget } from '../../../../shared/ipc/models';
import { readHashRoute, type DeepLinkTarget } from '../../../../shared/deepLinks';
import type { SavedSearch } from '../../../../shared/ipc/contract';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { formOfQuery } from '../../lib/savedSearch';
import { withQuery } from '../slices/catalog';
import { type Screen, screenFromHash } from '../slices/ui';
import { getState, update } from '../store';
import { openDetail } from './catalog';
import { closeDialog } from './dialogs';
import { toast } from './toast';
import { selectTrade } from './trades';

/** Go to a screen (the hash is the source of truth, so Back works). */
export function navigate(screen: Screen, sub: string | null = null): void {
  const hash = `#/${screen}${sub ? `/${encodeURIComponent(sub)}` : ''}`;
  if (window.location.hash !== hash) window.location.hash = hash;
  else syncFromHash();
}

/** Apply the current location hash to the store. */
export function syncFromHash(): void {
  const link = readHashRoute(window.location.hash);
  if (link) {
    // A link's route (`#/trade/<id>`, …) is replaced by the place it opens, so Back does not open it again; a
    // refused one leaves the screen as it was, and so does a search until main has checked its filters (the
    // renderer bundles no zod).
    if (link.ok && link.target.type !== 'search') {
      window.history.replaceState(null, '', placeHash(link.target));
      openPlace(link.target);
      return;
    }
    window.history.replaceState(null, '', `#/${getState().ui.screen}`);
    syncFromHash();
    if (!link.ok) refuseLink(link.reason);
    else if (link.target.type === 'search') void openSearchLink(link.target.params);
    return;
  }
  const { screen, sub } = screenFromHash(window.location.hash);
  if (getState().ui.screen !== screen) update('ui', (u) => ({ ...u, screen }));
  if (screen === 'trades') {
    const open = getState().trades.detail.id;
    if (sub && open !== sub) selectTrade(sub);
    else if (!sub && open) selectTrade(null);
  }
}

function refuseLink(reason: string): void {
  toast('error', 'This link was not opened', reason);
}

/** A search route's filters, checked by main: opened as the catalog's query, or refused with main's reason. */
async function openSearchLink(params: string): Promise<void> {
  try {
    const result = await unwrap(api().links.search({ query: params }));
    if (result.ok) openQuery(result.query, 'The linked search');
    else refuseLink(result.reason);
  } catch (error) {
    refuseLink(errorMessage(error));
  }
}

/** What clicking a notification, or opening a link, opens. */
export function openTarget(target: NavigateTarget | DeepLinkTarget | null): void {
  if (!target) return;
  closeDialog();
  if (target.type === 'trades') navigate('trades');
  else openPlace(target);
}

let lookupSeq = 0;

/** Goes to a link's place. It only shows things: never a buy, never a setting changed. */
function openPlace(target: DeepLinkTarget): void {
  switch (target.type) {
    case 'trade':
      navigate('trades', target.tradeId);
      selectTrade(target.tradeId);
      return;
    case 'item':
      navigate('catalog');
      openDetail(target.itemId);
      return;
    case 'order':
      lookupSeq += 1;
      update('ui', (u) => ({ ...u, orderLookup: { query: target.externalId, seq: lookupSeq } }));
      navigate('operations');
      return;
    case 'search':
      openQuery(target.query, 'The linked search');
      return;
  }
}

/** Shows the catalog with a query's filters and sort (not saved, as a saved search or a link opens it); `what` names it in the warning. */
export function openQuery(query: SavedSearch['query'], what: string): void {
  const { filters, sort, notShown } = formOfQuery(query);
  update('catalog', (c) => withQuery(c, filters, sort));
  navigate('catalog');
  if (notShown.length > 0)
    toast('warn', `${what} opened without some filters`, `This screen cannot show: ${notShown.join(', ')}.`);
}

/** The screen's own route of a link's place. */
function placeHash(target: DeepLinkTarget): string {
  if (target.type === 'trade') return `#/trades/${encodeURIComponent(target.tradeId)}`;
  return target.type === 'order' ? '#/operations' : '#/catalog';
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

/** A section of a screen the palette goes straight to: the element marked `data-section` with this name. */
export type ScreenSection = 'recipients' | 'failures' | 'reversals' | 'webhooks' | 'runway';

/**
 * Goes to a screen's section: scrolled to the top, its heading focused, so Tab goes on into the section's controls.
 * On the first frame the section is there, for up to a second (the screen may be mounting).
 */
export function showSection(screen: Screen, section: ScreenSection): void {
  if (getState().ui.screen !== screen) navigate(screen);
  focusSectionWhenShown(section);
}

function focusSectionWhenShown(section: ScreenSection, frames = 60): void {
  requestAnimationFrame(() => {
    const element = document.querySelector<HTMLElement>(`[data-section="${section}"]`);
    const heading = element?.querySelector<HTMLElement>('h2, h3');
    if (element && heading) {
      element.scrollIntoView({ block: 'start' });
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    } else if (frames > 1) focusSectionWhenShown(section, frames - 1);
  });
}

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
