import { openDialog } from '../../state/actions/dialogs';
import { toast } from '../../state/actions/toast';
import { selectedRow } from '../../state/slices/catalog';
import type { BuyByNamePrefill } from '../../state/slices/ui';
import { getState } from '../../state/store';

/** Open "Buy item" for the item in the detail panel, else the selected row. */
export function openBuyForSelected(): void {
  const { catalog } = getState();
  const detail = catalog.detail.data?.item;
  if (catalog.detail.id !== null && detail && detail.itemId === catalog.detail.id) {
    if (catalog.detail.data?.onSale === false) {
      toast('warn', 'No longer on sale', detail.market_hash_name);
      return;
    }
    const live = catalog.rows[detail.itemId];
    openDialog({
      kind: 'buy',
      itemId: detail.itemId,
      row: {
        itemId: detail.itemId,
        assetId: detail.assetId,
        market_hash_name: detail.market_hash_name,
        phase: detail.phase,
        price: live?.price ?? detail.price,
        float: detail.float,
        rarityColor: detail.rarityColor,
        img: detail.img,
      },
    });
    return;
  }
  const row = (catalog.detail.id !== null ? catalog.rows[catalog.detail.id] : undefined) ?? selectedRow(catalog);
  if (!row) {
    toast('info', 'Select an item first', 'Use the arrow keys or click a row in the Catalog, then press B.');
    return;
  }
  if (catalog.removed[row.itemId]) {
    toast('warn', 'No longer on sale', row.market_hash_name);
    return;
  }
  openDialog({ kind: 'buy', itemId: row.itemId, row });
}

/** Open "Buy by name", prefilled from the selected item when there is one. */
export function openBuyByName(prefill?: BuyByNamePrefill): void {
  if (prefill) {
    openDialog({ kind: 'buyByName', prefill });
    return;
  }
  const { catalog, ui } = getState();
  const row =
    ui.screen === 'catalog'
      ? ((catalog.detail.id !== null ? catalog.rows[catalog.detail.id] : undefined) ?? selectedRow(catalog))
      : undefined;
  openDialog({
    kind: 'buyByName',
    prefill: row ? { market_hash_name: row.market_hash_name, phase: row.phase, maxPrice: row.price } : {},
  });
}
