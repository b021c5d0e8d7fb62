import { useEffect, useState } from 'react';
import type { AlertRule } from '../../../../shared/ipc/models';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { Money } from '../../components/Money';
import { TimeAgo } from '../../components/TimeAgo';
import { formatCents, formatDateTime } from '../../lib/format';
import { acknowledgeAll, acknowledgeFiring, deleteRule, loadAlerts, rearmRule, setRuleEnabled } from '../../state/actions/alerts';
import { updateSettings } from '../../state/actions/settings';
import { openDialog, openTarget } from '../../state/actions/ui';
import { useStore } from '../../state/store';

function describeRule(rule: AlertRule): string {
  const parts: string[] = [];
  if (rule.namePattern) parts.push(`“${rule.namePattern}”`);
  if (rule.phase) parts.push(rule.phase);
  if (rule.floatMin !== null || rule.floatMax !== null) parts.push(`float ${rule.floatMin ?? 0}–${rule.floatMax ?? 1}`);
  if (rule.maxPrice !== null) parts.push(`≤ ${formatCents(rule.maxPrice)}`);
  if (rule.stickerNames.length) parts.push(`stickers: ${rule.stickerNames.join(', ')}`);
  return parts.join(' · ') || 'any item';
}

function DeleteButton({ rule }: { rule: AlertRule }) {
  const [armed, setArmed] = useState(false);
  useEffect(() => {
    if (!armed) return;
    const t = setTimeout(() => setArmed(false), 3000);
    return () => clearTimeout(t);
  }, [armed]);
  return (
    <button
      type="button"
      className={`btn sm ${armed ? 'danger' : 'ghost'}`}
      aria-label={armed ? `Confirm delete ${rule.name}` : `Delete ${rule.name}`}
      onClick={() => (armed ? void deleteRule(rule.id, rule.name) : setArmed(true))}
    >
      {armed ? 'Confirm delete' : 'Delete'}
    </button>
  );
}

function RuleRow({ id }: { id: string }) {
  const rule = useStore((s) => s.alerts.rules[id]);
  if (!rule) return null;
  const ab = rule.autoBuy;
  return (
    <tr className={rule.enabled ? '' : 'dim'}>
      <td>
        <label className="switch" title={rule.enabled ? 'Enabled' : 'Disabled'}>
          <input type="checkbox" role="switch" aria-label={`Enable ${rule.name}`} checked={rule.enabled} onChange={(e) => void setRuleEnabled(rule, e.target.checked)} />
          <span aria-hidden="true" />
        </label>
      </td>
      <td className="strong ellipsis">{rule.name}</td>
      <td className="ellipsis muted" title={describeRule(rule)}>
        {describeRule(rule)}
      </td>
      <td>
        {ab.enabled ? (
          <span className="autobuy">
            <span className="tag tag-warn">auto-buy</span>{' '}
            <span className="num small">
              <Money cents={ab.spent} /> of <Money cents={ab.spendCap} /> · <Money cents={ab.dailyCap} />/day
            </span>
          </span>
        ) : (
          <span className="muted small">off</span>
        )}
      </td>
      <td className="right nowrap">
        <button type="button" className="btn sm ghost" aria-label={`Re-arm ${rule.name}`} title="Let this rule fire again for items it already fired on" onClick={() => void rearmRule(rule.id)}>
          Re-arm
        </button>
        <button type="button" className="btn sm ghost" aria-label={`Edit ${rule.name}`} onClick={() => openDialog({ kind: 'rule', ruleId: rule.id })}>
          Edit
        </button>
        <DeleteButton rule={rule} />
      </td>
    </tr>
  );
}

function FiringRow({ id }: { id: string }) {
  const f = useStore((s) => s.alerts.firings[id]);
  if (!f) return null;
  return (
    <tr className={f.acknowledged ? 'dim' : 'unread'}>
      <td className="num nowrap" title={formatDateTime(f.firedAt)}>
        <TimeAgo iso={f.firedAt} />
      </td>
      <td className="ellipsis">{f.ruleName}</td>
      <td className="ellipsis">
        <button type="button" className="link-btn" onClick={() => openTarget({ type: 'item', itemId: f.itemId })} title="Open in the catalog">
          {f.market_hash_name}
        </button>
      </td>
      <td className="right">
        <Money cents={f.price} />
      </td>
      <td className="small">
        {f.autoBuy ? (
          f.autoBuy.tradeId ? (
            <button type="button" className="link-btn" onClick={() => openTarget({ type: 'trade', tradeId: f.autoBuy?.tradeId ?? '' })}>
              bought · open trade
            </button>
          ) : (
            <span className="neg">auto-buy failed: {f.autoBuy.error}</span>
          )
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="right nowrap">
        {f.acknowledged ? (
          <span className="muted small">acknowledged</span>
        ) : (
          <button type="button" className="btn sm" aria-label={`Acknowledge ${f.market_hash_name}`} onClick={() => void acknowledgeFiring(f.id)}>
            Acknowledge
          </button>
        )}
        <button type="button" className="btn sm ghost" aria-label={`Re-arm rule ${f.ruleName}`} onClick={() => void rearmRule(f.ruleId)}>
          Re-arm
        </button>
      </td>
    </tr>
  );
}

export function AlertsScreen() {
  const ruleOrder = useStore((s) => s.alerts.ruleOrder);
  const firingOrder = useStore((s) => s.alerts.firingOrder);
  const firings = useStore((s) => s.alerts.firings);
  const status = useStore((s) => s.alerts.status);
  const error = useStore((s) => s.alerts.error);
  const paused = useStore((s) => s.settings.settings?.alertsPaused ?? false);
  const unacked = firingOrder.filter((id) => firings[id]?.acknowledged === false);

  useEffect(() => {
    void loadAlerts();
  }, []);

  return (
    <div className="screen alerts-screen">
      <header className="screen-head">
        <div className="screen-title">
          <h1>Alerts</h1>
          <div className="head-stats">
            <span>
              <strong className="num">{ruleOrder.length}</strong> rules
            </span>
            <span>
              <strong className="num">{unacked.length}</strong> unacknowledged
            </span>
          </div>
        </div>
        <div className="head-actions">
          <label className="check">
            <input type="checkbox" checked={paused} onChange={(e) => void updateSettings({ alertsPaused: e.target.checked })} /> Pause all alerts
          </label>
          <button type="button" className="btn primary" onClick={() => openDialog({ kind: 'rule', ruleId: null })}>
            <Icon name="plus" size={14} /> New rule
          </button>
        </div>
      </header>
      {paused ? <div className="banner warn">Alerts are paused: no rule fires and nothing is bought automatically.</div> : null}
      <div className="alerts-body">
        <section className="panel" aria-label="Watchlist rules">
          <h2 className="panel-title">Watchlist</h2>
          {status === 'error' && ruleOrder.length === 0 ? (
            <EmptyState title="Could not load alert rules" tone="error" action={<button type="button" className="btn" onClick={() => void loadAlerts()}>Retry</button>}>
              {error}
            </EmptyState>
          ) : ruleOrder.length === 0 ? (
            status === 'ready' ? (
              <EmptyState
                title="No watchlist rules yet"
                action={
                  <button type="button" className="btn primary" onClick={() => openDialog({ kind: 'rule', ruleId: null })}>
                    Create a rule
                  </button>
                }
              >
                A rule watches the live catalog for items by name, phase, float, price or stickers, and tells you — or buys — when one appears.
              </EmptyState>
            ) : (
              <EmptyState title="Loading rules…" tone="loading" />
            )
          ) : (
            <table className="data-table" aria-label="Alert rules">
              <colgroup>
                <col style={{ width: 56 }} />
                <col style={{ width: 200 }} />
                <col />
                <col style={{ width: 280 }} />
                <col style={{ width: 240 }} />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">On</th>
                  <th scope="col">Rule</th>
                  <th scope="col">Matches</th>
                  <th scope="col">Auto-buy</th>
                  <th scope="col" className="right">
                    Actions
                  </th>
                </tr>
              </thead>
              <tbody>
                {ruleOrder.map((id) => (
                  <RuleRow key={id} id={id} />
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section className="panel" aria-label="Firings">
          <div className="panel-head">
            <h2 className="panel-title">Firings</h2>
            <button type="button" className="btn sm" disabled={unacked.length === 0} onClick={() => void acknowledgeAll(unacked)}>
              Acknowledge all
            </button>
          </div>
          {firingOrder.length === 0 ? (
            <EmptyState title="Nothing has fired yet">When a live item matches an enabled rule it is listed here, newest first.</EmptyState>
          ) : (
            <table className="data-table" aria-label="Alert firings">
              <colgroup>
                <col style={{ width: 100 }} />
                <col style={{ width: 160 }} />
                <col />
                <col style={{ width: 100 }} />
                <col style={{ width: 200 }} />
                <col style={{ width: 200 }} />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">Fired</th>
                  <th scope="col">Rule</th>
                  <th scope="col">Item</th>
                  <th scope="col" className="right">
                    Price
                  </th>
                  <th scope="col">Auto-buy</th>
                  <th scope="col" className="right">
                    Actions
                  </th>
                </tr>
              </thead>
              <tbody>
                {firingOrder.map((id) => (
                  <FiringRow key={id} id={id} />
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </div>
  );
}
