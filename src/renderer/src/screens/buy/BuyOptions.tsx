import { useId } from 'react';
import {
  TRADE_DURATION_DEFAULT_SECONDS,
  TRADE_DURATION_MAX_SECONDS,
  TRADE_DURATION_MIN_SECONDS,
} from '../../../../shared/api/limits';
import { Field } from '../../components/Field';
import { formatDurationSeconds } from '../../lib/format';

export const DURATION_PRESETS = [600, 1800, 3600, 7200, 14_400, 28_800, 43_200] as const;

export interface BuyOptionsValue {
  /** Seconds as typed (custom) or a preset. */
  duration: string;
  externalId: string;
}

export const DEFAULT_OPTIONS: BuyOptionsValue = { duration: String(TRADE_DURATION_DEFAULT_SECONDS), externalId: '' };

export function durationProblem(text: string): string | null {
  if (!/^\d+$/.test(text.trim())) return 'Whole seconds, 600 to 43200';
  const n = Number(text);
  if (n < TRADE_DURATION_MIN_SECONDS || n > TRADE_DURATION_MAX_SECONDS)
    return `Between ${TRADE_DURATION_MIN_SECONDS} s (10 min) and ${TRADE_DURATION_MAX_SECONDS} s (12 h)`;
  return null;
}

export function externalIdProblem(text: string): string | null {
  return text.length > 128 ? 'At most 128 characters' : null;
}

export function optionsReady(v: BuyOptionsValue): boolean {
  return durationProblem(v.duration) === null && externalIdProblem(v.externalId) === null;
}

export function BuyOptions({ value, onChange }: { value: BuyOptionsValue; onChange: (v: BuyOptionsValue) => void }) {
  const id = useId();
  const preset = (DURATION_PRESETS as readonly number[]).includes(Number(value.duration)) ? value.duration : 'custom';
  const problem = durationProblem(value.duration);
  return (
    <div className="form-row">
      <Field
        label="Trade duration"
        htmlFor={`${id}-dur`}
        error={preset === 'custom' ? problem : null}
        hint={
          preset === 'custom' ? 'Seconds the recipient has to accept (600–43200)' : 'Time the recipient has to accept'
        }
      >
        <div className="duration-inputs">
          <select
            id={`${id}-dur`}
            value={preset}
            onChange={(e) =>
              onChange({
                ...value,
                duration: e.target.value === 'custom' ? (preset === 'custom' ? value.duration : '900') : e.target.value,
              })
            }
          >
            {DURATION_PRESETS.map((s) => (
              <option key={s} value={String(s)}>
                {formatDurationSeconds(s)}
                {s === TRADE_DURATION_DEFAULT_SECONDS ? ' (default)' : ''}
              </option>
            ))}
            <option value="custom">Custom…</option>
          </select>
          {preset === 'custom' ? (
            <input
              aria-label="Trade duration in seconds"
              inputMode="numeric"
              value={value.duration}
              aria-invalid={problem ? true : undefined}
              onChange={(e) => onChange({ ...value, duration: e.target.value })}
            />
          ) : null}
        </div>
      </Field>
      <Field
        label="Order ID (optional)"
        htmlFor={`${id}-ext`}
        error={externalIdProblem(value.externalId)}
        hint="Your own reference (externalId); must be unique"
      >
        <input
          id={`${id}-ext`}
          autoComplete="off"
          spellCheck={false}
          placeholder="e.g. ORD-10423"
          value={value.externalId}
          onChange={(e) => onChange({ ...value, externalId: e.target.value })}
        />
      </Field>
    </div>
  );
}
