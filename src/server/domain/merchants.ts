import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { IP_ALLOWLIST_MAX_ENTRIES } from '../../shared/api';
import type { SandboxClock } from '../clock';
import type { SqliteDatabase } from '../db/database';
import { ApiError, notFound } from './apiError';
import type { Ledger } from './ledger';

const revealSchema = z.strictObject({
  steamId: z.boolean().optional(),
  inspectInGame: z.boolean().optional(),
  tradeUrl: z.boolean().optional(),
});

const merchantFields = {
  apiKey: z
    .string()
    .min(16)
    .max(256)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .optional(),
  balance: z.int().min(0).optional(),
  creditLimit: z.int().min(0).optional(),
  webhookUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullable()
    .optional(),
  ipAllowlist: z.array(z.string().min(1).max(253)).max(IP_ALLOWLIST_MAX_ENTRIES).optional(),
  reveal: revealSchema.optional(),
};

export const createMerchantSchema = z.strictObject({
  merchantId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64')
    .optional(),
  ...merchantFields,
});
export type CreateMerchantInput = z.infer<typeof createMerchantSchema>;

export const updateMerchantSchema = z.strictObject(merchantFields);
export type UpdateMerchantInput = z.infer<typeof updateMerchantSchema>;

export interface Merchant {
  merchantId: string;
  apiKey: string;
  balance: number;
  creditLimit: number;
  webhookUrl: string | null;
  ipAllowlist: string[];
  reveal: { steamId: boolean; inspectInGame: boolean; tradeUrl: boolean };
  webhook: { consecutiveFailures: number; pauses: number; pausedUntil: number | null };
  createdAt: number;
}

interface MerchantRow {
  merchant_id: string;
  api_key: string;
  balance: number;
  credit_limit: number;
  webhook_url: string | null;
  ip_allowlist: string;
  reveal_steam_id: number;
  reveal_inspect: number;
  reveal_trade_url: number;
  webhook_failures: number;
  webhook_pauses: number;
  webhook_paused_until: number | null;
  created_at: number;
}

function toMerchant(row: MerchantRow): Merchant {
  return {
    merchantId: row.merchant_id,
    apiKey: row.api_key,
    balance: row.balance,
    creditLimit: row.credit_limit,
    webhookUrl: row.webhook_url,
    ipAllowlist: JSON.parse(row.ip_allowlist) as string[],
    reveal: {
      steamId: row.reveal_steam_id === 1,
      inspectInGame: row.reveal_inspect === 1,
      tradeUrl: row.reveal_trade_url === 1,
    },
    webhook: {
      consecutiveFailures: row.webhook_failures,
      pauses: row.webhook_pauses,
      pausedUntil: row.webhook_paused_until,
    },
    createdAt: row.created_at,
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();
// Compared when the merchant id is unknown, so both paths cost the same.
const DECOY_KEY_DIGEST = digest(randomBytes(32).toString('hex'));

export function generateApiKey(): string {
  return `sk_sandbox_${randomBytes(24).toString('hex')}`;
}

export class Merchants {
  private readonly byIdStmt;
  private readonly listeners = new Set<(merchant: Merchant, change: 'created' | 'updated') => void>();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly clock: SandboxClock,
    private readonly ledger: Ledger,
  ) {
    this.byIdStmt = db.prepare<[string], MerchantRow>('SELECT * FROM merchants WHERE merchant_id = ?');
  }

  onChange(listener: (merchant: Merchant, change: 'created' | 'updated') => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  find(merchantId: string): Merchant | null {
    const row = this.byIdStmt.get(merchantId);
    return row ? toMerchant(row) : null;
  }

  get(merchantId: string): Merchant {
    const merchant = this.find(merchantId);
    if (!merchant) throw notFound(`merchant ${merchantId}`);
    return merchant;
  }

  all(): Merchant[] {
    return (this.db.prepare('SELECT * FROM merchants ORDER BY created_at').all() as MerchantRow[]).map(toMerchant);
  }

  /** Constant-time check of the credentials; null when they do not match. */
  authenticate(merchantId: string | undefined, apiKey: string | undefined): Merchant | null {
    if (!merchantId || !apiKey) return null;
    const merchant = this.find(merchantId);
    const expected = merchant ? digest(merchant.apiKey) : DECOY_KEY_DIGEST;
    const matches = timingSafeEqual(expected, digest(apiKey));
    return merchant && matches ? merchant : null;
  }

  create(input: CreateMerchantInput): Merchant {
    const merchantId = input.merchantId ?? `m_${randomBytes(6).toString('hex')}`;
    const create = this.db.transaction(() => {
      if (this.byIdStmt.get(merchantId))
        throw new ApiError(409, 'invalid_request', `merchant ${merchantId} already exists`);
      this.db
        .prepare(
          `INSERT INTO merchants (merchant_id, api_key, balance, credit_limit, webhook_url, ip_allowlist,
             reveal_steam_id, reveal_inspect, reveal_trade_url, created_at)
           VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          merchantId,
          input.apiKey ?? generateApiKey(),
          input.creditLimit ?? 0,
          input.webhookUrl ?? null,
          JSON.stringify(input.ipAllowlist ?? []),
          input.reveal?.steamId ? 1 : 0,
          input.reveal?.inspectInGame ? 1 : 0,
          input.reveal?.tradeUrl ? 1 : 0,
          this.clock.now(),
        );
      if (input.balance)
        this.ledger.post(merchantId, { type: 'ADMIN TOP UP', amount: input.balance, note: 'Starting balance' });
    });
    create();
    const merchant = this.get(merchantId);
    for (const listener of this.listeners) listener(merchant, 'created');
    return merchant;
  }

  /** A new balance is reached by an ADMIN TOP UP or ADMIN DEDUCT entry, so the ledger stays whole. */
  update(merchantId: string, input: UpdateMerchantInput): Merchant {
    const update = this.db.transaction(() => {
      const current = this.get(merchantId);
      const sets: string[] = [];
      const params: Record<string, string | number | null> = { merchantId };
      const set = (column: string, value: string | number | null) => {
        sets.push(`${column} = @${column}`);
        params[column] = value;
      };
      if (input.apiKey !== undefined) set('api_key', input.apiKey);
      if (input.creditLimit !== undefined) set('credit_limit', input.creditLimit);
      if (input.webhookUrl !== undefined) {
        set('webhook_url', input.webhookUrl);
        // A new URL closes the circuit breaker (spec: delivery resumes when the URL is updated).
        set('webhook_failures', 0);
        set('webhook_paused_until', null);
      }
      if (input.ipAllowlist !== undefined) set('ip_allowlist', JSON.stringify(input.ipAllowlist));
      if (input.reveal?.steamId !== undefined) set('reveal_steam_id', input.reveal.steamId ? 1 : 0);
      if (input.reveal?.inspectInGame !== undefined) set('reveal_inspect', input.reveal.inspectInGame ? 1 : 0);
      if (input.reveal?.tradeUrl !== undefined) set('reveal_trade_url', input.reveal.tradeUrl ? 1 : 0);
      if (sets.length > 0)
        this.db.prepare(`UPDATE merchants SET ${sets.join(', ')} WHERE merchant_id = @merchantId`).run(params);
      if (input.balance !== undefined && input.balance !== current.balance) {
        const amount = input.balance - current.balance;
        this.ledger.post(merchantId, {
          type: amount > 0 ? 'ADMIN TOP UP' : 'ADMIN DEDUCT',
          amount,
          note: 'Balance set by administrator',
        });
      }
    });
    update();
    const merchant = this.get(merchantId);
    for (const listener of this.listeners) listener(merchant, 'updated');
    return merchant;
  }

  setWebhookBreaker(
    merchantId: string,
    state: { consecutiveFailures: number; pauses: number; pausedUntil: number | null },
  ): void {
    this.db
      .prepare(
        'UPDATE merchants SET webhook_failures = ?, webhook_pauses = ?, webhook_paused_until = ? WHERE merchant_id = ?',
      )
      .run(state.consecutiveFailures, state.pauses, state.pausedUntil, merchantId);
  }
}

/** What the admin API shows of a merchant. */
export function describeMerchant(merchant: Merchant) {
  return {
    merchantId: merchant.merchantId,
    apiKey: merchant.apiKey,
    balance: merchant.balance,
    creditLimit: merchant.creditLimit,
    totalAvailable: merchant.balance + merchant.creditLimit,
    webhookUrl: merchant.webhookUrl,
    ipAllowlist: merchant.ipAllowlist,
    reveal: merchant.reveal,
    webhook: {
      consecutiveFailures: merchant.webhook.consecutiveFailures,
      pauses: merchant.webhook.pauses,
      pausedUntil: merchant.webhook.pausedUntil === null ? null : new Date(merchant.webhook.pausedUntil).toISOString(),
    },
  };
}
