import { shortId } from '../../lib/format';
import { navigate } from '../../state/actions/navigation';
import { selectTrade } from '../../state/actions/trades';

/** A trade's short id that opens the trade on Trades (the Operations lists' first column). */
export function TradeIdButton({ tradeId }: { tradeId: string }) {
  return (
    <button
      type="button"
      className="link-btn num"
      onClick={() => {
        navigate('trades', tradeId);
        selectTrade(tradeId);
      }}
      aria-label={`${shortId(tradeId)}: open trade ${tradeId}`}
    >
      {shortId(tradeId)}
    </button>
  );
}
