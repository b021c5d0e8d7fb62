import { OfflineBanner } from '../../app/OfflineBanner';
import { Icon } from '../../components/Icon';
import { RecipientsSection } from './RecipientsSection';
import { ReversalsSection } from './ReversalsSection';
import { useReversals } from './useReversals';
import { WebhookHealthSection } from './WebhookHealthSection';
import { useRecipients } from './useRecipients';
import { useWebhookHealth } from './useWebhookHealth';

/** The operator's console: one section per view, computed by the engine from the local store (offline too). */
export function OperationsScreen() {
  const health = useWebhookHealth();
  const recipients = useRecipients();
  const reversals = useReversals();
  const reload = () => {
    health.reload();
    recipients.reload();
    reversals.reload();
  };
  return (
    <div className="screen operations-screen">
      <header className="screen-head">
        <div className="screen-title">
          <h1>Operations</h1>
        </div>
        <div className="head-actions">
          <button type="button" className="btn" onClick={reload} aria-label="Reload" title="Reload">
            <Icon name="refresh" size={14} />
          </button>
        </div>
      </header>
      <OfflineBanner />
      <div className="operations-body">
        <RecipientsSection state={recipients} />
        <ReversalsSection state={reversals} />
        <WebhookHealthSection state={health} />
      </div>
    </div>
  );
}
