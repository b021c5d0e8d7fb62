/**
 * An account store holding a busy merchant's history, written straight into a real store file (the app's schema,
 * its triggers keeping the roll-ups, the rows as the writer writes them: every Trade field, status_rank, updated_at,
 * partner), in createdAt order: `tradesPerDay` trades a day over `recipients` recipients, the outcome mix of the
 * sandbox's seeding (the spec's outcome table: mostly completed; expiries, declines, sold elsewhere, counters,
 * failures, reversals by the buyer or the seller; the last hour still active; ~1 % webhook failures; the sandbox's
 * protection period, so the last week's completed trades are still reversible at the history's end), a FREEZE for each buy, a BUY COMPLETED or BUY CANCELLED when it ends, a TRADE ROLLBACK for a
 * reversal, balances chained.
 * Much faster than through the writer's calls (one transaction per 20,000 rows, no zod; the indexes and triggers
 * of trades and ledger set aside meanwhile, then built again and the roll-ups filled as the schema's migration
 * fills them), the same rows.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { LocalStore } from '../../src/main/core/store';
import {
  FAILURE_DAYS_FROM_ROWS,
  partnerOf,
  RECIPIENT_TOTALS_FROM_ROWS,
  ROLLUPS_FROM_ROWS,
  TRADE_NAMES_FROM_ROWS,
} from '../../src/main/core/store/schema';
import { STATUS_RANK, TRADE_FIELDS } from '../../src/main/core/store/worker/recordRows';
import { buildTradeUrl, type Trade, type TradeStatus } from '../../src/shared/api';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';
import { SANDBOX_CHOICES } from '../../src/server/config';
import { PLATFORM_NAME } from '../../src/server/domain/lifecycle';
import type { Sandbox } from '../../src/server/sandbox';
import { CACHE_DIR, createMerchant, type MerchantCredentials } from './sandbox';

export interface BusyStoreSpec {
  days: number;
  tradesPerDay: number;
  recipients: number;
  /** The newest trade's day ends here (ms). */
  endMs: number;
  seed?: number;
}

/** The day the benchmarks' busy stores end (fixed, so the cached fill is shared by every benchmark and run). */
export const BUSY_STORE_END_MS = Date.parse('2026-11-29T00:00:00.000Z');

/** A busy merchant's store of `days` at 10,000 trades a day over 5,000 recipients, ending BUSY_STORE_END_MS. */
export const busyStoreSpec = (days: number): BusyStoreSpec => ({
  days,
  tradesPerDay: 10_000,
  recipients: 5_000,
  endMs: BUSY_STORE_END_MS,
});

/** A recipient's partner number (the first is 100001): what a query by recipient asks. */
export const partnerOfRecipient = (index: number): number => 100_001 + index;

/** mulberry32: the same history for the same seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The spec's outcome table, by share: status, errorCode, failReason. */
const OUTCOMES: readonly { status: TradeStatus; share: number; errorCode: number | null; failReason: string | null }[] =
  [
    { status: 'COMPLETED', share: 0.86, errorCode: null, failReason: null },
    { status: 'EXPIRED', share: 0.05, errorCode: 503, failReason: 'Trade offer expired' },
    { status: 'CANCELLED', share: 0.03, errorCode: 504, failReason: 'Trade declined by user' },
    { status: 'CANCELLED', share: 0.015, errorCode: 505, failReason: 'Items no longer valid' },
    { status: 'CANCELLED', share: 0.005, errorCode: 506, failReason: 'Trade countered' },
    { status: 'FAILED', share: 0.02, errorCode: 500, failReason: 'platform error' },
    { status: 'REJECTED', share: 0.01, errorCode: null, failReason: null },
    { status: 'REVERSED', share: 0.007, errorCode: 512, failReason: `Buyer reversed trade on ${PLATFORM_NAME}` },
    { status: 'REVERSED', share: 0.003, errorCode: 512, failReason: `Seller reversed trade on ${PLATFORM_NAME}` },
  ];
const NAMES = ['AK-47 | Redline (Field-Tested)', 'AWP | Asiimov (Battle-Scarred)', 'M4A4 | Howl (Minimal Wear)'];

export async function fillBusyStore(
  file: string,
  spec: BusyStoreSpec,
  log: (line: string) => void = () => {},
): Promise<{ trades: number; ledger: number }> {
  const store = await LocalStore.open({ file });
  await store.close();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const setAside = db
    .prepare<[], { type: string; name: string; sql: string }>(
      "SELECT type, name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name IN ('trades', 'ledger') AND sql IS NOT NULL",
    )
    .all();
  for (const { type, name } of setAside) db.exec(`DROP ${type.toUpperCase()} ${name}`);
  const rnd = random(spec.seed ?? 34);
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;
  const tokens = Array.from({ length: spec.recipients }, () => hex(8));
  const columns = [...TRADE_FIELDS, 'status_rank', 'updated_at', 'partner'];
  const insertTrade = db.prepare(
    `INSERT INTO trades (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
  );
  const insertLedger = db.prepare(
    `INSERT INTO ledger (id, type, amount, balanceBefore, balanceAfter, tradeId, note, createdAt, market_hash_name, phase)
     VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, NULL)`,
  );
  const total = spec.days * spec.tradesPerDay;
  const startMs = spec.endMs - spec.days * 86_400_000;
  const step = (spec.days * 86_400_000) / total;
  let balance = 0;
  let ledgerId = 0;
  const entry = (type: string, amount: number, tradeId: string | null, at: string, name: string | null) => {
    insertLedger.run(++ledgerId, type, amount, balance, balance + amount, tradeId, at, name);
    balance += amount;
  };
  entry('ADMIN TOP UP', 100_000_000_000, null, new Date(startMs - 1000).toISOString(), null);
  const batch = 20_000;
  for (let done = 0; done < total;) {
    db.transaction(() => {
      const end = Math.min(total, done + batch);
      for (let i = done; i < end; i++) {
        const createdMs = Math.floor(startMs + i * step);
        const createdAt = new Date(createdMs).toISOString();
        const recipient = Math.floor(rnd() * spec.recipients);
        const price = 100 + Math.floor(rnd() * 20_000);
        const name = NAMES[i % NAMES.length] as string;
        let outcome = OUTCOMES[0] as (typeof OUTCOMES)[number];
        let status: TradeStatus = 'COMPLETED';
        if (spec.endMs - createdMs < 3_600_000) status = rnd() < 0.5 ? 'PENDING' : 'SENT';
        else {
          let r = rnd();
          for (const candidate of OUTCOMES) {
            if (r < candidate.share) {
              outcome = candidate;
              break;
            }
            r -= candidate.share;
          }
          status = outcome.status;
        }
        const tradeId = uuid();
        const endedMs = createdMs + 600_000;
        const endedAt = new Date(endedMs).toISOString();
        const final = STATUS_RANK[status] >= 2;
        const delivered = status === 'COMPLETED' || status === 'REVERSED';
        // The sandbox's protection period: the last week's completed trades can still be reversed at the history's end.
        const endProtectionMs = endedMs + SANDBOX_CHOICES.endProtectionMs;
        const trade: Trade = {
          tradeId,
          externalId: `wd_${(1_000_000 + i).toString(36)}_${hex(4)}`,
          status,
          price,
          itemId: 1 + (i % 500_000),
          assetId: String(30_000_000_000 + i),
          offerId: status === 'PENDING' ? null : String(7_000_000_000 + i),
          tradeUrl: buildTradeUrl(partnerOfRecipient(recipient), tokens[recipient] as string),
          market_hash_name: name,
          phase: null,
          float: rnd(),
          webhookStatus: rnd() < 0.01 ? 'failed' : 'sent',
          failReason: final ? outcome.failReason : null,
          errorCode: final ? outcome.errorCode : null,
          createdAt,
          updatedAt: final ? endedAt : createdAt,
          completedAt: delivered ? endedAt : null,
          cancelledAt: status === 'CANCELLED' || status === 'EXPIRED' ? endedAt : null,
          endProtection: delivered ? new Date(endProtectionMs).toISOString() : null,
          rollbackAt: status === 'REVERSED' ? endedAt : null,
          stage: delivered && endProtectionMs <= spec.endMs ? 2 : 1,
        };
        insertTrade.run({
          ...trade,
          status_rank: STATUS_RANK[status],
          updated_at: createdMs,
          partner: partnerOfRecipient(recipient),
        });
        entry('FREEZE', -price, tradeId, createdAt, name);
        // Its end, in the same order as time (the entry 1 ms after the freeze keeps the ledger in createdAt order).
        if (status === 'COMPLETED' || status === 'REVERSED')
          entry('BUY COMPLETED', 0, tradeId, new Date(createdMs + 1).toISOString(), name);
        if (status === 'REVERSED') entry('TRADE ROLLBACK', price, tradeId, new Date(createdMs + 2).toISOString(), name);
        else if (final) entry('BUY CANCELLED', price, tradeId, new Date(createdMs + 1).toISOString(), name);
      }
      done = end;
    })();
    if (done % 500_000 < batch)
      log(`filled ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} trades`);
  }
  log('building the indexes and the roll-ups');
  for (const { sql } of setAside) db.exec(sql);
  db.function('partner_of', { deterministic: true }, (url: unknown) =>
    typeof url === 'string' ? partnerOf(url) : null,
  );
  db.exec(ROLLUPS_FROM_ROWS);
  db.exec(FAILURE_DAYS_FROM_ROWS);
  db.exec(RECIPIENT_TOTALS_FROM_ROWS);
  db.exec(TRADE_NAMES_FROM_ROWS);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { trades: total, ledger: ledgerId };
}

/**
 * A copy at `target` of the busy store of `spec`, filled once and cached (bench/.cache, by spec and schema
 * version; a year's store takes many minutes to fill).
 */
/**
 * What the cached file's name changes with: the fill's own rows, not the schema version. A store filled under an
 * older schema is migrated when the bench opens its copy, as a merchant's year-old store is (a year's fill takes
 * half an hour; a migration seconds). Format 2: the outcome table's codes and reasons, and a real protection period.
 */
const FILL_FORMAT = 2;

export async function busyStoreCopy(spec: BusyStoreSpec, target: string, log: (line: string) => void): Promise<void> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const cached = join(
    CACHE_DIR,
    `busy-store-${spec.days}d-${spec.tradesPerDay}pd-${spec.recipients}r-${spec.endMs}-f${FILL_FORMAT}.sqlite`,
  );
  if (!existsSync(cached)) {
    const tmp = `${cached}.tmp`;
    for (const suffix of ['', '-wal', '-shm', '.snapshot', '.auto-buys']) rmSync(tmp + suffix, { force: true });
    const started = performance.now();
    log(
      `filling a store with ${(spec.days * spec.tradesPerDay).toLocaleString('en-US')} trades once (cached in ${cached})...`,
    );
    await fillBusyStore(tmp, spec, log);
    for (const suffix of ['.snapshot', '.auto-buys']) rmSync(tmp + suffix, { force: true });
    renameSync(tmp, cached);
    log(`filled in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  copyFileSync(cached, target);
}

/** A new merchant of `sb` whose account store in `dataDir` is a copy of the busy store of `spec` (what a host opens). */
export async function busyAccount(
  sb: Sandbox,
  dataDir: string,
  spec: BusyStoreSpec,
  log: (line: string) => void,
): Promise<{ merchant: MerchantCredentials; file: string }> {
  const merchant = createMerchant(sb, { balance: 1_000_000 });
  mkdirSync(join(dataDir, 'accounts'), { recursive: true });
  const file = accountStoreFile(dataDir, merchant.merchantId);
  await busyStoreCopy(spec, file, log);
  return { merchant, file };
}
