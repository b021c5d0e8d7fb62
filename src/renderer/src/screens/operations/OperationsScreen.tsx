import { OfflineBanner } from '../../app/OfflineBanner';
import { Icon } from '../../components/Icon';
import { WebhookHealthSection } from './WebhookHealthSection';
import { useWebhookHealth } from './useWebhookHealth';

/** The operator's console: one section per view, computed by the engine from the local store (offline too). */
export function OperationsScreen() {
  const health = useWebhookHealth();
  return (
    <div className="screen operations-screen">
      <header className="screen-head">
        <div className="screen-title">
          <h1>Operations</h1>
        </div>
        <div className="head-actions">
          <button type="button" className="btn" onClick={health.reload} aria-label="Reload" title="Reload">
            <Icon name="refresh" size={14} />
          </button>
        </div>
      </header>
      <OfflineBanner />
      <div className="operations-body">
        <WebhookHealthSection state={health} />
      </div>
    </div>
  );
}
