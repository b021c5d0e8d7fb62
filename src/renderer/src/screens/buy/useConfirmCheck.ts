import { type RefObject, useEffect, useEffectEvent, useRef } from 'react';
import { errorMessage } from '../../lib/ipc';

export type CheckOutcome<R> = { ok: true; result: R } | { ok: false; error: string };

/**
 * Runs a confirm step's pre-check once per input shown. An answer that arrives after the
 * dialog moved on (another input, closed) is dropped, so a slow check never overwrites a newer step.
 */
export function useConfirmCheck<I extends object, R>(
  input: I | null,
  check: (input: I) => Promise<R>,
  settle: (input: I, outcome: CheckOutcome<R>) => void,
): void {
  const runCheck = useEffectEvent(check);
  const onSettle = useEffectEvent(settle);
  useEffect(() => {
    if (!input) return;
    let cancelled = false;
    runCheck(input).then(
      (result) => !cancelled && onSettle(input, { ok: true, result }),
      (e: unknown) => !cancelled && onSettle(input, { ok: false, error: errorMessage(e) }),
    );
    return () => {
      cancelled = true;
    };
  }, [input]);
}

/** A ref whose element takes focus each time `ready` turns true (the confirm button once checks finish). */
export function useFocusWhenReady<E extends HTMLElement>(ready: boolean): RefObject<E | null> {
  const ref = useRef<E>(null);
  useEffect(() => {
    if (ready) ref.current?.focus();
  }, [ready]);
  return ref;
}
