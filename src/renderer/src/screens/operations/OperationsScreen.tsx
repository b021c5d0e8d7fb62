import { OfflineBanner } from '../../app/OfflineBanner';
import { Icon } from '../../components/Icon';
import { navigate } from '../../state/actions/navigation';
import { selectTrade } from '../../state/actions/trades';
import { OrderLookup } from './lookup/OrderLookup';
import { FailuresSection } from './FailuresSection';
import { WebhookHealthSection } from './WebhookHealthSection';
import { useFailures } from './useFailures';
import { useWebhookHealth } from './useWebhookHealth';

/** The operator's console: one section per view, computed by the engine from the local store (offline too). */
export function OperationsScreen() {
  const health = useWebhookHealth();
  const failures = useFailures();
  return (
    <div className="screen operations-screen">
      <header className="screen-head">
        <div className="screen-title">
          <h1>Operations</h1>
        </div>
        <div className="head-actions">
          <button
            type="button"
            className="btn"
            onClick={() => {
              health.reload();
              failures.reload();
            }}
            aria-label="Reload"
            title="Reload"
          >
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
            onOpen={(tradeId) => {
              navigate('trades', tradeId);
              selectTrade(tradeId);
            }}
          />
        </section>
        <FailuresSection state={failures} />
        <WebhookHealthSection state={health} />
      </div>
    </div>
  );
}
