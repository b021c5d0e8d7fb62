import { without } from '../../lib/records';
import type { AlertFiring, AlertRule, AutoBuySkipLine, AutoBuyStatus } from '../../../../shared/ipc/models';

export interface AlertsSlice {
  rules: Record<string, AlertRule>;
  ruleOrder: string[];
  firings: Record<string, AlertFiring>;
  /** Newest first. */
  firingOrder: string[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  /** The firing the keyboard acts on (A acknowledges, R re-arms its rule). */
  selectedFiringId: string | null;
  /** Auto-buy today: spend, skips, budget, floor, stop-all (from the snapshot and engine events). */
  autoBuy: AutoBuyStatus | null;
  /** Auto-buy skips, one line per rule and UTC day. */
  skips: AutoBuySkipLine[];
}

export const initialAlerts: AlertsSlice = {
  rules: {},
  ruleOrder: [],
  firings: {},
  firingOrder: [],
  status: 'idle',
  error: null,
  selectedFiringId: null,
  autoBuy: null,
  skips: [],
};

/** Move the firing selection by `delta` rows (newest first); the first press selects the newest. */
export function moveFiringSelection(slice: AlertsSlice, delta: number): AlertsSlice {
  const order = slice.firingOrder;
  if (order.length === 0) return slice;
  const at = slice.selectedFiringId === null ? -1 : order.indexOf(slice.selectedFiringId);
  const next = at < 0 ? 0 : Math.max(0, Math.min(order.length - 1, at + delta));
  const id = order[next] ?? null;
  return id === slice.selectedFiringId ? slice : { ...slice, selectedFiringId: id };
}

const byFiredAtDesc = (map: Record<string, AlertFiring>) => (a: string, b: string) =>
  (map[b]?.firedAt ?? '').localeCompare(map[a]?.firedAt ?? '');

export function withRules(slice: AlertsSlice, rules: AlertRule[]): AlertsSlice {
  const map: Record<string, AlertRule> = {};
  for (const rule of rules) map[rule.id] = rule;
  const ruleOrder = rules.map((r) => r.id);
  return { ...slice, rules: map, ruleOrder };
}

export function upsertRule(slice: AlertsSlice, rule: AlertRule): AlertsSlice {
  const ruleOrder = slice.rules[rule.id] ? slice.ruleOrder : [...slice.ruleOrder, rule.id];
  return { ...slice, rules: { ...slice.rules, [rule.id]: rule }, ruleOrder };
}

export function removeRule(slice: AlertsSlice, id: string): AlertsSlice {
  return { ...slice, rules: without(slice.rules, id), ruleOrder: slice.ruleOrder.filter((r) => r !== id) };
}

/** Replace the whole firing list (a fresh read) or merge live firings into it. */
export function mergeFirings(slice: AlertsSlice, firings: AlertFiring[], replace = false): AlertsSlice {
  if (!replace && firings.length === 0) return slice;
  const map: Record<string, AlertFiring> = replace ? {} : { ...slice.firings };
  for (const f of firings) map[f.id] = f;
  const firingOrder = Object.keys(map).sort(byFiredAtDesc(map));
  const selectedFiringId =
    slice.selectedFiringId !== null && map[slice.selectedFiringId] ? slice.selectedFiringId : null;
  return { ...slice, firings: map, firingOrder, selectedFiringId };
}
