/**
 * A short list of numbers per slot (sticker ids, charm patterns) in one typed pool: a tight loop for filters, a few
 * copies for a saved snapshot. A slot set again gets a new run; the pool is squeezed when full and half left behind.
 */
import { grown, isColumns } from './columns';

const LIST_COLUMNS = { start: Int32Array, length: Int32Array };

/** What a saved snapshot holds of a SlotLists. */
export interface SavedLists {
  start: Int32Array;
  length: Int32Array;
  pool: Int32Array;
  used: number;
  stale: number;
}

export class SlotLists {
  start = new Int32Array(0);
  length = new Int32Array(0);
  pool = new Int32Array(1024);
  used = 0;
  /** Pool entries no slot's run holds any more. */
  private stale = 0;

  set(slot: number, values: readonly number[]): void {
    if (slot >= this.start.length) {
      const capacity = Math.max(1024, slot * 2);
      this.start = grown(this.start, capacity);
      this.length = grown(this.length, capacity);
    }
    this.stale += this.length[slot] as number;
    this.length[slot] = 0;
    if (values.length === 0) return;
    if (this.used + values.length > this.pool.length) this.makeRoom(values.length);
    this.start[slot] = this.used;
    this.pool.set(values, this.used);
    this.used += values.length;
    this.length[slot] = values.length;
  }

  saved(): SavedLists {
    return { start: this.start, length: this.length, pool: this.pool, used: this.used, stale: this.stale };
  }

  /** Whether saved lists read as lists (a damaged file's may not). */
  static fits({ start, length, pool, used }: SavedLists): boolean {
    return isColumns({ start, length }, LIST_COLUMNS, 0) && pool instanceof Int32Array && used <= pool.length;
  }

  static restored(saved: SavedLists): SlotLists {
    return Object.assign(new SlotLists(), saved);
  }

  /** A slot's values (a copy). */
  get(slot: number): number[] {
    const start = this.start[slot] ?? 0;
    return Array.from(this.pool.subarray(start, start + (this.length[slot] ?? 0)));
  }

  private makeRoom(needed: number): void {
    if (this.stale * 2 >= this.used) {
      const pool = new Int32Array(this.pool.length);
      let used = 0;
      for (let slot = 0; slot < this.start.length; slot++) {
        const length = this.length[slot] as number;
        if (length === 0) continue;
        const start = this.start[slot] as number;
        pool.set(this.pool.subarray(start, start + length), used);
        this.start[slot] = used;
        used += length;
      }
      this.pool = pool;
      this.used = used;
      this.stale = 0;
    }
    if (this.used + needed > this.pool.length)
      this.pool = grown(this.pool, Math.max(this.pool.length * 2, this.used + needed));
  }
}
