import type { ReactNode } from 'react';

/** A labelled form field with an optional hint or error line (announced). */
export function Field({
  label,
  htmlFor,
  hint,
  error,
  children,
  className = '',
}: {
  label: string;
  htmlFor: string;
  hint?: ReactNode;
  error?: string | null | undefined;
  children: ReactNode;
  className?: string;
}) {
  return (
    <div className={`field ${error ? 'has-error' : ''} ${className}`}>
      <label htmlFor={htmlFor}>{label}</label>
      {children}
      {error ? (
        <div className="field-error" id={`${htmlFor}-msg`} role="alert">
          {error}
        </div>
      ) : hint ? (
        <div className="field-hint" id={`${htmlFor}-msg`}>
          {hint}
        </div>
      ) : null}
    </div>
  );
}
