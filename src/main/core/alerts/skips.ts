import type { AutoBuySkipLine } from '../../../shared/ipc';
import type { AutoBuySkipRow } from '../store/types';

/** Skipped firings (grouped by rule, day and reason) folded into one line per rule and UTC day, newest first. */
export function foldSkipLines(rows: readonly AutoBuySkipRow[]): AutoBuySkipLine[] {
  const lines = new Map<string, AutoBuySkipLine>();
  for (const row of rows) {
    const key = `${row.ruleId}\u0000${row.day}`;
    let line = lines.get(key);
    if (!line) {
      line = { ruleId: row.ruleId, ruleName: row.ruleName, day: row.day, count: 0, lastAt: row.lastAt, reasons: [] };
      lines.set(key, line);
    }
    line.count += row.count;
    line.reasons.push({ reason: row.reason, count: row.count });
    if (row.lastAt > line.lastAt) {
      line.lastAt = row.lastAt;
      line.ruleName = row.ruleName;
    }
  }
  const folded = [...lines.values()];
  for (const line of folded) line.reasons.sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  return folded.sort((a, b) => b.day.localeCompare(a.day) || b.lastAt.localeCompare(a.lastAt));
}
