import { useEffect } from 'react';
import { AlertsScreen } from '../screens/alerts/AlertsScreen';
import { CatalogScreen } from '../screens/catalog/CatalogScreen';
import { SettingsScreen } from '../screens/settings/SettingsScreen';
import { TradesScreen } from '../screens/trades/TradesScreen';
import { WalletScreen } from '../screens/wallet/WalletScreen';
import { boot, startBackground } from '../state/actions/boot';
import { useStore } from '../state/store';
import { BridgeBanner } from './BridgeBanner';
import { Dialogs } from './Dialogs';
import { Nav } from './Nav';
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

function Screen() {
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
    case 'settings':
      return <SettingsScreen />;
  }
}

export function App() {
  const boot = useStore((s) => s.conn.boot);
  useKeyboard();
  useEffect(() => startBackground(), []);
  return (
    <div className="app">
      <Nav />
      <main className="main" id="main">
        <BridgeBanner />
        {boot === 'failed' ? <BootFailure /> : <Screen />}
      </main>
      <StatusBar />
      <Toasts />
      <Dialogs />
    </div>
  );
}
