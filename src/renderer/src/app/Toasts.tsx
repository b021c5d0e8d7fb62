import { useEffect } from 'react';
import { dismissToast } from '../state/actions/toast';
import { navigate, openTarget } from '../state/actions/navigation';
import type { Toast } from '../state/slices/notes';
import { useStore } from '../state/store';

function ToastItem({ toast }: { toast: Toast }) {
  useEffect(() => {
    const t = setTimeout(() => dismissToast(toast.id), toast.tone === 'error' ? 12_000 : 6000);
    return () => clearTimeout(t);
  }, [toast.id, toast.tone]);
  return (
    <div className={`toast tone-${toast.tone}`} role={toast.tone === 'error' ? 'alert' : 'status'}>
      <div className="toast-main">
        <div className="toast-title">{toast.title}</div>
        {toast.body ? <div className="toast-body">{toast.body}</div> : null}
      </div>
      <div className="toast-actions">
        {toast.opensNotifications ? (
          <button
            type="button"
            className="link-btn"
            onClick={() => {
              navigate('notifications');
              dismissToast(toast.id);
            }}
          >
            Review
          </button>
        ) : null}
        {toast.opensAlerts ? (
          <button
            type="button"
            className="link-btn"
            onClick={() => {
              navigate('alerts');
              dismissToast(toast.id);
            }}
          >
            Review
          </button>
        ) : null}
        {toast.target ? (
          <button
            type="button"
            className="link-btn"
            onClick={() => {
              openTarget(toast.target);
              dismissToast(toast.id);
            }}
          >
            {toast.target.type === 'trade' ? 'Open trade' : 'Open item'}
          </button>
        ) : null}
        <button
          type="button"
          className="icon-btn xs"
          aria-label="Dismiss notification"
          onClick={() => dismissToast(toast.id)}
        >
          ×
        </button>
      </div>
    </div>
  );
}

export function Toasts() {
  const toasts = useStore((s) => s.notes.toasts);
  // A detail panel on the right (an item, a trade) is what the user reads now: toasts stack beside it, never over it.
  const besideDetail = useStore(
    (s) =>
      (s.ui.screen === 'catalog' && s.catalog.detail.id !== null) ||
      (s.ui.screen === 'trades' && s.trades.detail.id !== null),
  );
  return (
    <div
      className={`toasts ${besideDetail ? 'beside-detail' : ''}`}
      role="region"
      aria-label="Notifications"
      aria-live="polite"
    >
      {toasts.map((t) => (
        <ToastItem key={t.id} toast={t} />
      ))}
    </div>
  );
}
