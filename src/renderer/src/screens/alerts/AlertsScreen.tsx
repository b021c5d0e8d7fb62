import { memo, useEffect, useState } from 'react';
import type { AlertRule } from '../../../../shared/ipc/models';
import { EmptyState } from '../../components/EmptyState';
import { Icon } from '../../components/Icon';
import { Money } from '../../components/Money';
import { TimeAgo } from '../../components/TimeAgo';
import { filterSummary } from '../../lib/filterSummary';
import { formatCents, formatDateTime } from '../../lib/format';
import {
  acknowledgeAll,
  acknowledgeFiring,
  deleteRule,
  firingDomId,
  loadAlerts,
  rearmRule,
  selectFiring,
  setRuleEnabled,
} from '../../state/actions/alerts';
import { updateSettings } from '../../state/actions/settings';
import { openDialog } from '../../state/actions/dialogs';
import { openTarget } from '../../state/actions/navigation';
import { useStore } from '../../state/store';
import { AutoBuyPanel, dryRunText, SkipLines } from './AutoBuyPanel';

function describeRule(rule: AlertRule): string {
  const parts = filterSummary(rule.filters);
  if (rule.maxPrice !== null) parts.push(`≤ ${formatCents(rule.maxPrice)} each`);
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

function AutoBuyCell({ rule }: { rule: AlertRule }) {
  const ab = rule.autoBuy;
  if (!ab.enabled) return <span className="muted small">Alert only</span>;
  const used = ab.spendCap > 0 ? Math.min(1, ab.spent / ab.spendCap) : 1;
  return (
    <div
      className="autobuy"
      title={`Auto-buy on: spent ${formatCents(ab.spent)} of ${formatCents(ab.spendCap)} in total, at most ${formatCents(ab.dailyCap)} a UTC day`}
    >
      <div className="autobuy-line">
        <span className="tag tag-warn">{ab.dryRun === true ? 'dry run' : 'auto-buy'}</span>
        <span className="autobuy-meter" aria-hidden="true">
          <span style={{ width: `${Math.round(used * 100)}%` }} />
        </span>
        <span className="num small">
          <Money cents={ab.spent} />
          <span className="muted"> / </span>
          <Money cents={ab.spendCap} />
        </span>
      </div>
      <div className="muted small num">
        at most <Money cents={ab.dailyCap} /> a day
      </div>
    </div>
  );
}

function RuleRow({ id }: { id: string }) {
  const rule = useStore((s) => s.alerts.rules[id]);
  const fired = useStore((s) => s.alerts.firingOrder.filter((f) => s.alerts.firings[f]?.ruleId === id).length);
  if (!rule) return null;
  return (
    <tr className={rule.enabled ? '' : 'dim'}>
      <td>
        <label className="switch" title={rule.enabled ? 'Enabled' : 'Disabled'}>
          <input
            type="checkbox"
            role="switch"
            aria-label={`Enable ${rule.name}`}
            checked={rule.enabled}
            onChange={(e) =>
              // Enabling an auto-buy rule first shows what it matches now and asks about those listings.
              e.target.checked && rule.autoBuy.enabled
                ? openDialog({ kind: 'rule', ruleId: rule.id, enabling: true })
                : void setRuleEnabled(rule, e.target.checked)
            }
          />
          <span aria-hidden="true" />
        </label>
      </td>
      <td className="rule-cell">
        <div className="strong ellipsis">{rule.name}</div>
        <div className="muted small ellipsis" title={describeRule(rule)}>
          {describeRule(rule)}
        </div>
      </td>
      <td className="num right">
        {fired > 0 ? (
          <span title={`${fired} firing${fired === 1 ? '' : 's'} listed below`}>{fired}</span>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td>
        <AutoBuyCell rule={rule} />
      </td>
      <td className="right nowrap row-actions">
        {fired > 0 || !rule.enabled ? (
          <button
            type="button"
            className="btn sm ghost"
            aria-label={`Re-arm ${rule.name}`}
            title={
              rule.autoBuy.enabled
                ? "Forget this rule's firings and switch it on: the same items may fire again; auto-buy buys only listings newer than the re-arm"
                : "Forget this rule's firings and switch it on: the same items may fire again"
            }
            onClick={() => void rearmRule(rule.id)}
          >
            Re-arm
          </button>
        ) : null}
        <button
          type="button"
          className="btn sm ghost"
          aria-label={`Edit ${rule.name}`}
          onClick={() => openDialog({ kind: 'rule', ruleId: rule.id })}
        >
          Edit
        </button>
        <DeleteButton rule={rule} />
      </td>
    </tr>
  );
}

const FiringRow = memo(function FiringRow({ id }: { id: string }) {
  const f = useStore((s) => s.alerts.firings[id]);
  const selected = useStore((s) => s.alerts.selectedFiringId === id);
  if (!f) return null;
  return (
    <tr
      id={firingDomId(id)}
      className={`${f.acknowledged ? 'dim' : 'unread'} ${selected ? 'selected' : ''}`}
      aria-selected={selected}
      onClick={() => selectFiring(id)}
    >
      <td className="num nowrap" title={formatDateTime(f.firedAt)}>
        <TimeAgo iso={f.firedAt} />
      </td>
      <td className="ellipsis">{f.ruleName}</td>
      <td className="ellipsis">
        <button
          type="button"
          className="link-btn"
          onClick={() => openTarget({ type: 'item', itemId: f.itemId })}
          title="Open in the catalog"
        >
          {f.market_hash_name}
        </button>
      </td>
      <td className="right">
        <Money cents={f.price} />
      </td>
      <td className="small ellipsis">
        {f.autoBuy ? (
          f.autoBuy.dryRun === true ? (
            <span className="muted">{dryRunText(f.price)}</span>
          ) : f.autoBuy.skipped ? (
            <span className="muted" title={f.autoBuy.skipped}>
              not bought: {f.autoBuy.skipped}
            </span>
          ) : f.autoBuy.tradeId ? (
            <button
              type="button"
              className="link-btn"
              onClick={() => openTarget({ type: 'trade', tradeId: f.autoBuy?.tradeId ?? '' })}
            >
              bought · open trade
            </button>
          ) : (
            <span className="neg" title={f.autoBuy.error ?? undefined}>
              auto-buy failed: {f.autoBuy.error}
            </span>
          )
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="right nowrap row-actions">
        {selected ? (
          <button
            type="button"
            className="btn sm ghost"
            aria-label={`Re-arm rule ${f.ruleName}`}
            title="Re-arm this firing's rule (R)"
            onClick={() => void rearmRule(f.ruleId)}
          >
            Re-arm rule
          </button>
        ) : null}
        {f.acknowledged ? (
          <span className="muted small">acknowledged</span>
        ) : (
          <button
            type="button"
            className="btn sm"
            aria-label={`Acknowledge ${f.market_hash_name}`}
            title={selected ? 'Acknowledge (A)' : undefined}
            onClick={() => void acknowledgeFiring(f.id)}
          >
            Acknowledge
          </button>
        )}
      </td>
    </tr>
  );
});

function FiringsBody() {
  const firingOrder = useStore((s) => s.alerts.firingOrder);
  const status = useStore((s) => s.alerts.status);
  const error = useStore((s) => s.alerts.error);
  if (firingOrder.length === 0) {
    if (status === 'error') {
      return (
        <EmptyState
          title="Could not load the firings"
          tone="error"
          action={
            <button type="button" className="btn" onClick={() => void loadAlerts()}>
              Retry
            </button>
          }
        >
          {error}
        </EmptyState>
      );
    }
    if (status !== 'ready') return <EmptyState title="Loading firings…" tone="loading" />;
    return (
      <EmptyState title="Nothing has fired yet">
        When a live item matches an enabled rule it is listed here, newest first.
      </EmptyState>
    );
  }
  return (
    <table className="data-table firings-table" aria-label="Alert firings" aria-describedby="firings-keys">
      <colgroup>
        <col style={{ width: 96 }} />
        <col style={{ width: 180 }} />
        <col />
        <col style={{ width: 104 }} />
        <col style={{ width: 190 }} />
        <col style={{ width: 210 }} />
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
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {firingOrder.map((id) => (
          <FiringRow key={id} id={id} />
        ))}
      </tbody>
    </table>
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
            <input
              type="checkbox"
              checked={paused}
              onChange={(e) => void updateSettings({ alertsPaused: e.target.checked })}
            />{' '}
            Pause all alerts
          </label>
          <button type="button" className="btn primary" onClick={() => openDialog({ kind: 'rule', ruleId: null })}>
            <Icon name="plus" size={14} /> New rule
          </button>
        </div>
      </header>
      {paused ? (
        <div className="banner warn">Alerts are paused: no rule fires and nothing is bought automatically.</div>
      ) : null}
      <div className="alerts-body">
        <AutoBuyPanel />
        <section className="panel" aria-label="Watchlist rules">
          <h2 className="panel-title">Watchlist</h2>
          {status === 'error' && ruleOrder.length === 0 ? (
            <EmptyState
              title="Could not load alert rules"
              tone="error"
              action={
                <button type="button" className="btn" onClick={() => void loadAlerts()}>
                  Retry
                </button>
              }
            >
              {error}
            </EmptyState>
          ) : ruleOrder.length === 0 ? (
            status === 'ready' ? (
              <EmptyState
                title="No watchlist rules yet"
                action={
                  <button
                    type="button"
                    className="btn primary"
                    onClick={() => openDialog({ kind: 'rule', ruleId: null })}
                  >
                    Create a rule
                  </button>
                }
              >
                A rule watches the live catalog for items by name, phase, float, price or stickers, and tells you — or
                buys — when one appears.
              </EmptyState>
            ) : (
              <EmptyState title="Loading rules…" tone="loading" />
            )
          ) : (
            <table className="data-table" aria-label="Alert rules">
              <colgroup>
                <col style={{ width: 56 }} />
                <col />
                <col style={{ width: 72 }} />
                <col style={{ width: 300 }} />
                <col style={{ width: 210 }} />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">On</th>
                  <th scope="col">Rule and what it matches</th>
                  <th scope="col" className="right">
                    Fired
                  </th>
                  <th scope="col">Auto-buy caps</th>
                  <th scope="col" className="right">
                    <span className="sr-only">Actions</span>
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
            <span className="muted small key-hints" id="firings-keys">
              <kbd>↑</kbd>
              <kbd>↓</kbd> select · <kbd>A</kbd> acknowledge · <kbd>R</kbd> re-arm its rule
            </span>
            <button
              type="button"
              className="btn sm"
              disabled={unacked.length === 0}
              onClick={() => void acknowledgeAll(unacked)}
            >
              Acknowledge all
            </button>
          </div>
          <SkipLines />
          <FiringsBody />
        </section>
      </div>
    </div>
  );
}
