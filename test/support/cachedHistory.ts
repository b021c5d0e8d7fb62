/**
 * A busy merchant's history written straight into the engine's cache of an account (a real store file where the
 * engine looks for it), for tests of what the engine does with what it holds: exports. Trades share their
 * createdAt in runs of 7 (a chunk boundary falls inside a run), and their ids are not in insertion order.
 */
import type { BalanceTransaction, Trade } from '../../src/shared/api';
import { accountStoreFile } from '../../src/main/core/engine/accountFiles';
import { LocalStore } from '../../src/main/core/store';
import { trade } from '../renderer/fixtures';

const NEWEST = Date.UTC(2026, 2, 14, 12, 0, 0);
const SAME_INSTANT = 7;

function tradeNo(i: number, count: number): Trade {
  const at = new Date(NEWEST - Math.floor(i / SAME_INSTANT) * 1000).toISOString();
  // A scrambled id: within one createdAt the screen's order (tradeId DESC) is not the insertion order.
  const tradeId = `t${String((i * 7919) % count).padStart(7, '0')}-${String(i).padStart(7, '0')}`;
  // Some cells a CSV must quote or defuse: a formula, quotes and commas, a line break; some empty ones.
  return trade(tradeId, 'COMPLETED', {
    externalId: i % 11 === 5 ? `=HYPERLINK("x",${i})` : `order-${i}`,
    price: 100 + (i % 9000),
    itemId: 1 + i,
    market_hash_name: i % 5 === 0 ? 'StatTrak™ AK-47 | "Redline", (Field-Tested)' : 'AK-47 | Redline (Field-Tested)',
    phase: i % 9 === 0 ? 'Phase 2' : null,
    float: i % 4 === 0 ? null : (i % 1000) / 1000 + 0.000123456789,
    webhookStatus: i % 3 === 0 ? 'failed' : null,
    errorCode: i % 7 === 0 ? 504 : null,
    failReason: i % 17 === 0 ? 'line\nbreak, "quoted"' : null,
    createdAt: at,
    updatedAt: at,
    completedAt: at,
  });
}

function entryNo(i: number): BalanceTransaction {
  return {
    id: i + 1,
    type: 'FREEZE',
    amount: -105,
    balanceBefore: 10_000_000 - i * 105,
    balanceAfter: 10_000_000 - (i + 1) * 105,
    tradeId: null,
    note: i % 6 === 0 ? '@SUM(A1), "x"' : null,
    createdAt: new Date(NEWEST - Math.floor(i / SAME_INSTANT) * 1000).toISOString(),
    market_hash_name: null,
    phase: null,
  };
}

/** The ids as the screens order them: createdAt DESC, then id DESC. */
export function screenOrder<R extends { createdAt: string }>(rows: R[], id: (row: R) => string | number): R[] {
  return [...rows].sort((a, b) =>
    a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : id(a) < id(b) ? 1 : id(a) > id(b) ? -1 : 0,
  );
}

/** Writes `trades` trades and `ledger` ledger entries into `merchantId`'s cache under `dataDir`; returns them. */
export async function cacheHistory(
  dataDir: string,
  merchantId: string,
  counts: { trades: number; ledger: number },
): Promise<{ trades: Trade[]; ledger: BalanceTransaction[] }> {
  const trades = Array.from({ length: counts.trades }, (_, i) => tradeNo(i, counts.trades));
  const ledger = Array.from({ length: counts.ledger }, (_, i) => entryNo(i));
  const store = await LocalStore.open({ file: accountStoreFile(dataDir, merchantId) });
  try {
    for (let i = 0; i < trades.length; i += 5000) await store.upsertTrades(trades.slice(i, i + 5000), 'poll');
    for (let i = 0; i < ledger.length; i += 5000) await store.insertLedger(ledger.slice(i, i + 5000));
  } finally {
    await store.close();
  }
  return { trades, ledger };
}
