import { Dialog } from '../../../components/Dialog';
import { closeDialog } from '../../../state/actions/dialogs';
import { navigate } from '../../../state/actions/navigation';
import { selectTrade } from '../../../state/actions/trades';
import { OrderLookup } from './OrderLookup';

/** The order look-up from the palette: a chosen trade opens in Trades, with its timeline and chain. */
export function OrderLookupDialog() {
  return (
    <Dialog
      title="Look up an order"
      onClose={closeDialog}
      className="lookup-dialog"
      subtitle="Searches the local trade history, offline too."
    >
      <OrderLookup
        onOpen={(tradeId) => {
          closeDialog();
          navigate('trades', tradeId);
          selectTrade(tradeId);
        }}
      />
    </Dialog>
  );
}
