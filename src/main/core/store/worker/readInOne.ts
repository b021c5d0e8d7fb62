import type { Db } from './open';

/** `read` in one read transaction (one committed state); inside a transaction already, in that one. */
export function readInOne<T>(db: Db, read: () => T): T {
  return db.inTransaction ? read() : db.transaction(read)();
}
