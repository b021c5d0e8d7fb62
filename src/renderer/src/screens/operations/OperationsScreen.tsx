import { OfflineBanner } from '../../app/OfflineBanner';
import { Icon } from '../../components/Icon';
import { navigate } from '../../state/actions/navigation';
import { selectTrade } from '../../state/actions/trades';
import { useStore } from '../../state/store';
import { OrderLookup } from './lookup/OrderLookup';
import { FailuresSection } from './FailuresSection';
import { WebhookHealthSection } from './WebhookHealthSection';
import { useFailures } from './useFailures';
import { RecipientsSection } from './RecipientsSection';
import { ReversalsSection } from './ReversalsSection';
import { useReversals } from './useReversals';
import { useRecipients } from './useRecipients';
import { useWebhookHealth } from './useWebhookHealth';

/** The operator's console: one section per view, computed by the engine from the local store (offline too). */
export function OperationsScreen() {
  const health = useWebhookHealth();
  const failures = useFailures();
  const recipients = useRecipients();
  const reversals = useReversals();
  // A link to an order: the look-up shows what it finds for that order id.
  const orderLookup = useStore((s) => s.ui.orderLookup);
  const reload = () => {
    health.reload();
    failures.reload();
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
        <section className="panel operations-section" aria-labelledby="ops-lookup-title">
          <h2 className="panel-title" id="ops-lookup-title">
            Order look-up
          </h2>
          <OrderLookup
            key={orderLookup?.seq ?? 0}
            initialQuery={orderLookup?.query ?? ''}
            onOpen={(tradeId) => {
              navigate('trades', tradeId);
              selectTrade(tradeId);
            }}
          />
        </section>
        <RecipientsSection state={recipients} />
        <FailuresSection state={failures} />
        <ReversalsSection state={reversals} />
        <WebhookHealthSection state={health} />
      </div>
    </div>
  );
}
