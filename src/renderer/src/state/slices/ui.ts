import type { OrderChainInput } from '../../../../shared/ipc/contract';
import type { CatalogRow } from '../../../../shared/ipc/models';

export type Screen = 'catalog' | 'trades' | 'wallet' | 'alerts' | 'operations' | 'notifications' | 'settings';

export const SCREENS: readonly { id: Screen; label: string; key: string }[] = [
  { id: 'catalog', label: 'Catalog', key: 'C' },
  { id: 'trades', label: 'Trades', key: 'T' },
  { id: 'wallet', label: 'Wallet', key: 'W' },
  { id: 'alerts', label: 'Alerts', key: 'A' },
  { id: 'operations', label: 'Operations', key: 'O' },
  { id: 'notifications', label: 'Notifications', key: 'N' },
  { id: 'settings', label: 'Settings', key: 'S' },
];

export interface BuyByNamePrefill {
  market_hash_name?: string;
  phase?: string | null;
  maxPrice?: number;
  itemId?: number;
  assetId?: string;
  /** "Buy the next one" of an order: reviewed as a buy by name, bought through operations.buyNext. */
  next?: { from: OrderChainInput; externalId: string; tradeUrl: string; cap: number };
}

export type Dialog =
  | {
      kind: 'buy';
      itemId: number;
      row: Pick<
        CatalogRow,
        'itemId' | 'assetId' | 'market_hash_name' | 'phase' | 'price' | 'float' | 'rarityColor' | 'img'
      >;
    }
  | { kind: 'buyByName'; prefill: BuyByNamePrefill }
  /** `enabling`: switching an auto-buy rule on (the editor shows what it matches now first). */
  | { kind: 'rule'; ruleId: string | null; enabling?: boolean }
  | { kind: 'palette' }
  /** Name the catalog's current filters and sort (a new search, or replacing one of that name). */
  | { kind: 'saveSearch' }
  | { kind: 'renameSearch'; searchId: string }
  /** Turn a saved search into an alert rule, saying which filters the rule cannot carry. */
  | { kind: 'watchSearch'; searchId: string }
  /** Find a trade by order id, trade id, trade URL or partner id, offer id or item name. */
  | { kind: 'orderLookup' };

export interface UiSlice {
  screen: Screen;
  dialog: Dialog | null;
  /** An order id for the Operations look-up to find (a link to an order); `seq` tells a repeat of it apart. */
  orderLookup?: { query: string; seq: number };
}

export const initialUi: UiSlice = { screen: 'catalog', dialog: null };

export function screenFromHash(hash: string): { screen: Screen; sub: string | null } {
  const [, first = '', ...rest] = hash.replace(/^#/, '').split('/');
  const screen = SCREENS.find((s) => s.id === first)?.id ?? 'catalog';
  const sub = rest.length > 0 ? decodeURIComponent(rest.join('/')) : null;
  return { screen, sub: sub === '' ? null : sub };
}
