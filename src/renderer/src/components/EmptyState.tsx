import type { ReactNode } from 'react';

/** A designed empty/loading/error state: never a blank area. */
export function EmptyState({
  title,
  children,
  tone = 'neutral',
  action,
}: {
  title: string;
  children?: ReactNode;
  tone?: 'neutral' | 'error' | 'loading';
  action?: ReactNode;
}) {
  return (
    <div className={`empty-state ${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {tone === 'loading' ? <span className="spinner" aria-hidden="true" /> : null}
      <div className="empty-title">{title}</div>
      {children ? <div className="empty-body">{children}</div> : null}
      {action ? <div className="empty-action">{action}</div> : null}
    </div>
  );
}
