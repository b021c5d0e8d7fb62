import { parseTradeUrl } from '../../../shared/api';
import { toUtcIso } from '../../../shared/time';
import { isRefusalCode } from '../operations/failures';
import { partnerOf } from '../store/schema';
import { PARTNER_BLOCK_META, type PartnerBlock } from '../store/worker/recipientsQuery';
import type { BuyingAccount } from './buyingAccount';
import type { Order } from './orders';

/** What a buy's refusals leave behind in the account's store: the failures board's rows and partner blocks. */
export class RefusalRecords {
  /**
   * `onRefusalRecorded`: a refusal the failures board counts was stored (Operations → Failures reads again);
   * `onRecipientsChanged`: a partner_blocked answer was recorded (Operations → Recipients shows the block).
   */
  constructor(
    private readonly account: () => BuyingAccount,
    private readonly onRefusalRecorded: () => void,
    private readonly onRecipientsChanged: () => void,
  ) {}

  /** A partner_blocked answer: its end, kept by partner for Operations → Recipients and the buy check. */
  async recordBlock(tradeUrl: string, expiresAt: string): Promise<void> {
    const partner = parseTradeUrl(tradeUrl)?.partner;
    if (!partner) return;
    const block: PartnerBlock = { partner: Number(partner), expiresAt, seenAt: toUtcIso(Date.now()) };
    try {
      await this.account().store.setMeta(`${PARTNER_BLOCK_META}${partner}`, block);
      this.onRecipientsChanged();
    } catch {
      // The refusal is told either way; the record only feeds the Recipients view.
    }
  }

  /**
   * Stores a refusal the failures board counts, in the background (resolves once stored or failed, never rejects).
   * `byMarketplace`: the marketplace refused it (not the desk's own wait or check), so a buy by name's record is one
   * "buy the next one" continues from.
   */
  recordRefusal(
    externalId: string,
    order: Order,
    code: string,
    detail: string,
    price: number,
    byMarketplace = false,
  ): Promise<void> {
    if (!isRefusalCode(code)) return Promise.resolve();
    const store = this.account().store;
    const at = toUtcIso(Date.now());
    return (async () => {
      const itemId = order.itemId;
      const name =
        order.kind === 'name'
          ? order.market_hash_name
          : ((await store.findItemsByIds([order.itemId]).catch(() => []))[0]?.market_hash_name ?? null);
      await store.recordBuyRefusal({
        at,
        code,
        itemId,
        market_hash_name: name,
        price,
        partner: partnerOf(order.tradeUrl),
        externalId,
        detail: detail.slice(0, 500),
        byName: byMarketplace && order.kind === 'name' ? { phase: order.phase, tradeUrl: order.tradeUrl } : null,
      });
      this.onRefusalRecorded();
    })().catch(() => {
      // The board misses one refusal; the buy's answer stands.
    });
  }
}
