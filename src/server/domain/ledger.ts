import type { BalanceHistoryQuery, BalanceTransaction, TransactionType } from '../../shared/api';
import { HISTORY_DEFAULT_LIMIT, HISTORY_DEFAULT_PAGE } from '../../shared/api';
import { toUtcIso } from '../../shared/time';
import type { SandboxClock } from '../clock';
import { type SqliteDatabase, statementsBySql } from '../db/database';
import { notFound } from './apiError';
import { MerchantWhere } from './merchantWhere';
import { PageSeeks } from './pageSeeks';

export interface LedgerPosting {
  type: TransactionType;
  amount: number;
  tradeId?: string | null;
  note?: string | null;
  market_hash_name?: string | null;
  phase?: string | null;
}

interface LedgerRow {
  id: number;
  type: TransactionType;
  amount: number;
  balance_before: number;
  balance_after: number;
  trade_id: string | null;
  note: string | null;
  created_at: number;
  market_hash_name: string | null;
  phase: string | null;
}

function toTransaction(row: LedgerRow): BalanceTransaction {
  return {
    id: row.id,
    type: row.type,
    amount: row.amount,
    balanceBefore: row.balance_before,
    balanceAfter: row.balance_after,
    tradeId: row.trade_id,
    note: row.note,
    createdAt: toUtcIso(row.created_at),
    market_hash_name: row.market_hash_name,
    phase: row.phase,
  };
}

/**
 * The only writer of merchant balances: every change is a ledger row whose
 * balanceAfter = balanceBefore + amount, so the balance is always the ledger's sum.
 */
export class Ledger {
  private readonly balanceStmt;
  private readonly updateBalanceStmt;
  private readonly insertStmt;
  private readonly byIdStmt;
  /** Statements by SQL text: BalanceHistory builds a handful of shapes, each prepared once. */
  private readonly statement: ReturnType<typeof statementsBySql>;
  /** Paging by merchant and query without its page; a merchant's version moves with each entry posted. */
  private readonly seeks = new PageSeeks();

  constructor(
    private readonly db: SqliteDatabase,
    private readonly clock: SandboxClock,
  ) {
    this.statement = statementsBySql(db);
    this.balanceStmt = db.prepare<[string], { balance: number }>('SELECT balance FROM merchants WHERE merchant_id = ?');
    this.updateBalanceStmt = db.prepare('UPDATE merchants SET balance = ? WHERE merchant_id = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO ledger (merchant_id, type, amount, balance_before, balance_after, trade_id, note, created_at, market_hash_name, phase)
       VALUES (@merchantId, @type, @amount, @before, @after, @tradeId, @note, @createdAt, @name, @phase)`,
    );
    this.byIdStmt = db.prepare<[number | bigint], LedgerRow>('SELECT * FROM ledger WHERE id = ?');
  }

  /** Applies one posting; call inside the transaction that makes the change it records. */
  post(merchantId: string, posting: LedgerPosting): BalanceTransaction {
    const current = this.balanceStmt.get(merchantId);
    if (!current) throw notFound(`merchant ${merchantId}`);
    const after = current.balance + posting.amount;
    this.updateBalanceStmt.run(after, merchantId);
    const info = this.insertStmt.run({
      merchantId,
      type: posting.type,
      amount: posting.amount,
      before: current.balance,
      after,
      tradeId: posting.tradeId ?? null,
      note: posting.note ?? null,
      createdAt: this.clock.now(),
      name: posting.market_hash_name ?? null,
      phase: posting.phase ?? null,
    });
    this.seeks.changed(merchantId);
    return toTransaction(this.byIdStmt.get(info.lastInsertRowid) as LedgerRow);
  }

  /** After entries were written or removed other than by `post` (a reset, a history seed or its discard). */
  rewritten(): void {
    this.seeks.clear();
  }

  /**
   * A BalanceHistory page, newest first. Deep pages start by key after the page before when it was read at the
   * merchant's current version (see PageSeeks); otherwise by OFFSET, as the plain query.
   */
  list(
    merchantId: string,
    query: BalanceHistoryQuery,
  ): { transactions: BalanceTransaction[]; total: number; limit: number; page: number } {
    const where = new MerchantWhere(merchantId);
    where.add('type = @type', 'type', query.type);
    where.add('trade_id = @tradeId', 'tradeId', query.tradeId);
    where.createdBetween(query.from, query.to);
    const { clause, params } = where;
    const limit = query.limit ?? HISTORY_DEFAULT_LIMIT;
    const page = query.page ?? HISTORY_DEFAULT_PAGE;
    const order = 'ORDER BY created_at DESC, id DESC';
    // With a `from`, the planner would rather range over the merchant's whole ledger by time than over one type.
    const table = query.type === undefined ? 'ledger' : 'ledger INDEXED BY ledger_by_type';
    const question = [query.type, query.tradeId, query.from, query.to, limit].map((v) => v ?? '').join('\u0001');
    const read = this.seeks.page(merchantId, question, page, limit, {
      count: () =>
        (this.statement(`SELECT count(*) AS n FROM ${table} WHERE ${clause}`).get(params) as { n: number }).n,
      after: (key, n) =>
        this.statement(
          `SELECT * FROM ${table} WHERE ${clause} AND (created_at, id) < (@afterCreatedAt, @afterId) ${order} LIMIT @limit`,
        ).all({ ...params, afterCreatedAt: key.createdAt, afterId: key.seq, limit: n }) as LedgerRow[],
      offset: (offset, n) =>
        this.statement(`SELECT * FROM ${table} WHERE ${clause} ${order} LIMIT @limit OFFSET @offset`).all({
          ...params,
          limit: n,
          offset,
        }) as LedgerRow[],
      keyOf: (row) => ({ createdAt: row.created_at, seq: row.id }),
    });
    return { transactions: read.rows.map(toTransaction), total: read.total, limit, page };
  }

  /** Sum of a merchant's ledger, for the invariant checks. */
  sum(merchantId: string): number {
    const row = this.db
      .prepare('SELECT coalesce(sum(amount), 0) AS s FROM ledger WHERE merchant_id = ?')
      .get(merchantId) as { s: number };
    return row.s;
  }
}
