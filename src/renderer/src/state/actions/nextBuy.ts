import type { BuyNextInput, OrderChainInput } from '../../../../shared/ipc/contract';
import type { BuyOutcome, OrderChain, OrderLookupResult } from '../../../../shared/ipc/models';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { onBought } from './buy';
import { openDialog } from './dialogs';
import { toast } from './toast';

export async function loadOrderChain(from: OrderChainInput): Promise<OrderChain> {
  return unwrap(api().operations.orderChain(from));
}

/**
 * "Buy the next one": the engine plans it (the order id, name, recipient and maximum), then the usual review and
 * confirmation of a buy by name show it; nothing is bought before Confirm. With no next one, says why.
 */
export async function openBuyNext(from: OrderChainInput): Promise<void> {
  let chain: OrderChain;
  try {
    chain = await loadOrderChain(from);
  } catch (e) {
    toast('error', 'Could not plan the next buy', errorMessage(e));
    return;
  }
  const next = chain.next;
  if (!next) {
    toast('info', 'No next buy for this order', chain.unavailable ?? '');
    return;
  }
  if (!next.cheapest) {
    toast(
      'warn',
      'No listing under the maximum',
      `No listing of ${next.market_hash_name} at or under the original maximum is in the catalog now: nothing to buy.`,
    );
    return;
  }
  openDialog({
    kind: 'buyByName',
    prefill: {
      market_hash_name: next.market_hash_name,
      phase: next.phase,
      maxPrice: next.maxPrice,
      next: { from, externalId: next.externalId, tradeUrl: next.tradeUrl, cap: next.maxPrice },
    },
  });
}

export async function buyNext(input: BuyNextInput): Promise<BuyOutcome> {
  const outcome = await unwrap(api().operations.buyNext(input));
  onBought(outcome);
  return outcome;
}

export async function lookupOrders(query: string): Promise<OrderLookupResult> {
  return unwrap(api().operations.lookup({ query }));
}
