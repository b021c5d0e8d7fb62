import { type RefObject, useId, useRef, useState } from 'react';
import type { AccountInput } from '../../../../shared/ipc/contract';
import { sameEndpoint } from '../../../../shared/endpoints';
import type { KeyStoreInfo } from '../../../../shared/ipc/keyStore';
import type { AccountSummary, ConnectionTestResult, SavedAccount } from '../../../../shared/ipc/models';
import { Field } from '../../components/Field';
import { Money } from '../../components/Money';
import { errorMessage } from '../../lib/ipc';
import { configureAccount, connectDemoSandbox, switchToSavedAccount, testAccount } from '../../state/actions/account';
import { API_KEY_FIELD_ID } from '../../state/actions/navigation';
import { toast } from '../../state/actions/toast';
import { useStore } from '../../state/store';
import { connectionLabel } from '../../app/connectionLabels';

/** A message as a sentence: its own full stop, or one added. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function urlProblem(value: string, schemes: string[]): string | null {
  if (value.trim() === '') return 'Required';
  try {
    const url = new URL(value.trim());
    if (!schemes.includes(url.protocol.replace(':', '')))
      return `Must start with ${schemes.map((s) => `${s}://`).join(' or ')}`;
    return null;
  } catch {
    return 'Not a valid URL';
  }
}

/**
 * What the form edits: the account saved in Settings. In demo mode the active account is
 * the demo sandbox's, which is never shown or edited here; an account given on the command
 * line (no saved one) is shown as it is in use.
 */
function formAccount(account: AccountSummary | null): SavedAccount | null {
  if (!account) return null;
  if (account.saved !== undefined && account.saved !== null) return account.saved;
  if (account.demo || account.merchantId === null || account.baseUrl === null || account.wsUrl === null) return null;
  return {
    merchantId: account.merchantId,
    baseUrl: account.baseUrl,
    wsUrl: account.wsUrl,
    apiKeyConfigured: account.apiKeyConfigured,
  };
}

/** Where the key is (or will be) kept: the engine's key store as it is, never a promise it cannot keep. */
function keyStoreHint(keyStore: KeyStoreInfo | null, keyConfigured: boolean, keyAwaited: boolean): string {
  if (keyAwaited) return 'Waiting for the OS keychain to answer: the key stored there is used as soon as it does.';
  const where = keyStore?.description ?? 'by the engine';
  return keyConfigured ? `A key is stored ${where}. Leave blank to keep it.` : `Stored ${where}; never shown again.`;
}

function missingKeyProblem(saved: SavedAccount | null, merchantId: string, keyAwaited: boolean): string {
  if (keyAwaited) return 'Required while the keychain has not answered: wait for it, or enter the key';
  if (saved?.apiKeyConfigured && merchantId.trim() === saved.merchantId)
    return 'Required: the stored key is only sent to the saved addresses';
  return 'Required: no key is stored for this merchant';
}

interface ConnectionFormProps {
  saved: SavedAccount | null;
  demo: boolean;
  keyStore: KeyStoreInfo | null;
  /** The account is open from its cache without its key: saving the key takes it live. */
  cacheOnly: boolean;
  /** The saved account's key is awaited from a keychain slow to answer: neither configured nor missing yet. */
  keyAwaited: boolean;
  keyRef: RefObject<HTMLInputElement | null>;
}

function ConnectionForm({ saved, demo, keyStore, cacheOnly, keyAwaited: awaited, keyRef }: ConnectionFormProps) {
  const id = useId();
  const [baseUrl, setBaseUrl] = useState(saved?.baseUrl ?? '');
  const [wsUrl, setWsUrl] = useState(saved?.wsUrl ?? '');
  const [merchantId, setMerchantId] = useState(saved?.merchantId ?? '');
  const [apiKey, setApiKey] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState<'test' | 'save' | null>(null);
  const [result, setResult] = useState<(ConnectionTestResult & { action: string }) | null>(null);
  // The stored key belongs to the saved merchant and goes only to its saved addresses: another merchant id
  // or another address needs its key typed again (the engine refuses otherwise).
  const keyConfigured =
    saved !== null &&
    saved.apiKeyConfigured &&
    merchantId.trim() === saved.merchantId &&
    sameEndpoint(baseUrl, saved.baseUrl) &&
    sameEndpoint(wsUrl, saved.wsUrl);
  const keyAwaited = awaited && saved !== null && merchantId.trim() === saved.merchantId;

  const problems = {
    baseUrl: urlProblem(baseUrl, ['http', 'https']),
    wsUrl: urlProblem(wsUrl, ['ws', 'wss']),
    merchantId: merchantId.trim() === '' ? 'Required' : null,
    apiKey:
      apiKey !== '' && apiKey.length < 8
        ? 'At least 8 characters'
        : !keyConfigured && apiKey === ''
          ? missingKeyProblem(saved, merchantId, keyAwaited)
          : null,
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
      aria-label="Marketplace account"
      onSubmit={(e) => {
        e.preventDefault();
        void run('save');
      }}
    >
      {demo ? (
        <p className="muted small form-lead">
          {saved
            ? `Your saved account. Test it here without leaving the demo; Save switches to it.`
            : 'Enter your marketplace account to test it; Save connects it and leaves the demo.'}
        </p>
      ) : null}
      <div className="form-row">
        <Field
          label="Base URL"
          htmlFor={`${id}-base`}
          error={show('baseUrl')}
          hint="The HTTP API, e.g. https://api.example.com"
        >
          <input
            id={`${id}-base`}
            type="url"
            spellCheck={false}
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            placeholder="https://"
          />
        </Field>
        <Field
          label="WebSocket URL"
          htmlFor={`${id}-ws`}
          error={show('wsUrl')}
          hint="The live feed, e.g. wss://api.example.com/ws"
        >
          <input
            id={`${id}-ws`}
            type="url"
            spellCheck={false}
            value={wsUrl}
            onChange={(e) => setWsUrl(e.target.value)}
            placeholder="wss://"
          />
        </Field>
      </div>
      <div className="form-row">
        <Field label="Merchant ID" htmlFor={`${id}-merchant`} error={show('merchantId')}>
          <input
            id={`${id}-merchant`}
            spellCheck={false}
            autoComplete="off"
            value={merchantId}
            onChange={(e) => setMerchantId(e.target.value)}
          />
        </Field>
        <Field
          label="API key"
          htmlFor={API_KEY_FIELD_ID}
          error={show('apiKey')}
          hint={keyStoreHint(keyStore, keyConfigured, keyAwaited)}
        >
          <div className="key-input">
            <input
              ref={keyRef}
              id={API_KEY_FIELD_ID}
              type="password"
              autoComplete="new-password"
              spellCheck={false}
              value={apiKey}
              placeholder={
                keyConfigured ? '•••••••• (configured)' : keyAwaited ? 'Waiting for the keychain…' : 'Not configured'
              }
              onChange={(e) => setApiKey(e.target.value)}
            />
            <span className={`tag ${keyConfigured ? 'tag-ok' : 'tag-warn'}`}>
              {keyConfigured ? 'configured' : keyAwaited ? 'waiting for the keychain' : 'not configured'}
            </span>
          </div>
        </Field>
      </div>
      {result ? (
        <div className={`notice ${result.ok ? 'ok' : 'error'}`} role={result.ok ? 'status' : 'alert'}>
          {/* The engine's message already names what is available: the credit behind it is said only when there is some. */}
          <strong>
            {result.ok
              ? result.action === 'test'
                ? 'Connection works.'
                : 'Saved and connected.'
              : 'Connection failed.'}
          </strong>{' '}
          {sentence(result.message)}
          {result.ok && result.balance && result.balance.credit_limit > 0 ? (
            <>
              {' '}
              Balance <Money cents={result.balance.balance} /> and credit <Money cents={result.balance.credit_limit} />.
            </>
          ) : null}
          {result.ok && result.action === 'test' && demo ? <> Still on the demo sandbox: Save to switch.</> : null}
        </div>
      ) : null}
      <div className="form-actions">
        <button type="button" className="btn" disabled={busy !== null} onClick={() => void run('test')}>
          {busy === 'test' ? <span className="spinner sm" aria-hidden="true" /> : null}
          Test connection
        </button>
        <button type="submit" className="btn primary" disabled={busy !== null}>
          {busy === 'save' ? <span className="spinner sm" aria-hidden="true" /> : null}
          {demo ? 'Save and connect' : cacheOnly ? 'Save and go live' : 'Save'}
        </button>
      </div>
    </form>
  );
}

/** The demo sandbox as an on/off switch: on starts the embedded sandbox, off goes back to the saved account. */
function DemoSwitch({ account }: { account: AccountSummary | null }) {
  const [busy, setBusy] = useState(false);
  const demo = account?.demo ?? false;
  const saved = account?.saved ?? null;
  // Without its key the saved account opens from its cache (read-only), so it can always be left for.
  const canLeave = saved !== null;
  const flip = async (on: boolean) => {
    setBusy(true);
    try {
      if (on) await connectDemoSandbox();
      else await switchToSavedAccount();
    } finally {
      setBusy(false);
    }
  };
  const disabled = busy || !account || (demo && !canLeave);
  return (
    <div className={`demo-switch ${demo ? 'on' : ''}`}>
      <label className="switch" title={demo && !canLeave ? 'Save an account below to leave the demo' : undefined}>
        <input
          type="checkbox"
          role="switch"
          aria-label="Demo sandbox"
          checked={demo}
          disabled={disabled}
          onChange={(e) => void flip(e.target.checked)}
        />
        <span aria-hidden="true" />
      </label>
      <div className="demo-switch-text">
        <div className="strong">
          Demo sandbox{' '}
          {busy ? (
            <span className="spinner sm" aria-hidden="true" />
          ) : (
            <span className={`tag ${demo ? 'tag-demo' : ''}`}>{demo ? 'on' : 'off'}</span>
          )}
        </div>
        <div className="muted small">
          {demo
            ? 'An embedded marketplace with a simulated market and play money. Nothing here is real.'
            : account?.cacheOnly
              ? `The cached data of ${account.merchantId ?? 'your account'}, read-only until its API key is entered. Turn on to practise on a simulated market.`
              : `Trading on ${account?.merchantId ?? 'your account'} for real. Turn on to practise on a simulated market.`}
        </div>
      </div>
      {demo && canLeave ? (
        <button type="button" className="btn" disabled={busy} onClick={() => void flip(false)}>
          Back to {saved.merchantId}
        </button>
      ) : null}
      {demo && !canLeave ? <span className="muted small">Save an account below to leave the demo.</span> : null}
    </div>
  );
}

export function ConnectionSection() {
  const account = useStore((s) => s.conn.account);
  const connection = useStore((s) => s.conn.connection);
  const boot = useStore((s) => s.conn.boot);
  const saved = formAccount(account);
  const demo = account?.demo ?? false;
  const cacheOnly = account?.cacheOnly === true;
  const keyAwaited = account?.awaitingKeyStore === true;
  const keyRef = useRef<HTMLInputElement>(null);
  return (
    <section className="panel settings-section" aria-labelledby="settings-connection">
      <div className="panel-head">
        <h2 className="panel-title" id="settings-connection">
          Connection
        </h2>
        <div className="conn-summary">
          {connection ? (
            <span className={`conn-state state-${connection.state}`} title={connection.detail}>
              <span className="status-dot" aria-hidden="true" /> {connectionLabel(connection.state, keyAwaited)}
            </span>
          ) : null}
          {account?.merchantId ? (
            <span className="muted small">{demo ? 'Demo merchant' : `Merchant ${account.merchantId}`}</span>
          ) : null}
        </div>
      </div>
      {cacheOnly ? (
        <section className="notice warn form-lead" aria-label="Read-only: cached data">
          <p>
            <strong>Read-only: the cached data of {account?.merchantId}.</strong> No API key for it on this machine, so
            nothing is sent to the marketplace: buying and refreshing wait for the key.
          </p>
          <button type="button" className="btn primary" onClick={() => keyRef.current?.focus()}>
            Enter your API key to go live
          </button>
        </section>
      ) : connection?.detail ? (
        <p className="muted small">{connection.detail}</p>
      ) : null}
      <DemoSwitch account={account} />
      {/* Not keyed by whether the key is configured: a key being typed while the keychain is awaited stays when it answers. */}
      <ConnectionForm
        key={`${boot}|${demo}|${saved?.merchantId ?? ''}|${saved?.baseUrl ?? ''}`}
        saved={saved}
        demo={demo}
        keyStore={account?.keyStore ?? null}
        cacheOnly={cacheOnly}
        keyAwaited={keyAwaited}
        keyRef={keyRef}
      />
    </section>
  );
}
