import type { KeyCommand } from '../lib/keyboard';
import { SHORTCUT_HINTS } from '../lib/keyboard';
import { openBuyByName, openBuyForSelected } from '../screens/buy/open';
import {
  acknowledgeAll,
  acknowledgeSelectedFiring,
  moveFiring,
  rearmSelectedFiring,
  setAutoBuyStopped,
  stopAllAutoBuy,
} from '../state/actions/alerts';
import { requestWebNotifications, webNotificationPermission } from '../state/actions/boot';
import {
  clearFilters,
  closeDetail,
  moveSelection,
  openSelectedDetail,
  refreshCatalog,
  softRefresh,
} from '../state/actions/catalog';
import { retryConnectionNow } from '../state/actions/connection';
import { openSearch } from '../state/actions/searches';
import { markAllNotificationsRead } from '../state/actions/inbox';
import { connectDemoSandbox, switchToSavedAccount } from '../state/actions/account';
import { updateSettings } from '../state/actions/settings';
import { exportTradesCsv, setTradesTab } from '../state/actions/trades';
import { openBuyNext } from '../state/actions/nextBuy';
import { closeDialog, openDialog, togglePalette } from '../state/actions/dialogs';
import { focusSearch, navigate, showSection } from '../state/actions/navigation';
import { toast } from '../state/actions/toast';
import { exportLedgerCsv } from '../state/actions/wallet';
import { gridMetrics } from '../screens/catalog/CatalogGrid';
import { getState } from '../state/store';

export interface Command {
  id: string;
  title: string;
  group: 'Go to' | 'Catalog' | 'Buy' | 'Trades' | 'Wallet' | 'Alerts' | 'App';
  hint?: string;
  keywords?: string;
  run: () => void;
}

const hint = (k: KeyCommand) => SHORTCUT_HINTS[k];

/** Every action of the app, for the command palette. */
export function buildCommands(): Command[] {
  const state = getState();
  const list: Command[] = [
    {
      id: 'go.catalog',
      group: 'Go to',
      title: 'Go to Catalog',
      hint: hint('go.catalog'),
      run: () => navigate('catalog'),
    },
    { id: 'go.trades', group: 'Go to', title: 'Go to Trades', hint: hint('go.trades'), run: () => navigate('trades') },
    {
      id: 'go.wallet',
      group: 'Go to',
      title: 'Go to Wallet',
      hint: hint('go.wallet'),
      keywords: 'balance ledger',
      run: () => navigate('wallet'),
    },
    {
      id: 'go.alerts',
      group: 'Go to',
      title: 'Go to Alerts',
      hint: hint('go.alerts'),
      keywords: 'watchlist rules firings',
      run: () => navigate('alerts'),
    },
    {
      id: 'go.operations',
      group: 'Go to',
      title: 'Go to Operations',
      hint: hint('go.operations'),
      keywords: 'webhook health failed deliveries replay console',
      run: () => navigate('operations'),
    },
    // Each view of the console, straight to it (the heading focused, Tab goes on into it).
    {
      id: 'go.operations.recipients',
      group: 'Go to',
      title: 'Go to Recipients',
      keywords: 'operations trade url owner partner active offers 30 cap block declines expiries',
      run: () => showSection('operations', 'recipients'),
    },
    {
      id: 'go.operations.failures',
      group: 'Go to',
      title: 'Go to Failures board',
      keywords: 'operations outcome codes declined expired sold elsewhere countered refusals',
      run: () => showSection('operations', 'failures'),
    },
    {
      id: 'go.operations.reversals',
      group: 'Go to',
      title: 'Go to Reversals',
      keywords: 'operations reversal exposure release schedule rollback who reversed ban list',
      run: () => showSection('operations', 'reversals'),
    },
    {
      id: 'go.operations.webhooks',
      group: 'Go to',
      title: 'Go to Webhook health',
      keywords: 'operations failed deliveries paused breaker replay',
      run: () => showSection('operations', 'webhooks'),
    },
    {
      id: 'go.wallet.runway',
      group: 'Go to',
      title: 'Go to Balance runway',
      keywords: 'wallet spend rate hours left threshold top-ups deposits',
      run: () => showSection('wallet', 'runway'),
    },
    {
      id: 'go.notifications',
      group: 'Go to',
      title: 'Go to Notifications',
      hint: hint('go.notifications'),
      keywords: 'inbox centre center unread history',
      run: () => navigate('notifications'),
    },
    {
      id: 'notifications.markAllRead',
      group: 'App',
      title: 'Mark all notifications read',
      keywords: 'inbox unread clear',
      run: () => void markAllNotificationsRead(),
    },
    {
      id: 'go.settings',
      group: 'Go to',
      title: 'Go to Settings',
      hint: hint('go.settings'),
      keywords: 'connection api key preferences',
      run: () => navigate('settings'),
    },
    {
      id: 'search.focus',
      group: 'Catalog',
      title: 'Search items',
      hint: hint('search.focus'),
      keywords: 'find filter',
      run: focusSearch,
    },
    {
      id: 'catalog.refresh',
      group: 'Catalog',
      title: 'Refresh the catalog',
      keywords: 'sync reload',
      run: () => void refreshCatalog(),
    },
    { id: 'catalog.requery', group: 'Catalog', title: 'Re-query rows on screen', keywords: 'reload', run: softRefresh },
    {
      id: 'catalog.clear',
      group: 'Catalog',
      title: 'Clear catalog filters',
      keywords: 'reset',
      run: () => {
        navigate('catalog');
        clearFilters();
      },
    },
    {
      id: 'search.save',
      group: 'Catalog',
      title: 'Save the current search',
      keywords: 'saved searches filters name bookmark',
      run: () => {
        navigate('catalog');
        openDialog({ kind: 'saveSearch' });
      },
    },
    ...state.searches.list.map((search): Command => ({
      id: `search.open.${search.id}`,
      group: 'Catalog',
      title: `Open saved search: ${search.name}`,
      keywords: 'saved filters',
      run: () => openSearch(search),
    })),
    ...state.searches.list.map((search): Command => ({
      id: `search.watch.${search.id}`,
      group: 'Alerts',
      title: `Watch saved search: ${search.name}`,
      keywords: 'alert rule notify',
      run: () => openDialog({ kind: 'watchSearch', searchId: search.id }),
    })),
    {
      id: 'catalog.detail',
      group: 'Catalog',
      title: 'Open selected item detail',
      hint: hint('selection.open'),
      run: openSelectedDetail,
    },
    { id: 'catalog.closeDetail', group: 'Catalog', title: 'Close item detail', run: closeDetail },
    {
      id: 'catalog.first',
      group: 'Catalog',
      title: 'Select the first row',
      run: () => {
        navigate('catalog');
        moveSelection('first');
      },
    },
    {
      id: 'catalog.last',
      group: 'Catalog',
      title: 'Select the last row',
      run: () => {
        navigate('catalog');
        moveSelection('last');
      },
    },
    {
      id: 'buy.selected',
      group: 'Buy',
      title: 'Buy selected item',
      hint: hint('buy.selected'),
      keywords: 'purchase',
      run: openBuyForSelected,
    },
    {
      id: 'buy.byName',
      group: 'Buy',
      title: 'Buy by name',
      hint: hint('buy.byName'),
      keywords: 'purchase cheapest max price',
      run: () => openBuyByName(),
    },
    {
      id: 'trades.active',
      group: 'Trades',
      title: 'Show active trades',
      run: () => {
        navigate('trades');
        setTradesTab('active');
      },
    },
    {
      id: 'trades.history',
      group: 'Trades',
      title: 'Show trade history',
      run: () => {
        navigate('trades');
        setTradesTab('history');
      },
    },
    {
      id: 'trades.lookup',
      group: 'Trades',
      title: 'Look up an order',
      keywords: 'support find order id trade id offer partner recipient trade url player',
      run: () => openDialog({ kind: 'orderLookup' }),
    },
    ...(state.ui.screen === 'trades' && state.trades.detail.id !== null
      ? [
          {
            id: 'trades.buyNext',
            group: 'Trades' as const,
            title: 'Buy the next one (open trade)',
            keywords: 'sold elsewhere 505 again retry order chain',
            run: () => void openBuyNext({ tradeId: state.trades.detail.id as string }),
          },
        ]
      : []),
    {
      id: 'trades.export',
      group: 'Trades',
      title: 'Export trades as CSV',
      hint: state.ui.screen === 'trades' ? hint('export.csv') : undefined,
      keywords: 'download',
      run: () => void exportTradesCsv(),
    },
    {
      id: 'wallet.export',
      group: 'Wallet',
      title: 'Export ledger as CSV',
      hint: state.ui.screen === 'wallet' ? hint('export.csv') : undefined,
      keywords: 'download balance',
      run: () => void exportLedgerCsv(),
    },
    {
      id: 'alerts.new',
      group: 'Alerts',
      title: 'New alert rule',
      keywords: 'watchlist create',
      run: () => {
        navigate('alerts');
        openDialog({ kind: 'rule', ruleId: null });
      },
    },
    {
      id: 'alerts.ackSelected',
      group: 'Alerts',
      title: 'Acknowledge the selected firing',
      hint: hint('firing.acknowledge'),
      keywords: 'alert firing read',
      run: () => {
        navigate('alerts');
        acknowledgeSelectedFiring();
      },
    },
    {
      id: 'alerts.rearmSelected',
      group: 'Alerts',
      title: 'Re-arm the rule of the selected firing',
      hint: hint('firing.rearm'),
      keywords: 'alert rule fire again',
      run: () => {
        navigate('alerts');
        rearmSelectedFiring();
      },
    },
    {
      id: 'alerts.ackAll',
      group: 'Alerts',
      title: 'Acknowledge all alert firings',
      run: () => {
        const { firings, firingOrder } = getState().alerts;
        void acknowledgeAll(firingOrder.filter((id) => firings[id]?.acknowledged === false));
      },
    },
    state.settings.settings?.autoBuyStopped === true
      ? {
          id: 'alerts.autoBuyStop',
          group: 'Alerts',
          title: 'Resume auto-buy',
          keywords: 'auto-buy start stopped',
          run: () => void setAutoBuyStopped(false),
        }
      : {
          id: 'alerts.autoBuyStop',
          group: 'Alerts',
          title: 'Stop all auto-buy',
          hint: hint('autobuy.stop'),
          keywords: 'auto-buy emergency halt kill spend',
          run: stopAllAutoBuy,
        },
    {
      id: 'alerts.pause',
      group: 'Alerts',
      title: state.settings.settings?.alertsPaused ? 'Resume alerts' : 'Pause all alerts',
      run: () => void updateSettings({ alertsPaused: !getState().settings.settings?.alertsPaused }),
    },
    {
      id: 'app.theme',
      group: 'App',
      title: state.settings.settings?.theme === 'light' ? 'Switch to dark theme' : 'Switch to light theme',
      keywords: 'appearance colour color',
      run: () => void updateSettings({ theme: getState().settings.settings?.theme === 'light' ? 'dark' : 'light' }),
    },
    state.conn.account?.demo && state.conn.account.saved?.apiKeyConfigured
      ? {
          id: 'app.demo',
          group: 'App',
          title: `Leave the demo: back to ${state.conn.account.saved.merchantId}`,
          keywords: 'demo sandbox off account live',
          run: () => void switchToSavedAccount(),
        }
      : {
          id: 'app.demo',
          group: 'App',
          title: 'Use demo sandbox',
          keywords: 'connect sandbox demo on',
          run: () => void connectDemoSandbox(),
        },
    {
      id: 'app.connection',
      group: 'App',
      title: 'Test or change the connection',
      keywords: 'api key merchant',
      run: () => navigate('settings'),
    },
  ];
  if (state.conn.connection && state.conn.connection.state !== 'connected') {
    list.push({
      id: 'app.retryNow',
      group: 'App',
      title: 'Retry the connection now',
      keywords: 'reconnect offline feed live maintenance',
      run: () => void retryConnectionNow(),
    });
  }
  if (state.conn.host === 'web' && webNotificationPermission() === 'default') {
    list.push({
      id: 'app.notifications',
      group: 'App',
      title: 'Enable desktop notifications',
      run: () =>
        void requestWebNotifications().then(
          (p) => p === 'granted' && toast('success', 'Desktop notifications enabled'),
        ),
    });
  }
  return list;
}

/** Run what a key press resolved to. */
export function runKeyCommand(command: KeyCommand, target: EventTarget | null): void {
  switch (command) {
    case 'palette.toggle':
      togglePalette();
      return;
    case 'dialog.close': {
      const { ui, catalog, trades } = getState();
      if (ui.dialog) closeDialog();
      else if (target instanceof HTMLElement && target.matches('input, textarea, select')) target.blur();
      else if (ui.screen === 'catalog' && catalog.detail.id !== null) closeDetail();
      else if (ui.screen === 'trades' && trades.detail.id !== null) navigate('trades');
      return;
    }
    case 'search.focus':
      focusSearch();
      return;
    case 'buy.selected':
      openBuyForSelected();
      return;
    case 'buy.byName':
      openBuyByName();
      return;
    case 'go.catalog':
    case 'go.trades':
    case 'go.wallet':
    case 'go.alerts':
    case 'go.operations':
    case 'go.notifications':
    case 'go.settings':
      navigate(command.slice(3) as 'catalog');
      return;
    case 'selection.up':
      moveSelection(-1);
      return;
    case 'selection.down':
      moveSelection(1);
      return;
    case 'selection.pageUp':
      moveSelection(-gridMetrics.rowsPerPage);
      return;
    case 'selection.pageDown':
      moveSelection(gridMetrics.rowsPerPage);
      return;
    case 'selection.first':
      moveSelection('first');
      return;
    case 'selection.last':
      moveSelection('last');
      return;
    case 'selection.open':
      openSelectedDetail();
      return;
    case 'firing.up':
      moveFiring(-1);
      return;
    case 'firing.down':
      moveFiring(1);
      return;
    case 'firing.acknowledge':
      acknowledgeSelectedFiring();
      return;
    case 'firing.rearm':
      rearmSelectedFiring();
      return;
    case 'autobuy.stop':
      stopAllAutoBuy();
      return;
    case 'export.csv':
      if (getState().ui.screen === 'wallet') void exportLedgerCsv();
      else void exportTradesCsv();
      return;
  }
}
