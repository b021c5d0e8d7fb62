import { useCallback, useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { redactTradeUrl } from '../../../../shared/api/tradeUrl';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Money } from '../../components/Money';
import { formatCents } from '../../lib/format';
import { errorMessage } from '../../lib/ipc';
import { activeFilterCount, EMPTY_FILTERS, withFilterEdit } from '../../lib/catalogQuery';
import { CatalogFilters } from '../catalog/CatalogFilters';
import { type FilterEdit, FilterEditContext } from '../catalog/filterEdit';
import { previewRule, saveRule } from '../../state/actions/alerts';
import type { AutoBuyPreview } from '../../../../shared/ipc/models';
import { closeDialog } from '../../state/actions/dialogs';
import { navigate } from '../../state/actions/navigation';
import { toast } from '../../state/actions/toast';
import { getState, useStore } from '../../state/store';
import { EMPTY_RULE_FORM, formFromRule, type RuleForm, ruleInput, ruleProblems } from './ruleForm';

const PREVIEW_DELAY_MS = 300;

/**
 * What an auto-buy rule matches now, and the choice about those listings: only new listings (the default)
 * or also the ones listed now. Shown whenever an enabled auto-buy rule is saved.
 */
function ExistingListingsChoice({
  form,
  value,
  onChange,
}: {
  form: RuleForm;
  value: 'skip' | 'buy';
  onChange: (v: 'skip' | 'buy') => void;
}) {
  const name = useId();
  const [preview, setPreview] = useState<AutoBuyPreview | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const input = JSON.stringify(ruleInput(form));
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      previewRule(JSON.parse(input) as ReturnType<typeof ruleInput>).then(
        (answer) => {
          if (!live) return;
          setPreview(answer);
          setProblem(null);
        },
        (e: unknown) => {
          if (live) setProblem(errorMessage(e));
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [input]);
  const count = preview?.count ?? 0;
  return (
    <fieldset className="fieldset existing-listings" aria-describedby={`${name}-now`}>
      <legend>Listings on sale now</legend>
      <p id={`${name}-now`} className="small" role="status">
        {problem ? (
          <span className="neg">Could not check what matches now: {problem}</span>
        ) : preview === null ? (
          <span className="muted">Checking what matches now…</span>
        ) : count === 0 ? (
          'Nothing on sale matches this rule now.'
        ) : (
          <>
            <strong className="num">{count}</strong> listing{count === 1 ? '' : 's'} on sale match
            {count === 1 ? 'es' : ''} now, <Money cents={preview.total} /> in total
            {preview.items.length > 0 ? (
              <span className="muted">
                {' '}
                (cheapest:{' '}
                {preview.items
                  .slice(0, 3)
                  .map((item) => `${item.market_hash_name} ${formatCents(item.price)}`)
                  .join(', ')}
                )
              </span>
            ) : null}
          </>
        )}
      </p>
      <label className="check">
        <input type="radio" name={name} value="skip" checked={value === 'skip'} onChange={() => onChange('skip')} />{' '}
        Only new listings (nothing on sale now is bought)
      </label>
      <label className="check">
        <input
          type="radio"
          name={name}
          value="buy"
          checked={value === 'buy'}
          disabled={count === 0}
          onChange={() => onChange('buy')}
        />{' '}
        Also the {count} listed now
        {preview ? ` (total ${formatCents(preview.total)})` : null}
      </label>
    </fieldset>
  );
}

/** Create or edit a watchlist rule. Auto-buy is off unless switched on, with caps in dollars. */
export function RuleEditor({ ruleId, enabling = false }: { ruleId: string | null; enabling?: boolean }) {
  const id = useId();
  const [form, setForm] = useState<RuleForm>(() => {
    const rule = ruleId ? getState().alerts.rules[ruleId] : undefined;
    const initial = rule ? formFromRule(rule) : EMPTY_RULE_FORM;
    return enabling ? { ...initial, enabled: true } : initial;
  });
  const [existing, setExisting] = useState<'skip' | 'buy'>('skip');
  const spent = useStore((s) => (ruleId ? s.alerts.rules[ruleId]?.autoBuy.spent : undefined));
  const { order, recipients } = useStore(
    useShallow((s) => ({ order: s.settings.recipientOrder, recipients: s.settings.recipients })),
  );
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problems = ruleProblems(form);
  const show = (k: keyof RuleForm) => (touched ? problems[k] : undefined);
  const set = (patch: Partial<RuleForm>) => setForm((f) => ({ ...f, ...patch }));
  const editRuleFilters = useCallback<FilterEdit>(
    (patch) => setForm((f) => ({ ...f, filters: withFilterEdit(f.filters, patch) })),
    [],
  );
  const ok = Object.keys(problems).length === 0;

  const submit = async () => {
    setTouched(true);
    if (!ok) return;
    setSaving(true);
    setError(null);
    try {
      const rule = await saveRule({
        ...ruleInput(form),
        existingListings: form.autoBuy && form.enabled ? existing : 'skip',
      });
      toast('success', ruleId ? 'Rule saved' : 'Rule created', rule.name);
      closeDialog();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog
      title={enabling ? `Enable “${form.name}”` : ruleId ? 'Edit alert rule' : 'New alert rule'}
      onClose={closeDialog}
      className="rule-dialog"
    >
      <form
        className="dialog-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div className="form-row">
          <Field label="Rule name" htmlFor={`${id}-name`} error={show('name')}>
            <input
              id={`${id}-name`}
              autoFocus
              data-autofocus
              value={form.name}
              placeholder="Cheap Rubies"
              onChange={(e) => set({ name: e.target.value })}
            />
          </Field>
          <label className="check switch-label">
            <input type="checkbox" checked={form.enabled} onChange={(e) => set({ enabled: e.target.checked })} />{' '}
            Enabled
          </label>
        </div>
        <fieldset
          className="fieldset rule-filters"
          aria-describedby={show('filters') ? `${id}-filters-error` : undefined}
        >
          <legend>Match items: the catalog’s filters</legend>
          <FilterEditContext.Provider value={editRuleFilters}>
            <CatalogFilters
              form={form.filters}
              idPrefix={`${id}-filters`}
              end={
                <button
                  type="button"
                  className="btn ghost sm"
                  disabled={activeFilterCount(form.filters) === 0 && form.filters.search === ''}
                  onClick={() => set({ filters: EMPTY_FILTERS })}
                >
                  Clear filters
                </button>
              }
            />
          </FilterEditContext.Provider>
          {show('filters') ? (
            <p id={`${id}-filters-error`} className="field-error" role="alert">
              {show('filters')}
            </p>
          ) : null}
          <Field
            label="Max price ($)"
            htmlFor={`${id}-max`}
            error={show('maxPrice')}
            hint={
              form.autoBuy
                ? 'Per item. Required for auto-buy: never pays more per item'
                : 'Per item, optional: the rule ignores listings above it'
            }
          >
            <input
              id={`${id}-max`}
              inputMode="decimal"
              placeholder={form.autoBuy ? 'required' : 'any'}
              aria-required={form.autoBuy}
              value={form.maxPrice}
              onChange={(e) => set({ maxPrice: e.target.value })}
            />
          </Field>
        </fieldset>
        <fieldset className={`fieldset ${form.autoBuy ? 'autobuy-on' : ''}`}>
          <legend>Auto-buy</legend>
          <label className="check">
            <input type="checkbox" checked={form.autoBuy} onChange={(e) => set({ autoBuy: e.target.checked })} /> Buy
            matching items automatically
          </label>
          {form.autoBuy ? (
            <p className="notice warn small">
              Auto-buy spends real balance the moment a match appears, up to the caps below.
            </p>
          ) : null}
          <div className="form-row">
            <Field label="Recipient" htmlFor={`${id}-rcpt`} error={show('recipientId')}>
              {order.length === 0 ? (
                <div className="muted small">
                  No saved recipients.{' '}
                  <button
                    type="button"
                    className="link-btn"
                    onClick={() => {
                      closeDialog();
                      navigate('settings');
                    }}
                  >
                    Add one in Settings
                  </button>
                </div>
              ) : (
                <select
                  id={`${id}-rcpt`}
                  value={form.recipientId}
                  disabled={!form.autoBuy}
                  onChange={(e) => set({ recipientId: e.target.value })}
                >
                  <option value="">Choose…</option>
                  {order.map((rid) => {
                    const r = recipients[rid];
                    return r ? (
                      <option key={rid} value={rid}>
                        {r.label} — {redactTradeUrl(r.tradeUrl)}
                      </option>
                    ) : null;
                  })}
                </select>
              )}
            </Field>
            <Field label="Total spend cap ($)" htmlFor={`${id}-cap`} error={show('spendCap')}>
              <input
                id={`${id}-cap`}
                inputMode="decimal"
                disabled={!form.autoBuy}
                placeholder="0.00"
                value={form.spendCap}
                onChange={(e) => set({ spendCap: e.target.value })}
              />
            </Field>
            <Field label="Daily cap ($)" htmlFor={`${id}-daily`} error={show('dailyCap')}>
              <input
                id={`${id}-daily`}
                inputMode="decimal"
                disabled={!form.autoBuy}
                placeholder="0.00"
                value={form.dailyCap}
                onChange={(e) => set({ dailyCap: e.target.value })}
              />
            </Field>
          </div>
          <label className="check">
            <input
              type="checkbox"
              checked={form.dryRun}
              disabled={!form.autoBuy}
              onChange={(e) => set({ dryRun: e.target.checked })}
            />{' '}
            Dry run: record “would buy at $X” and send nothing
          </label>
          {spent !== undefined ? (
            <div className="muted small">
              Spent by this rule so far: <Money cents={spent} />
            </div>
          ) : null}
        </fieldset>
        {form.autoBuy && form.enabled && !form.dryRun && ok ? (
          <ExistingListingsChoice form={form} value={existing} onChange={setExisting} />
        ) : null}
        {error ? (
          <div className="notice error" role="alert">
            {error}
          </div>
        ) : null}
        <footer className="dialog-actions">
          <button type="button" className="btn ghost" onClick={closeDialog}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={saving || (touched && !ok)}>
            {saving ? 'Saving…' : enabling ? 'Enable rule' : 'Save rule'}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
