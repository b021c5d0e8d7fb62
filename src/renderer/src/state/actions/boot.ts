import type { EngineEventBatch } from '../../../../shared/ipc/events';
import type { AutoBuyStatus } from '../../../../shared/ipc/models';
import { debounced } from '../../lib/debounce';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { onBridgeState } from '../../platform/bridge';
import { readPref } from '../../lib/persist';
import { applyBatch, applySnapshot } from '../applyBatch';
import { noteBatch } from '../batchesSince';
import { withBridgeState } from '../slices/conn';
import type { AppState } from '../store';
import { getState, update, useStore } from '../store';
import { scheduleAlertsReload } from './alerts';
import { loadAgeBaseline, prefetchFirstPage, scheduleDetailReload, sweepFlashes } from './catalog';
import { loadSearches } from './searches';
import { loadRecipients } from './settings';
import { reloadSnapshot } from './account';
import { scheduleTradeDetailReload, scheduleTradesReload } from './trades';
import { openTarget, syncFromHash } from './navigation';
import { loadUpdateStatus } from './updates';
import { scheduleWalletReload } from './wallet';
import { signalLedgerChanged, signalRecipientsChanged } from './operations';
import { scheduleNotificationsReload } from './inbox';
import { raiseWebNotifications } from './webNotifications';
import { playNotificationSounds } from '../../lib/sound';

let started = false;
let unsubscribe: (() => void) | null = null;
let unsubscribeBridge: (() => void) | null = null;

/** Connect to the engine once: events first (buffered), then the snapshot. */
export async function boot(): Promise<void> {
  if (started) return;
  started = true;
  applyTheme(readPref('theme') === 'light' ? 'light' : 'dark');
  update('conn', (c) => ({ ...c, boot: 'loading', bootError: null }));
  try {
    const bridge = api();
    unsubscribeBridge ??= onBridgeState(onBridgeChange);
    let ready = false;
    const early: EngineEventBatch[] = [];
    unsubscribe?.();
    unsubscribe = bridge.events.subscribe((batch) => {
      if (ready) handleBatch(batch);
      else early.push(batch);
    });
    prefetchFirstPage();
    const snap = await unwrap(bridge.app.snapshot({}));
    useStore.setState((s) => applySnapshot(s, snap, bridge.host));
    ready = true;
    for (const batch of early) handleBatch(batch);
    void loadRecipients();
    void loadSearches();
    void loadAgeBaseline();
    void loadUpdateStatus();
  } catch (error) {
    started = false;
    update('conn', (c) => ({ ...c, boot: 'failed', bootError: errorMessage(error) }));
  }
}

export function startBackground(): () => void {
  syncFromHash();
  const onHash = () => syncFromHash();
  window.addEventListener('hashchange', onHash);
  const sweeper = window.setInterval(sweepFlashes, 1000);
  const unsubTheme = useStore.subscribe((s, prev) => {
    const theme = s.settings.settings?.theme;
    if (theme && theme !== prev.settings.settings?.theme) applyTheme(theme);
  });
  return () => {
    window.removeEventListener('hashchange', onHash);
    window.clearInterval(sweeper);
    unsubTheme();
  };
}

export function applyTheme(theme: 'dark' | 'light'): void {
  document.documentElement.dataset['theme'] = theme;
  document.documentElement.style.colorScheme = theme;
}

/** ONE setState per batch, then the side effects it calls for. */
export function handleBatch(batch: EngineEventBatch): void {
  const before = getState();
  useStore.setState((s) => applyBatch(s, batch, Date.now()));
  noteBatch(batch);
  afterBatch(batch, before, getState());
  // Batches sent while the bridge was down are lost: a gap in seq means re-read everything;
  // so does a seq going back (the engine restarted under us).
  const last = before.conn.lastSeq;
  if (last > 0 && (batch.seq > last + 1 || batch.seq < last)) resyncAfterGap();
}

const resyncAfterGap = debounced(() => {
  void reloadSnapshot();
  // Saved searches come as changes: one missed leaves the list behind.
  void loadSearches();
  const { ui, catalog, trades } = getState();
  if (ui.screen === 'trades') scheduleTradesReload();
  if (ui.screen === 'wallet') scheduleWalletReload();
  if (ui.screen === 'alerts') scheduleAlertsReload();
  if (catalog.detail.id !== null) scheduleDetailReload();
  if (trades.detail.id !== null) scheduleTradeDetailReload();
}, 200);

/**
 * The web bridge went down or came back. Back: what happened meanwhile was not seen
 * (events are not replayed, and a restarted host counts seq from 1 again), so the
 * snapshot and whatever is on screen are read again; a boot that failed is retried.
 */
function onBridgeChange(state: Parameters<typeof withBridgeState>[1]): void {
  const before = getState().conn;
  update('conn', (c) => withBridgeState(c, state));
  const after = getState().conn;
  if (after.bridge !== 'open' || before.bridge === 'open') return;
  if (after.boot === 'failed') void boot();
  else if (before.bridge === 'lost' || before.bridge === 'expired') resyncAfterGap();
}

const skippedToday = (status: AutoBuyStatus | null) =>
  status?.rules.reduce((sum, rule) => sum + rule.skippedToday, 0) ?? 0;

function afterBatch(batch: EngineEventBatch, before: AppState, after: AppState): void {
  const items = batch.items;
  // The first sync (or a new account) sets when this cache started watching the market.
  if ((batch.catalog && after.catalog.baselineListedAt === null && batch.catalog.totalItems > 0) || items?.invalidated)
    void loadAgeBaseline();
  if (items) {
    // Items that left sale fade in place (no row jumps under the pointer); a refresh, a scroll or a filter drops them.
    const detailId = after.catalog.detail.id;
    if (detailId !== null && items.upserted.some((row) => row.itemId === detailId)) scheduleDetailReload();
  }
  if ((batch.trades && batch.trades.length > 0) || batch.tradesInvalidated) {
    const t = after.trades;
    if (after.ui.screen === 'trades' && t.stale && t.offset === 0) scheduleTradesReload();
    const detailChanged = batch.tradesInvalidated || batch.trades?.some((trade) => trade.tradeId === t.detail.id);
    if (t.detail.id && detailChanged) scheduleTradeDetailReload();
  }
  if (batch.ledgerChanged && after.ui.screen === 'wallet') scheduleWalletReload();
  if (batch.recipientsChanged) signalRecipientsChanged();
  if (batch.ledgerChanged) signalLedgerChanged();
  if (batch.firings?.some((f) => f.autoBuy !== null) && after.ui.screen === 'alerts') scheduleAlertsReload();
  // A new skip is folded into its rule's line for the day: read the lines again.
  if (
    batch.autoBuy &&
    after.ui.screen === 'alerts' &&
    skippedToday(batch.autoBuy) !== skippedToday(before.alerts.autoBuy)
  )
    scheduleAlertsReload();
  if (batch.notifications && batch.notifications.length > 0) {
    const settings = after.settings.settings;
    if (after.conn.host === 'web') raiseWebNotifications(batch.notifications);
    playNotificationSounds(batch.notifications, settings);
    if (after.ui.screen === 'notifications') scheduleNotificationsReload();
  }
  // The engine opened another account (perhaps from another window): everything scoped to the old one goes.
  if (batch.accountChanged) void reloadSnapshot();
  // A desktop notification was clicked in the shell: open what it was about.
  if (batch.navigate) openTarget(batch.navigate);
}

// ---- Web Notifications (browser host only; Electron's main raises native ones)

export function webNotificationsSupported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

export function webNotificationPermission(): NotificationPermission | 'unsupported' {
  return webNotificationsSupported() ? window.Notification.permission : 'unsupported';
}

/** Must run from a user gesture (a button click). */
export async function requestWebNotifications(): Promise<NotificationPermission | 'unsupported'> {
  if (!webNotificationsSupported()) return 'unsupported';
  return window.Notification.requestPermission();
}
