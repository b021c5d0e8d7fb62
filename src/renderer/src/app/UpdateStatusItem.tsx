import { useEffect, useRef } from 'react';
import type { UpdateStatus } from '../../../shared/ipc/updates';
import { dismissUpdateQuestion, installUpdate } from '../state/actions/updates';
import { toast } from '../state/actions/toast';
import { useStore } from '../state/store';

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

function NotesButton({ version, notes }: { version: string; notes: string | null }) {
  if (!notes) return null;
  return (
    <button type="button" className="sb-btn" onClick={() => toast('info', `What’s new in ${version}`, notes)}>
      What’s new
    </button>
  );
}

/** "Restart and install" asked first: auto-buy is armed. */
function Question({ text }: { text: string }) {
  const cancel = useRef<HTMLButtonElement>(null);
  // The button that asked is gone: focus stays in the status bar, on the safe answer.
  useEffect(() => cancel.current?.focus(), []);
  return (
    <span className="sb-item update-status" role="group" aria-label="Install the update?">
      <span className="sb-detail update-text" title={text}>
        {text}
      </span>
      <button type="button" className="sb-btn attention" onClick={() => void installUpdate(true)}>
        Install now
      </button>
      <button type="button" className="sb-btn" ref={cancel} onClick={dismissUpdateQuestion}>
        Cancel
      </button>
    </span>
  );
}

/**
 * The desktop app's update in the status bar: checking, the download's progress, "Restart and install" when it is
 * ready, why a .deb or a launcher-run AppImage does not update itself, a failed check. Nothing in the web host.
 */
export function UpdateStatusItem() {
  const status = useStore((s) => s.conn.update);
  const question = useStore((s) => s.conn.updateQuestion);
  return <UpdateStatusView status={status} question={question} />;
}

export function UpdateStatusView({ status, question }: { status: UpdateStatus | null; question: string | null }) {
  if (!status || status.state === 'idle') return null;
  if (question && status.state === 'ready') return <Question text={question} />;
  switch (status.state) {
    case 'checking':
      return <span className="sb-item update-status muted">Checking for updates…</span>;
    case 'available':
      return (
        <span className="sb-item update-status" title={status.notes ?? undefined}>
          Update {status.version} found, downloading…
        </span>
      );
    case 'downloading':
      return (
        <span className="sb-item progress update-status">
          <span className="progress-label">Update {status.version}</span>
          <span
            className="progress-bar"
            role="progressbar"
            aria-label={`Downloading update ${status.version}`}
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={status.percent}
            aria-valuetext={`${status.percent}%, ${megabytes(status.transferred)} of ${megabytes(status.total)}`}
          >
            <span style={{ width: `${status.percent}%` }} />
          </span>
          <span className="num muted">
            {status.percent}% · {megabytes(status.transferred)} of {megabytes(status.total)}
          </span>
        </span>
      );
    case 'ready':
      return (
        <span className="sb-item update-status">
          <span className="progress-label">Update {status.version} is ready</span>
          <button type="button" className="sb-btn attention" onClick={() => void installUpdate(false)}>
            Restart and install
          </button>
          <NotesButton version={status.version} notes={status.notes} />
        </span>
      );
    case 'manual': {
      const text = `A new version ${status.version} is available — ${status.reason}`;
      return (
        <span className="sb-item update-status">
          <span className="sb-detail update-text" title={text}>
            {text}
          </span>
          <NotesButton version={status.version} notes={status.notes} />
        </span>
      );
    }
    case 'error':
      return (
        <span className="sb-item update-status" title={status.message}>
          <span className="warn-text">Update check failed</span>
          <span className="sb-detail update-text">{status.message}</span>
        </span>
      );
  }
}
