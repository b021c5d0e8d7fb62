import type { BuyWarning } from '../../../../shared/ipc/models';

/** Pre-buy warnings (limits, funds, local catalog): shown on the confirm step, never blocking. */
export function Warnings({
  warnings,
}: {
  warnings: readonly BuyWarning[] | readonly { code: string; message: string }[];
}) {
  if (warnings.length === 0) return null;
  return (
    <ul className="warnings" aria-label="Warnings">
      {warnings.map((w) => (
        <li key={w.code} className="warning">
          <span aria-hidden="true">⚠</span> {w.message}
        </li>
      ))}
    </ul>
  );
}
