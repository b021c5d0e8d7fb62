import { toUtcIso } from '../../../shared/time';

/** How many refused buys by name are kept (the oldest dropped first). */
const KEPT = 500;

/** A buy by name the marketplace refused: what it asked for, and why it was refused. */
export interface NameRefusal {
  externalId: string;
  market_hash_name: string;
  phase: string | null;
  maxPrice: number;
  tradeUrl: string;
  code: string;
  message: string;
  at: string;
}

/**
 * The buys by name refused while the app runs, by account (its store file) and order id: no trade holds them, and
 * "buy the next one" after a refusal needs what was asked (the name, phase, maximum and recipient). Memory only:
 * lost on restart.
 */
export class NameRefusals {
  private readonly byId = new Map<string, NameRefusal>();

  add(account: string, refusal: Omit<NameRefusal, 'at'>): void {
    const key = `${account}\n${refusal.externalId}`;
    this.byId.delete(key);
    this.byId.set(key, { ...refusal, at: toUtcIso(Date.now()) });
    if (this.byId.size > KEPT) this.byId.delete(this.byId.keys().next().value as string);
  }

  get(account: string, externalId: string): NameRefusal | null {
    return this.byId.get(`${account}\n${externalId}`) ?? null;
  }
}
