import { describe, expect, it } from 'vitest';
import type { ConnectionState, ConnectionStatus } from '../../src/shared/ipc';
import {
  CATCHING_UP_DETAIL,
  CONNECTING_DETAIL,
  type ConnectionInput,
  type ConnectionModel,
  connectionStatus,
  initialConnection,
  MAINTENANCE_DETAIL,
  nextConnection,
  shouldPoll,
  UNAUTHORIZED_DETAIL,
} from '../../src/main/core/engine/session/connectionState';

const OPENED = '2026-11-29T10:00:00.000Z';
const T1 = '2026-11-29T10:00:01.000Z';
const T2 = '2026-11-29T10:00:02.000Z';
const RETRY = '2026-11-29T10:00:30.000Z';

const feed = (
  state: ConnectionState,
  detail = `feed ${state}`,
  nextAttemptAt: string | null = null,
): ConnectionInput => ({
  kind: 'feed',
  status: { state, detail, nextAttemptAt, since: T1 },
});
const restOk = (generation: number): ConnectionInput => ({ kind: 'rest-ok', generation });
const timeout: ConnectionInput = { kind: 'rest-failure', failure: 'timeout', detail: 'not answering in time', at: T2 };
const garbled: ConnectionInput = {
  kind: 'rest-failure',
  failure: 'invalid-response',
  detail: 'answered something unexpected',
  at: T2,
};
const maintenance: ConnectionInput = { kind: 'rest-failure', failure: 'maintenance', detail: 'maintenance', at: T2 };
const refused: ConnectionInput = { kind: 'rest-failure', failure: 'unauthorized', detail: '401', at: T2 };
const other: ConnectionInput = { kind: 'rest-failure', failure: 'other', detail: 'a 500', at: T2 };

function run(...inputs: ConnectionInput[]): ConnectionModel {
  return inputs.reduce(nextConnection, initialConnection(OPENED));
}

type Row = [what: string, inputs: ConnectionInput[], shown: Partial<ConnectionStatus>, polls: boolean];

// Read each row as: after these events, the UI shows this, and trades are (or are not) polled.
const table: Row[] = [
  ['nothing heard yet', [], { state: 'connecting', detail: CONNECTING_DETAIL, since: OPENED }, false],
  ['the feed is connecting', [feed('connecting')], { state: 'connecting', detail: 'feed connecting' }, false],
  [
    'the feed connected: catching up, not Live',
    [feed('connecting'), feed('connected')],
    { state: 'connecting', detail: CATCHING_UP_DETAIL },
    false,
  ],
  [
    'caught up by a reconcile begun after the connect',
    [feed('connected'), restOk(1)],
    { state: 'connected', detail: 'feed connected' },
    false,
  ],
  [
    'a reconcile begun before the connect does not end the catch-up',
    [feed('connected'), restOk(0)],
    { state: 'connecting', detail: CATCHING_UP_DETAIL },
    false,
  ],
  [
    'a reconnect starts a new catch-up',
    [feed('connected'), restOk(1), feed('reconnecting'), feed('connected')],
    { state: 'connecting', detail: CATCHING_UP_DETAIL },
    false,
  ],
  [
    'a reconcile of the old connection does not end the new catch-up',
    [feed('connected'), feed('offline'), feed('connected'), restOk(1)],
    { state: 'connecting' },
    false,
  ],
  [
    'the feed lost: its state, and polling',
    [feed('connected'), restOk(1), feed('reconnecting', 'retrying', RETRY)],
    { state: 'reconnecting', detail: 'retrying', nextAttemptAt: RETRY },
    true,
  ],
  [
    'the feed refused: still polled',
    [feed('unauthorized')],
    { state: 'unauthorized', detail: 'feed unauthorized' },
    true,
  ],
  ['the feed in maintenance: polled', [feed('maintenance')], { state: 'maintenance' }, true],
  [
    'a REST time-out is the detail until REST answers',
    [feed('connected'), restOk(1), timeout],
    { state: 'connected', detail: 'not answering in time' },
    false,
  ],
  [
    'a REST answer not understood, the same',
    [feed('connected'), restOk(1), garbled],
    { state: 'connected', detail: 'answered something unexpected' },
    false,
  ],
  [
    'the problem also shows while catching up',
    [feed('connected'), timeout],
    { state: 'connecting', detail: 'not answering in time' },
    false,
  ],
  [
    'REST answering clears the problem',
    [feed('connected'), restOk(1), timeout, restOk(1)],
    { state: 'connected', detail: 'feed connected' },
    false,
  ],
  [
    'REST maintenance',
    [feed('connected'), restOk(1), maintenance],
    { state: 'maintenance', detail: MAINTENANCE_DETAIL, since: T2 },
    false,
  ],
  [
    'maintenance ends when REST answers',
    [feed('connected'), restOk(1), maintenance, restOk(1)],
    { state: 'connected' },
    false,
  ],
  [
    "maintenance gives way to the feed's next word",
    [feed('connected'), restOk(1), maintenance, feed('reconnecting')],
    { state: 'reconnecting' },
    true,
  ],
  [
    // The feed closed for maintenance has its own detail and next attempt; polling's 503s do not replace them.
    "the feed's maintenance keeps its word while polls answer 503",
    [feed('connected'), restOk(1), feed('maintenance', 'Server under maintenance', RETRY), maintenance, maintenance],
    { state: 'maintenance', detail: 'Server under maintenance', nextAttemptAt: RETRY, since: T1 },
    true,
  ],
  [
    'REST refuses the key: unauthorized, no polling',
    [feed('offline'), refused],
    { state: 'unauthorized', detail: UNAUTHORIZED_DETAIL, since: T2 },
    false,
  ],
  [
    "the feed's words do not hide a refused key",
    [feed('offline'), refused, feed('reconnecting')],
    { state: 'unauthorized' },
    false,
  ],
  ['REST answering again ends it', [feed('offline'), refused, restOk(0)], { state: 'offline' }, true],
  [
    'a failure with no state of its own changes nothing',
    [feed('connected'), restOk(1), other],
    { state: 'connected', detail: 'feed connected' },
    false,
  ],
];

describe('the connection state: what the UI shows after what happened', () => {
  it.each(table)('%s', (_what, inputs, shown, polls) => {
    const model = run(...inputs);
    expect(connectionStatus(model)).toMatchObject(shown);
    expect(shouldPoll(model)).toBe(polls);
  });

  it('counts a (re)connect only when the feed was not connected before', () => {
    expect(run(feed('connected'), feed('connected')).generation).toBe(1);
    expect(run(feed('connected'), feed('reconnecting'), feed('connected')).generation).toBe(2);
  });

  it('keeps the first time of a maintenance or a refusal as its `since`', () => {
    const later = { ...maintenance, at: '2026-11-29T10:05:00.000Z' } as ConnectionInput;
    expect(connectionStatus(run(maintenance, later)).since).toBe(T2);
    const refusedLater = { ...refused, at: '2026-11-29T10:05:00.000Z' } as ConnectionInput;
    expect(connectionStatus(run(refused, refusedLater)).since).toBe(T2);
  });
});
