import { useEffect, useState } from 'react';
import type { RecipientStanding as Standing } from '../../../../shared/ipc/operations';
import { Countdown } from '../../components/TimeAgo';
import { formatDateTime } from '../../lib/format';
import { api, errorMessage, unwrap } from '../../lib/ipc';
import { onRecipientsChanged } from '../../state/actions/operations';
import { type RecipientChoice, recipientReady } from './RecipientPicker';

/** A live change re-reads after this pause (a burst reads once). */
const CHANGE_DELAY_MS = 250;
/** The 24 h count and a block's end move with time alone: read again this often while shown. */
const RELOAD_MS = 60_000;

type Read = { key: string; standing: Standing | null; error: string | null };

/** The chosen recipient's standing from the engine, read again as their trades change; null until one is chosen. */
function useRecipientStanding(choice: RecipientChoice): Read | null {
  const ready = recipientReady(choice);
  // Strings, not the choice object: a new object for the same recipient reads nothing again.
  const { kind } = choice;
  const value = choice.kind === 'saved' ? choice.id : choice.url.trim();
  const key = `${kind}:${value}`;
  const [read, setRead] = useState<Read | null>(null);
  useEffect(() => {
    if (!ready) return;
    const recipient = kind === 'saved' ? { recipientId: value } : { tradeUrl: value };
    let live = true;
    const load = () =>
      unwrap(api().buy.recipient({ recipient })).then(
        (standing) => live && setRead({ key, standing, error: null }),
        (problem: unknown) => live && setRead({ key, standing: null, error: errorMessage(problem) }),
      );
    void load();
    let pending: ReturnType<typeof setTimeout> | null = null;
    const stop = onRecipientsChanged(() => {
      pending ??= setTimeout(() => {
        pending = null;
        void load();
      }, CHANGE_DELAY_MS);
    });
    const timer = setInterval(() => void load(), RELOAD_MS);
    return () => {
      live = false;
      stop();
      clearInterval(timer);
      if (pending) clearTimeout(pending);
    };
  }, [ready, kind, value, key]);
  return ready && read?.key === key ? read : null;
}

/**
 * Under the recipient picker: their active offers against the 30 cap, declines and expiries in 24 h against the 10
 * that block, a block's end; at a limit, what the buy would meet, said before Review (and to screen readers).
 */
export function RecipientStanding({ choice }: { choice: RecipientChoice }) {
  const read = useRecipientStanding(choice);
  const standing = read?.standing ?? null;
  return (
    <div className="recipient-standing">
      {standing ? (
        <p className="muted small">
          <span className="num">
            {standing.active} of {standing.activeCap}
          </span>{' '}
          active offers ·{' '}
          <span className="num">
            {standing.strikes} of {standing.strikeLimit}
          </span>{' '}
          declined or expired in 24 h
          {standing.blockedUntil ? (
            <>
              {' '}
              · blocked until <strong className="num">{formatDateTime(standing.blockedUntil)}</strong> (
              <Countdown iso={standing.blockedUntil} passed="ended" /> left)
            </>
          ) : null}
        </p>
      ) : null}
      {/* Always present, so what appears in it is announced (a live region, not a status: the form's status says
          why buying cannot work at all). */}
      <div aria-live="polite">
        {standing && standing.warnings.length > 0 ? (
          <div className={`notice ${standing.refusal ? 'error' : 'warn'}`}>
            <strong>
              {standing.refusal
                ? `A buy to this recipient now would be refused (${standing.refusal}).`
                : 'This recipient is near a limit.'}
            </strong>
            <ul className="standing-warnings">
              {standing.warnings.map((w) => (
                <li key={w.code}>{w.message}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {read?.error ? <div className="notice warn">The recipient’s limits could not be read: {read.error}</div> : null}
      </div>
    </div>
  );
}
