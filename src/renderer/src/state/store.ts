import { create } from 'zustand';
import { readPref } from '../lib/persist';
import { type AlertsSlice, initialAlerts } from './slices/alerts';
import { AWAY_DISMISSED_PREF, type AwaySlice, initialAway } from './slices/away';
import { type CatalogSlice, initialCatalog } from './slices/catalog';
import { type ConnSlice, initialConn } from './slices/conn';
import { initialInbox, type InboxSlice } from './slices/inbox';
import { initialNotes, type NotesSlice } from './slices/notes';
import { initialSearches, type SearchesSlice } from './slices/searches';
import { initialSettings, type SettingsSlice } from './slices/settings';
import { initialTrades, type TradesSlice } from './slices/trades';
import { initialUi, type UiSlice } from './slices/ui';
import { initialWallet, type WalletSlice } from './slices/wallet';

/**
 * One store, one slice per domain. Slices hold plain data normalized by id;
 * the functions that change them live beside each slice (pure) and in
 * `actions/` (engine calls). Components read with atomic selectors.
 */
export interface AppState {
  conn: ConnSlice;
  catalog: CatalogSlice;
  trades: TradesSlice;
  wallet: WalletSlice;
  alerts: AlertsSlice;
  settings: SettingsSlice;
  searches: SearchesSlice;
  notes: NotesSlice;
  inbox: InboxSlice;
  ui: UiSlice;
  away: AwaySlice;
}

export function initialState(): AppState {
  return {
    conn: initialConn,
    catalog: initialCatalog,
    trades: initialTrades,
    wallet: initialWallet,
    alerts: initialAlerts,
    settings: initialSettings,
    searches: initialSearches,
    notes: initialNotes,
    inbox: initialInbox,
    ui: initialUi,
    away: { ...initialAway, dismissedAt: readPref(AWAY_DISMISSED_PREF) },
  };
}

export const useStore = create<AppState>()(() => initialState());

export const getState = useStore.getState;

/** Replace one slice through a pure updater (one setState). */
export function update<K extends keyof AppState>(key: K, fn: (slice: AppState[K]) => AppState[K]): void {
  useStore.setState((s) => {
    const next = fn(s[key]);
    return next === s[key] ? s : ({ [key]: next } as unknown as Partial<AppState>);
  });
}
