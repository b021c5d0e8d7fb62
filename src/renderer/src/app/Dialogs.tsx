import { BuyByNameDialog } from '../screens/buy/BuyByNameDialog';
import { BuyDialog } from '../screens/buy/BuyDialog';
import { RuleEditor } from '../screens/alerts/RuleEditor';
import { OrderLookupDialog } from '../screens/operations/lookup/OrderLookupDialog';
import { RenameSearchDialog, SaveSearchDialog, WatchSearchDialog } from '../screens/searches/SearchDialogs';
import { useStore } from '../state/store';
import { CommandPalette } from './CommandPalette';

export function Dialogs() {
  const dialog = useStore((s) => s.ui.dialog);
  if (!dialog) return null;
  switch (dialog.kind) {
    case 'buy':
      return <BuyDialog key={`buy-${dialog.itemId}`} dialog={dialog} />;
    case 'buyByName':
      return <BuyByNameDialog key={dialog.prefill.next?.externalId ?? 'by-name'} dialog={dialog} />;
    case 'rule':
      return <RuleEditor key={dialog.ruleId ?? 'new'} ruleId={dialog.ruleId} enabling={dialog.enabling === true} />;
    case 'palette':
      return <CommandPalette />;
    case 'saveSearch':
      return <SaveSearchDialog />;
    case 'renameSearch':
      return <RenameSearchDialog key={dialog.searchId} searchId={dialog.searchId} />;
    case 'watchSearch':
      return <WatchSearchDialog key={dialog.searchId} searchId={dialog.searchId} />;
    case 'orderLookup':
      return <OrderLookupDialog />;
  }
}
