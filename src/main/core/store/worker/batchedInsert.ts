import type { Statement } from 'better-sqlite3';
import type { Db } from './open';

/** Rows one statement writes at most (a statement per row count up to it is prepared once, on first use). */
export const BATCH_ROWS = 64;

/**
 * An INSERT of many rows of numbers in one statement each `BATCH_ROWS` (`VALUES (…), (…), …`): per row
 * it saves a statement's own cost (its call from JavaScript, binding, reset), which was most of a live
 * event's two writes. `sql(values)` is the statement for the given VALUES list.
 */
export class BatchedInsert {
  private readonly statements = new Map<number, Statement<[number[]]>>();
  private readonly row: string;

  constructor(
    private readonly db: Db,
    private readonly columns: number,
    private readonly sql: (values: string) => string,
  ) {
    this.row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
  }

  /** Writes the rows in `values` (row after row, `columns` numbers each), in order. */
  run(values: number[]): void {
    const rows = values.length / this.columns;
    for (let start = 0; start < rows; start += BATCH_ROWS) {
      const count = Math.min(BATCH_ROWS, rows - start);
      this.statement(count).run(values.slice(start * this.columns, (start + count) * this.columns));
    }
  }

  private statement(rows: number): Statement<[number[]]> {
    let statement = this.statements.get(rows);
    if (!statement) {
      statement = this.db.prepare<[number[]]>(this.sql(Array.from({ length: rows }, () => this.row).join(', ')));
      this.statements.set(rows, statement);
    }
    return statement;
  }
}
