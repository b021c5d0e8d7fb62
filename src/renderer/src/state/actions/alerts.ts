import type { AlertRuleInput } from '../../../../shared/ipc/contract';
import type { AlertRule, AutoBuyPreview } from '../../../../shared/ipc/models';
import { debounced } from '../../lib/debounce';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { mergeFirings, moveFiringSelection, removeRule, upsertRule, withRules } from '../slices/alerts';
import { readWithBatches } from '../batchesSince';
import { getState, update } from '../store';
import { updateSettings } from './settings';
import { toast } from './toast';

export async function loadAlerts(): Promise<void> {
  update('alerts', (a) => ({ ...a, status: a.status === 'ready' ? 'ready' : 'loading', error: null }));
  try {
    const { answer, since } = await readWithBatches(() =>
      Promise.all([unwrap(api().alerts.rules({})), unwrap(api().alerts.firings({})), unwrap(api().alerts.skips({}))]),
    );
    const [rules, firings, skips] = answer;
    // Firings that came while the list was read may be missing from it (one that moved on is read again: afterBatch).
    const read = new Set(firings.map((firing) => firing.id));
    const newer = since.flatMap((batch) => batch.firings ?? []).filter((firing) => !read.has(firing.id));
    update('alerts', (a) => ({
      ...mergeFirings(mergeFirings(withRules(a, rules), firings, true), newer),
      skips,
      status: 'ready',
      error: null,
    }));
  } catch (error) {
    update('alerts', (a) => ({ ...a, status: 'error', error: errorMessage(error) }));
  }
}

export const scheduleAlertsReload = debounced(() => void loadAlerts(), 500);

/** Save a rule; returns the saved rule or throws (the editor shows the message). */
export async function saveRule(input: AlertRuleInput): Promise<AlertRule> {
  const rule = await unwrap(api().alerts.saveRule(input));
  update('alerts', (a) => upsertRule(a, rule));
  return rule;
}

export async function setRuleEnabled(rule: AlertRule, enabled: boolean): Promise<void> {
  try {
    await saveRule({
      id: rule.id,
      name: rule.name,
      enabled,
      filters: rule.filters,
      maxPrice: rule.maxPrice,
      autoBuy: {
        enabled: rule.autoBuy.enabled,
        recipientId: rule.autoBuy.recipientId,
        spendCap: rule.autoBuy.spendCap,
        dailyCap: rule.autoBuy.dailyCap,
        dryRun: rule.autoBuy.dryRun === true,
      },
    });
  } catch (error) {
    toast('error', `Could not ${enabled ? 'enable' : 'disable'} “${rule.name}”`, errorMessage(error));
  }
}

/** The preview of what a rule would match now (the rule editor shows it before an auto-buy rule is saved or enabled). */
export function previewRule(input: AlertRuleInput): Promise<AutoBuyPreview> {
  return unwrap(api().alerts.preview(input));
}

/** Stop-all: the engine holds back every auto-buy from the next match on, until resumed. */
export async function setAutoBuyStopped(stopped: boolean): Promise<void> {
  await updateSettings({ autoBuyStopped: stopped }); // says so itself when the engine refuses
  if ((getState().settings.settings?.autoBuyStopped === true) !== stopped) return;
  if (stopped) toast('warn', 'All auto-buy stopped', 'No auto-buy request is sent until you resume it.');
  else
    toast('success', 'Auto-buy resumed', 'Rules buy again within their caps, the daily budget and the balance floor.');
}

export function stopAllAutoBuy(): void {
  if (getState().settings.settings?.autoBuyStopped === true) {
    toast('info', 'Auto-buy is already stopped', 'Resume it from the status bar, the Alerts screen or the palette.');
    return;
  }
  void setAutoBuyStopped(true);
}

export async function deleteRule(id: string, name: string): Promise<void> {
  try {
    await unwrap(api().alerts.deleteRule({ id }));
    update('alerts', (a) => removeRule(a, id));
    toast('info', 'Rule deleted', name);
  } catch (error) {
    toast('error', 'Could not delete the rule', errorMessage(error));
  }
}

export async function acknowledgeFiring(id: string): Promise<void> {
  try {
    const firing = await unwrap(api().alerts.acknowledge({ id }));
    if (firing) update('alerts', (a) => mergeFirings(a, [firing]));
  } catch (error) {
    toast('error', 'Could not acknowledge', errorMessage(error));
  }
}

/** Acknowledge many firings, a few calls at a time. */
export async function acknowledgeAll(ids: string[]): Promise<void> {
  const queue = [...ids];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) await acknowledgeFiring(id);
  };
  await Promise.all(Array.from({ length: Math.min(6, queue.length) }, worker));
}

export async function rearmRule(ruleId: string): Promise<void> {
  try {
    const rule = await unwrap(api().alerts.rearm({ id: ruleId }));
    if (rule) {
      update('alerts', (a) => upsertRule(a, rule));
      toast('success', 'Rule re-armed', rule.name);
    }
  } catch (error) {
    toast('error', 'Could not re-arm the rule', errorMessage(error));
  }
}

// ---- the selected firing (keyboard: arrows or j/k, A, R)

export function selectFiring(id: string | null): void {
  update('alerts', (a) => (a.selectedFiringId === id ? a : { ...a, selectedFiringId: id }));
}

export function moveFiring(delta: number): void {
  update('alerts', (a) => moveFiringSelection(a, delta));
  const id = getState().alerts.selectedFiringId;
  if (id !== null) document.getElementById(firingDomId(id))?.scrollIntoView({ block: 'nearest' });
}

export const firingDomId = (id: string) => `firing-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function selectedFiring() {
  const { selectedFiringId, firings } = getState().alerts;
  return selectedFiringId === null ? undefined : firings[selectedFiringId];
}

export function acknowledgeSelectedFiring(): void {
  const firing = selectedFiring();
  if (!firing) {
    toast('info', 'Select a firing first', 'Use ↑/↓ (or J/K) on the Alerts screen, then A to acknowledge.');
    return;
  }
  if (firing.acknowledged) {
    toast('info', 'Already acknowledged', firing.market_hash_name);
    return;
  }
  void acknowledgeFiring(firing.id);
}

export function rearmSelectedFiring(): void {
  const firing = selectedFiring();
  if (!firing) {
    toast('info', 'Select a firing first', 'Use ↑/↓ (or J/K) on the Alerts screen, then R to re-arm its rule.');
    return;
  }
  void rearmRule(firing.ruleId);
}
