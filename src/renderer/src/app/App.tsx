import { lazy, Suspense, useEffect } from 'react';
import { CatalogScreen } from '../screens/catalog/CatalogScreen';
import { boot, startBackground } from '../state/actions/boot';
import { useStore } from '../state/store';
import { AwaySummaryBanner } from './AwaySummaryBanner';
import { BridgeBanner } from './BridgeBanner';
import { Dialogs } from './Dialogs';
import { Nav } from './Nav';
import { useUnreadTitle } from './useUnreadTitle';
import { StatusBar } from './StatusBar';
import { Toasts } from './Toasts';
import { useKeyboard } from './useKeyboard';

function BootFailure() {
  const error = useStore((s) => s.conn.bootError);
  return (
    <div className="boot-failure" role="alert">
      <div className="boot-card">
        <h1>Merchant Desk cannot reach its engine</h1>
        <p className="muted">The user interface started, but the part that talks to the marketplace did not answer.</p>
        {error ? <pre className="boot-error">{error}</pre> : null}
        <button type="button" className="btn primary" onClick={() => void boot()}>
          Try again
        </button>
      </div>
    </div>
  );
}

// The catalog is the first screen; the others load when first opened (less JavaScript to parse at start).
const TradesScreen = lazy(() => import('../screens/trades/TradesScreen').then((m) => ({ default: m.TradesScreen })));
const WalletScreen = lazy(() => import('../screens/wallet/WalletScreen').then((m) => ({ default: m.WalletScreen })));
const AlertsScreen = lazy(() => import('../screens/alerts/AlertsScreen').then((m) => ({ default: m.AlertsScreen })));
const NotificationsScreen = lazy(() =>
  import('../screens/notifications/NotificationsScreen').then((m) => ({ default: m.NotificationsScreen })),
);
const OperationsScreen = lazy(() =>
  import('../screens/operations/OperationsScreen').then((m) => ({ default: m.OperationsScreen })),
);
const SettingsScreen = lazy(() =>
  import('../screens/settings/SettingsScreen').then((m) => ({ default: m.SettingsScreen })),
);

function ScreenByName() {
  const screen = useStore((s) => s.ui.screen);
  switch (screen) {
    case 'catalog':
      return <CatalogScreen />;
    case 'trades':
      return <TradesScreen />;
    case 'wallet':
      return <WalletScreen />;
    case 'alerts':
      return <AlertsScreen />;
    case 'notifications':
      return <NotificationsScreen />;
    case 'operations':
      return <OperationsScreen />;
    case 'settings':
      return <SettingsScreen />;
  }
}

function Screen() {
  return (
    <Suspense fallback={<div className="screen-loading" aria-busy="true" />}>
      <ScreenByName />
    </Suspense>
  );
}

export function App() {
  const boot = useStore((s) => s.conn.boot);
  useKeyboard();
  useUnreadTitle();
  useEffect(() => startBackground(), []);
  return (
    <div className="app">
      <Nav />
      <main className="main" id="main">
        <BridgeBanner />
        <AwaySummaryBanner />
        {boot === 'failed' ? <BootFailure /> : <Screen />}
      </main>
      <StatusBar />
      <Toasts />
      <Dialogs />
    </div>
  );
}
