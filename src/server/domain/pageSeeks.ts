import { OldestFirst } from './oldestFirst';

/** A row's place in a history's order, newest first: its time, then its insertion number (trade seq, ledger id). */
export interface SortKey {
  createdAt: number;
  seq: number;
}

/**
 * What paging one question (a merchant's query but its page) needs again for the next page, while none of the
 * merchant's rows changed: the count, and where each page read so far ended, so the next page starts there
 * by key instead of skipping every row before it (OFFSET: its cost grew with the page's depth).
 */
interface PageSeek {
  version: number;
  total: number;
  /** The sort key of the last row of each full page read. */
  after: Map<number, SortKey>;
}

/** How one history reads a page: by key after a known row, or by OFFSET when no earlier page ended there. */
export interface PageReader<Row> {
  count(): number;
  after(key: SortKey, limit: number): Row[];
  offset(offset: number, limit: number): Row[];
  keyOf(row: Row): SortKey;
}

/** Questions whose paging is remembered (least recently used out first): a few pages' keys each. */
const PAGE_SEEKS = 1024;

/**
 * The paging memory of one history (trades or ledger): per question, the total and the key each full page ended
 * at, valid while the merchant's data version is the one they were read at. Answers equal the OFFSET query's on
 * the same rows, provided every write to a merchant's rows calls `changed` (or `clear`).
 */
export class PageSeeks {
  /** Data version per merchant; only grows, so nothing read before a change matches after it. */
  private readonly versions = new Map<string, number>();
  private readonly seeks = new Map<string, PageSeek>();
  private readonly oldest = new OldestFirst(this.seeks);

  version(merchantId: string): number {
    return this.versions.get(merchantId) ?? 0;
  }

  /** A merchant's rows changed: what was remembered of its pages no longer holds. */
  changed(merchantId: string): void {
    this.versions.set(merchantId, this.version(merchantId) + 1);
  }

  /** After writes to any merchant's rows (a reset, a seed). */
  clear(): void {
    this.seeks.clear();
    this.oldest.reset();
    // A merchant id may come back after a reset: versions go on growing rather than restart.
    for (const merchantId of this.versions.keys()) this.changed(merchantId);
  }

  /**
   * Page `page` of `limit` rows of the question `question` (the merchant's query without its page, as a string)
   * and the question's total; the count runs only when the question is new at this version.
   */
  page<Row>(
    merchantId: string,
    question: string,
    page: number,
    limit: number,
    reader: PageReader<Row>,
  ): { rows: Row[]; total: number } {
    const seek = this.seekFor(merchantId, question, reader);
    const after = page === 1 ? undefined : seek.after.get(page - 1);
    const rows = after ? reader.after(after, limit) : reader.offset((page - 1) * limit, limit);
    const last = rows[rows.length - 1];
    if (rows.length === limit && last !== undefined) seek.after.set(page, reader.keyOf(last));
    return { rows, total: seek.total };
  }

  private seekFor<Row>(merchantId: string, question: string, reader: PageReader<Row>): PageSeek {
    const key = `${merchantId}\u0000${question}`;
    const version = this.version(merchantId);
    const known = this.seeks.get(key);
    this.seeks.delete(key); // most recently used last
    if (known && known.version === version) {
      this.seeks.set(key, known);
      return known;
    }
    const seek: PageSeek = { version, total: reader.count(), after: new Map() };
    this.seeks.set(key, seek);
    if (this.seeks.size > PAGE_SEEKS) this.seeks.delete((this.oldest.next() as [string, PageSeek])[0]);
    return seek;
  }
}
