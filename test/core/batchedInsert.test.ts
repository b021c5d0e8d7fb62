/**
 * BatchedInsert (worker/batchedInsert.ts): many rows a statement, BATCH_ROWS at most, on a real SQLite file.
 * Rows land in the order given (the change log's seq is that order), a later row of a key wins within one
 * statement and across the statements a long batch is cut into, and no rows write nothing.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BATCH_ROWS, BatchedInsert } from '../../src/main/core/store/worker/batchedInsert';

const dir = mkdtempSync(join(tmpdir(), 'batched-insert-'));
const db = new Database(join(dir, 'batched.sqlite'));
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('BatchedInsert', () => {
  it('appends rows in the order given, across the statements a long batch is cut into', () => {
    db.exec('CREATE TABLE log (seq INTEGER PRIMARY KEY, itemId INTEGER NOT NULL, price INTEGER)');
    const insert = new BatchedInsert(db, 2, (values) => `INSERT INTO log (itemId, price) VALUES ${values}`);
    insert.run([]);
    expect(db.prepare('SELECT count(*) FROM log').pluck().get()).toBe(0);
    for (const rows of [1, BATCH_ROWS, BATCH_ROWS + 1, 3 * BATCH_ROWS + 7]) {
      db.exec('DELETE FROM log');
      const values = Array.from({ length: rows }, (_, i) => [1000 - i, i * 10]).flat();
      insert.run(values);
      expect(db.prepare('SELECT itemId, price FROM log ORDER BY seq').raw().all()).toEqual(Array.from({ length: rows }, (_, i) => [1000 - i, i * 10]));
    }
  });

  it('lets the later row of a key win, within a statement and across them', () => {
    db.exec('CREATE TABLE pending (itemId INTEGER PRIMARY KEY, price INTEGER NOT NULL)');
    const upsert = new BatchedInsert(db, 2, (values) => `INSERT INTO pending (itemId, price) VALUES ${values} ON CONFLICT(itemId) DO UPDATE SET price = excluded.price`);
    // Item 1 three times: twice in the first statement's rows, once past BATCH_ROWS; item 2 once.
    const values = [1, 10, 2, 20, 1, 11];
    for (let i = 0; i < BATCH_ROWS; i++) values.push(100 + i, i);
    values.push(1, 12);
    upsert.run(values);
    expect(db.prepare('SELECT price FROM pending WHERE itemId = ?').pluck().all(1)).toEqual([12]);
    expect(db.prepare('SELECT price FROM pending WHERE itemId = ?').pluck().get(2)).toBe(20);
    expect(db.prepare('SELECT count(*) FROM pending').pluck().get()).toBe(2 + BATCH_ROWS);
  });

  it('fails the whole statement on a bad row, leaving the rows before it in earlier statements', () => {
    const upsert = new BatchedInsert(db, 2, (values) => `INSERT INTO pending (itemId, price) VALUES ${values}`);
    db.exec('DELETE FROM pending');
    const values: number[] = [];
    for (let i = 0; i < BATCH_ROWS + 2; i++) values.push(5000 + i, i);
    values[2 * (BATCH_ROWS + 1)] = 5000; // the last row repeats the first key: a conflict in the second statement
    expect(() => upsert.run(values)).toThrow(/UNIQUE/);
    expect(db.prepare('SELECT count(*) FROM pending').pluck().get()).toBe(BATCH_ROWS);
  });
});
