import { useId, useState } from 'react';
import type { AccountInput } from '../../../../shared/ipc/contract';
import type { AccountSummary, ConnectionTestResult } from '../../../../shared/ipc/models';
import { Field } from '../../components/Field';
import { Money } from '../../components/Money';
import { errorMessage } from '../../lib/ipc';
import { configureAccount, testAccount, connectDemoSandbox } from '../../state/actions/settings';
import { toast } from '../../state/actions/ui';
import { useStore } from '../../state/store';
import { CONNECTION_LABELS } from '../../app/connectionLabels';

function urlProblem(value: string, schemes: string[]): string | null {
  if (value.trim() === '') return 'Required';
  try {
    const url = new URL(value.trim());
    if (!schemes.includes(url.protocol.replace(':', ''))) return `Must start with ${schemes.map((s) => `${s}://`).join(' or ')}`;
    return null;
  } catch {
    return 'Not a valid URL';
  }
}

function ConnectionForm({ account }: { account: AccountSummary | null }) {
  const id = useId();
  const [baseUrl, setBaseUrl] = useState(account?.baseUrl ?? '');
  const [wsUrl, setWsUrl] = useState(account?.wsUrl ?? '');
  const [merchantId, setMerchantId] = useState(account?.merchantId ?? '');
  const [apiKey, setApiKey] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState<'test' | 'save' | 'demo' | null>(null);
  const [result, setResult] = useState<(ConnectionTestResult & { action: string }) | null>(null);
  const keyConfigured = account?.apiKeyConfigured ?? false;

  const problems = {
    baseUrl: urlProblem(baseUrl, ['http', 'https']),
    wsUrl: urlProblem(wsUrl, ['ws', 'wss']),
    merchantId: merchantId.trim() === '' ? 'Required' : null,
    apiKey: apiKey !== '' && apiKey.length < 8 ? 'At least 8 characters' : !keyConfigured && apiKey === '' ? 'Required: no key is stored yet' : null,
  };
  const ok = !problems.baseUrl && !problems.wsUrl && !problems.merchantId && !problems.apiKey;
  const input = (): AccountInput => ({
    baseUrl: baseUrl.trim(),
    wsUrl: wsUrl.trim(),
    merchantId: merchantId.trim(),
    ...(apiKey ? { apiKey } : {}),
  });

  const run = async (action: 'test' | 'save') => {
    setTouched(true);
    if (!ok) return;
    setBusy(action);
    setResult(null);
    try {
      const r = action === 'test' ? await testAccount(input()) : await configureAccount(input());
      setResult({ ...r, action });
      if (action === 'save' && r.ok) {
        setApiKey('');
        toast('success', 'Connection saved', r.message);
      }
    } catch (e) {
      setResult({ ok: false, message: errorMessage(e), merchantId: null, balance: null, action });
    } finally {
      setBusy(null);
    }
  };

  const show = (k: keyof typeof problems) => (touched ? problems[k] : null);
  return (
    <form
      className="settings-form"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void run('save');
      }}
    >
      <div className="form-row">
        <Field label="Base URL" htmlFor={`${id}-base`} error={show('baseUrl')} hint="The HTTP API, e.g. https://api.example.com">
          <input id={`${id}-base`} type="url" spellCheck={false} value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://" />
        </Field>
        <Field label="WebSocket URL" htmlFor={`${id}-ws`} error={show('wsUrl')} hint="The live feed, e.g. wss://api.example.com/ws">
          <input id={`${id}-ws`} type="url" spellCheck={false} value={wsUrl} onChange={(e) => setWsUrl(e.target.value)} placeholder="wss://" />
        </Field>
      </div>
      <div className="form-row">
        <Field label="Merchant ID" htmlFor={`${id}-merchant`} error={show('merchantId')}>
          <input id={`${id}-merchant`} spellCheck={false} autoComplete="off" value={merchantId} onChange={(e) => setMerchantId(e.target.value)} />
        </Field>
        <Field
          label="API key"
          htmlFor={`${id}-key`}
          error={show('apiKey')}
          hint={keyConfigured ? 'A key is stored in the OS keychain. Leave blank to keep it.' : 'Stored in the OS keychain; never shown again.'}
        >
          <div className="key-input">
            <input
              id={`${id}-key`}
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              value={apiKey}
              placeholder={keyConfigured ? '•••••••• (configured)' : 'Not configured'}
              onChange={(e) => setApiKey(e.target.value)}
            />
            <span className={`tag ${keyConfigured ? 'tag-ok' : 'tag-warn'}`}>{keyConfigured ? 'configured' : 'not configured'}</span>
          </div>
        </Field>
      </div>
      {result ? (
        <div className={`notice ${result.ok ? 'ok' : 'error'}`} role={result.ok ? 'status' : 'alert'}>
          <strong>{result.ok ? (result.action === 'test' ? 'Connection works.' : 'Saved and connected.') : 'Connection failed.'}</strong> {result.message}
          {result.ok && result.balance ? (
            <>
              {' '}
              Balance <Money cents={result.balance.balance} />, available <Money cents={result.balance.total_available} />.
            </>
          ) : null}
        </div>
      ) : null}
      <div className="form-actions">
        <button type="button" className="btn" disabled={busy !== null} onClick={() => void run('test')}>
          {busy === 'test' ? <span className="spinner sm" aria-hidden="true" /> : null}
          Test connection
        </button>
        <button type="submit" className="btn primary" disabled={busy !== null}>
          {busy === 'save' ? <span className="spinner sm" aria-hidden="true" /> : null}
          Save
        </button>
        <span className="spacer" />
        <button
          type="button"
          className="btn ghost"
          disabled={busy !== null}
          onClick={async () => {
            setBusy('demo');
            setResult(null);
            await connectDemoSandbox();
            setBusy(null);
          }}
        >
          {busy === 'demo' ? <span className="spinner sm" aria-hidden="true" /> : null}
          Use demo sandbox
        </button>
      </div>
    </form>
  );
}

export function ConnectionSection() {
  const account = useStore((s) => s.conn.account);
  const connection = useStore((s) => s.conn.connection);
  const boot = useStore((s) => s.conn.boot);
  return (
    <section className="panel settings-section" aria-labelledby="settings-connection">
      <div className="panel-head">
        <h2 className="panel-title" id="settings-connection">
          Connection
        </h2>
        <div className="conn-summary">
          {account?.demo ? <span className="tag tag-demo">Demo sandbox</span> : null}
          {connection ? (
            <span className={`conn-state state-${connection.state}`}>
              <span className="status-dot" aria-hidden="true" /> {CONNECTION_LABELS[connection.state]}
            </span>
          ) : null}
          {account?.merchantId ? <span className="muted small">Merchant {account.merchantId}</span> : null}
        </div>
      </div>
      {connection?.detail ? <p className="muted small">{connection.detail}</p> : null}
      <ConnectionForm key={`${boot}|${account?.merchantId ?? ''}|${account?.baseUrl ?? ''}`} account={account} />
    </section>
  );
}
