import {
  BULK_SHARE_PERCENT_MAX,
  BULK_SHARE_PERCENT_MIN,
  DEFAULT_BULK_SHARE_PERCENT,
} from '../../../../shared/requestBudget';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '../../../../shared/api/limits';
import { Field } from '../../components/Field';
import { updateSettings } from '../../state/actions/settings';
import { useStore } from '../../state/store';

const CHOICES = Array.from(
  { length: (BULK_SHARE_PERCENT_MAX - BULK_SHARE_PERCENT_MIN) / 10 + 1 },
  (_, i) => BULK_SHARE_PERCENT_MIN + i * 10,
);

/** How much of the API's request budget the desk's background work may take (the merchant's back end shares it). */
export function BudgetSection() {
  const settings = useStore((s) => s.settings.settings);
  const percent = settings?.bulkSharePercent ?? DEFAULT_BULK_SHARE_PERCENT;
  return (
    <section className="panel settings-section" aria-labelledby="settings-budget">
      <h2 className="panel-title" id="settings-budget">
        Request budget
      </h2>
      <p className="muted small">
        The API allows {DEFAULT_RATE_LIMIT_PER_MINUTE} requests a minute per merchant, shared by this desk and your own
        back end.
      </p>
      <Field
        label="Background work may use"
        htmlFor="settings-bulk-share"
        hint="History back-fill, catch-up and ledger pages; buys never wait behind them"
      >
        <select
          id="settings-bulk-share"
          disabled={!settings}
          value={percent}
          onChange={(e) => void updateSettings({ bulkSharePercent: Number(e.target.value) })}
        >
          {CHOICES.map((choice) => (
            <option key={choice} value={choice}>
              {choice} % ({Math.floor((DEFAULT_RATE_LIMIT_PER_MINUTE * choice) / 100)} a minute)
            </option>
          ))}
        </select>
      </Field>
    </section>
  );
}
