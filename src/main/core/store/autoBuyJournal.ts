import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { PRIVATE_FILE_MODE } from '../privateFiles';
import type { AutoBuyRecordInput } from './types';

/**
 * The auto-buys about to be sent, one JSON line each (`<account file>.auto-buys`), appended synchronously in
 * the task that sends the request, before it is written: once write(2) has returned, a killed process cannot
 * lose the line (the kernel holds it, as it holds the WAL; like the store, not proof against power loss). This
 * costs microseconds where a round trip to the writer thread would hold the buy back behind the writer's queue.
 * Each buy's outcome goes to the table `auto_buys`; a line whose outcome was not stored (the app stopped first)
 * is replayed into the table as in flight when the store opens. Emptied whenever every line's outcome is stored.
 */
export class AutoBuyJournal {
  /** Order ids appended whose outcome is not stored yet. */
  private readonly unsettled = new Set<string>();
  /** A store write failed: lines are kept until the next open replays them. */
  private keep = false;

  private constructor(private readonly fd: number) {}

  /** Opens (creating it owner-only) the journal and reads the lines it holds; a line cut short or not an auto-buy is skipped. */
  static open(file: string): { journal: AutoBuyJournal; lines: AutoBuyRecordInput[] } {
    const fd = openSync(file, 'a+', PRIVATE_FILE_MODE);
    const lines = readFileSync(fd, 'utf8')
      .split('\n')
      .flatMap((text) => {
        const record = parseLine(text);
        return record ? [record] : [];
      });
    return { journal: new AutoBuyJournal(fd), lines };
  }

  /** Appends one auto-buy; throws when it cannot be written (then the buy must not be sent). */
  append(record: AutoBuyRecordInput): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
    this.unsettled.add(record.externalId);
  }

  /** An outcome was stored (`ok`) or could not be: the journal is emptied once every line's outcome is stored. */
  stored(externalId: string, ok: boolean): void {
    if (!ok) this.keep = true;
    if (!this.unsettled.delete(externalId) || this.unsettled.size > 0 || this.keep) return;
    this.clear();
  }

  /** Empties the journal (its lines are in the table). */
  clear(): void {
    ftruncateSync(this.fd, 0);
  }

  close(): void {
    closeSync(this.fd);
  }
}

function parseLine(text: string): AutoBuyRecordInput | null {
  if (text.trim() === '') return null;
  try {
    const value = JSON.parse(text) as Partial<Record<keyof AutoBuyRecordInput, unknown>>;
    const { externalId, ruleId, itemId, price, at } = value;
    if (
      typeof externalId !== 'string' ||
      typeof ruleId !== 'string' ||
      typeof at !== 'string' ||
      Number.isNaN(Date.parse(at))
    )
      return null;
    if (!Number.isSafeInteger(itemId) || !Number.isSafeInteger(price)) return null;
    return { externalId, ruleId, itemId: itemId as number, price: price as number, at };
  } catch {
    return null;
  }
}
