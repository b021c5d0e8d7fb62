import type { BuyByIdInput, BuyByNameInput } from '../../../../shared/ipc/contract';
import type { BuyOutcome, BuyWarning } from '../../../../shared/ipc/models';
import { formatCents } from '../../lib/format';
import { api, unwrap } from '../../lib/ipc';
import { writePref } from '../../lib/persist';
import { closeDialog, navigate, toast } from './ui';
import { selectTrade } from './trades';

export async function checkBuy(input: BuyByIdInput): Promise<BuyWarning[]> {
  return unwrap(api().buy.check(input));
}

function remember(input: BuyByIdInput | BuyByNameInput) {
  writePref('lastRecipient', 'recipientId' in input.recipient ? input.recipient.recipientId : null);
}

/** A successful buy: toast, close the dialog, open the new trade. */
function onBought(outcome: BuyOutcome): void {
  if (!outcome.ok) return;
  const t = outcome.trade;
  toast('success', `Bought ${t.market_hash_name}`, `${formatCents(t.price)} · trade ${t.tradeId} is ${t.status}`, {
    type: 'trade',
    tradeId: t.tradeId,
  });
  closeDialog();
  navigate('trades', t.tradeId);
  selectTrade(t.tradeId);
}

export async function buyById(input: BuyByIdInput): Promise<BuyOutcome> {
  const outcome = await unwrap(api().buy.byId(input));
  if (outcome.ok) {
    remember(input);
    onBought(outcome);
  }
  return outcome;
}

export async function buyByName(input: BuyByNameInput): Promise<BuyOutcome> {
  const outcome = await unwrap(api().buy.byName(input));
  if (outcome.ok) {
    remember(input);
    onBought(outcome);
  }
  return outcome;
}
