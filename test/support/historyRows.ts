/**
 * A merchant's trade history written straight into the sandbox's database (no buys, no ledger, no webhooks):
 * enough rows for the Trades/History answer at a busy merchant's volume, in seconds. Only what that answer reads
 * is consistent (each row's stored wire JSON is what the sandbox would store for it); tests and benchmarks of
 * the whole merchant use the sandbox's own seeding.
 */
import type { TradeStatus } from '../../src/shared/api';
import type { Sandbox } from '../../src/server/sandbox';
import { Trades, type TradeRow } from '../../src/server/domain/trades';
import { INSERT_TRADE_ROW_SQL } from '../../src/server/seeding/historySeeder';

const DAY_MS = 24 * 3600 * 1000;
const PROTECTION_MS = 7 * DAY_MS;

/** The outcome of the i-th row: mostly completed, a few of each other ending, the newest still in flight. */
function statusOf(i: number, count: number): TradeStatus {
  if (i >= count - 5) return i % 2 === 0 ? 'PENDING' : 'SENT';
  const r = i % 50;
  if (r === 0) return 'CANCELLED';
  if (r === 1) return 'EXPIRED';
  if (r === 2) return 'FAILED';
  if (r === 3) return 'REVERSED';
  return 'COMPLETED';
}

/** Rows keep this far from a moment where they change by themselves (stage 2, out of the 14-day window). */
const QUIET_MS = 5 * 60_000;
/** From creation to the end of protection of a completed row (sent 3 s after creation, done 40 s later). */
const CREATED_TO_END_PROTECTION_MS = 43_000 + PROTECTION_MS;

/**
 * Writes `count` trades of `merchantId`, created evenly over the `days` before the sandbox clock's now (oldest
 * first), each to its own recipient, in one transaction. No row turns stage 2 or
 * leaves the 14-day window in the next 5 minutes: answers read a moment apart agree.
 */
export function insertHistoryRows(sb: Sandbox, merchantId: string, count: number, days = 14): void {
  const db = sb.core.db;
  const now = sb.core.clock.now();
  const span = days * DAY_MS - 60_000;
  const insert = db.prepare(INSERT_TRADE_ROW_SQL);
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const status = statusOf(i, count);
      let createdAt = now - span + Math.floor((span * i) / count);
      const age = now - createdAt;
      if (age > 14 * DAY_MS - QUIET_MS && age <= 14 * DAY_MS) createdAt += QUIET_MS;
      if (age > CREATED_TO_END_PROTECTION_MS - QUIET_MS && age <= CREATED_TO_END_PROTECTION_MS) createdAt += QUIET_MS;
      const sentAt = status === 'PENDING' ? null : createdAt + 3000;
      const endedAt = sentAt === null || status === 'SENT' ? null : sentAt + 40_000;
      const completedAt = status === 'COMPLETED' || status === 'REVERSED' ? endedAt : null;
      const rollbackAt = status === 'REVERSED' && completedAt !== null ? completedAt + 2 * DAY_MS : null;
      const id = `${merchantId}-${String(i).padStart(7, '0')}`;
      const row: TradeRow = {
        seq: 0,
        trade_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        merchant_id: merchantId,
        external_id: `order-${id}`,
        status,
        price: 100 + (i % 9000),
        item_id: 500_000_000 + i,
        asset_id: String(30_000_000_000 + i),
        offer_id: sentAt === null ? null : String(7_000_000_000 + i),
        trade_url: `https://steamcommunity.com/tradeoffer/new/?partner=${100_000 + (i % 5000)}&token=AbCd1234`,
        partner: String(100_000 + (i % 5000)),
        holder: `7656119800000${String(i % 900).padStart(4, '0')}`,
        market_hash_name: `AK-47 | Redline (Field-Tested) #${i % 700}`,
        phase: null,
        float: (i % 1000) / 1000,
        webhook_status: i % 97 === 0 ? 'failed' : 'sent',
        fail_reason:
          status === 'CANCELLED'
            ? 'Trade declined by user'
            : status === 'EXPIRED'
              ? 'Trade offer expired'
              : status === 'FAILED'
                ? 'Trade Offer error: (15) Target cannot trade'
                : status === 'REVERSED'
                  ? 'Buyer reversed trade on Steam'
                  : null,
        error_code: { CANCELLED: 504, EXPIRED: 503, FAILED: 500, REVERSED: 512 }[status as string] ?? null,
        trade_duration_seconds: 1800,
        created_at: createdAt,
        updated_at: rollbackAt ?? endedAt ?? sentAt ?? createdAt,
        sent_at: sentAt,
        expires_at: sentAt === null ? null : sentAt + 1_800_000,
        completed_at: completedAt,
        cancelled_at: status === 'CANCELLED' || status === 'EXPIRED' ? endedAt : null,
        end_protection: completedAt === null ? null : completedAt + PROTECTION_MS,
        rollback_at: rollbackAt,
        wire: null,
      };
      const wire = Trades.wireBaseOf(row);
      insert.run({ ...row, wire });
      // As every write of the sandbox does: answers cached or paged before are stale.
      if (i === count - 1) sb.core.trades.history.written(merchantId, row.trade_id, wire);
    }
  })();
}
