import type { ConnectionStatus } from '../../../../shared/ipc';
import type { ApiRequestError } from '../../api';

/** The status while the feed is back but what happened meanwhile is not reconciled yet. */
export const CATCHING_UP_DETAIL = 'Feed connected; catching up on balance, active trades and the catalog…';
export const CONNECTING_DETAIL = 'Connecting to the live feed';
export const MAINTENANCE_DETAIL = 'Marketplace under maintenance; retrying automatically';
export const UNAUTHORIZED_DETAIL = 'API key or merchant id refused; check Settings';

/**
 * What the session knows about its connection. The status the UI shows, and whether to poll, are functions of it
 * (`connectionStatus`, `shouldPoll`); it changes only through `nextConnection`.
 */
export interface ConnectionModel {
  /** When the session began connecting: the status's `since` until the feed says anything. */
  readonly openedAt: string;
  /** What the feed said last; null before its first word. */
  readonly feed: ConnectionStatus | null;
  /** The feed is connected, but what happened while it was away is not reconciled yet: not "Live" until it is. */
  readonly catchingUp: boolean;
  /** Bumped at each feed (re)connect: a reconcile begun before the latest one does not end the catch-up. */
  readonly generation: number;
  /** A REST failure with no state of its own (an answer too late, or not understood): the detail until REST answers. */
  readonly restProblem: string | null;
  /** REST answered 503 maintenance (since then), until REST answers again or the feed says something new. */
  readonly maintenanceSince: string | null;
  /** REST answered 401 (since then): the key is refused, so polling stops until REST answers again. */
  readonly unauthorizedSince: string | null;
}

export type RestFailure = 'timeout' | 'invalid-response' | 'maintenance' | 'unauthorized' | 'other';

export type ConnectionInput =
  | { kind: 'feed'; status: ConnectionStatus }
  /** A reconcile begun at `generation` went through without a failure. */
  | { kind: 'rest-ok'; generation: number }
  | { kind: 'rest-failure'; failure: RestFailure; detail: string; at: string };

export function initialConnection(openedAt: string): ConnectionModel {
  return {
    openedAt,
    feed: null,
    catchingUp: false,
    generation: 0,
    restProblem: null,
    maintenanceSince: null,
    unauthorizedSince: null,
  };
}

export function nextConnection(model: ConnectionModel, input: ConnectionInput): ConnectionModel {
  switch (input.kind) {
    case 'feed': {
      const connected = input.status.state === 'connected';
      const reconnected = connected && model.feed?.state !== 'connected';
      return {
        ...model,
        feed: input.status,
        catchingUp: reconnected || (connected && model.catchingUp),
        generation: reconnected ? model.generation + 1 : model.generation,
        maintenanceSince: null,
      };
    }
    case 'rest-ok':
      return {
        ...model,
        catchingUp: model.catchingUp && input.generation !== model.generation,
        restProblem: null,
        maintenanceSince: null,
        unauthorizedSince: null,
      };
    case 'rest-failure':
      switch (input.failure) {
        case 'timeout':
        case 'invalid-response':
          return { ...model, restProblem: input.detail };
        case 'maintenance':
          // A feed closed for maintenance already says so, with its own next attempt: keep its word.
          if (model.feed?.state === 'maintenance') return model;
          return { ...model, maintenanceSince: model.maintenanceSince ?? input.at };
        case 'unauthorized':
          return { ...model, unauthorizedSince: model.unauthorizedSince ?? input.at };
        case 'other':
          return model;
      }
  }
}

export function connectionStatus(model: ConnectionModel): ConnectionStatus {
  const feed = model.feed;
  const nextAttemptAt = feed?.nextAttemptAt ?? null;
  if (model.unauthorizedSince !== null) {
    return { state: 'unauthorized', detail: UNAUTHORIZED_DETAIL, nextAttemptAt, since: model.unauthorizedSince };
  }
  if (model.maintenanceSince !== null) {
    return { state: 'maintenance', detail: MAINTENANCE_DETAIL, nextAttemptAt, since: model.maintenanceSince };
  }
  if (!feed) {
    return {
      state: 'connecting',
      detail: model.restProblem ?? CONNECTING_DETAIL,
      nextAttemptAt: null,
      since: model.openedAt,
    };
  }
  if (feed.state === 'connected' && model.catchingUp) {
    return {
      state: 'connecting',
      detail: model.restProblem ?? CATCHING_UP_DETAIL,
      nextAttemptAt: null,
      since: feed.since,
    };
  }
  return { state: feed.state, detail: model.restProblem ?? feed.detail, nextAttemptAt, since: feed.since };
}

/**
 * Trades are polled while no feed is possible, whatever the reason the feed gives (a proxy's 403, the connection
 * limit, even its own 401); only REST refusing the key stops it.
 */
export function shouldPoll(model: ConnectionModel): boolean {
  const state = model.feed?.state;
  return state !== undefined && state !== 'connected' && state !== 'connecting' && model.unauthorizedSince === null;
}

/** Why an account open without its key is offline, and what to do about it. */
export function noKeyDetail(merchantId: string): string {
  return `Read-only: no API key for ${merchantId} on this machine. Enter your API key in Settings → Connection to go live.`;
}

/** What a REST failure means for the connection, in one line for the status bar. */
export function restFailureOf(error: ApiRequestError): { failure: RestFailure; detail: string } {
  if (error.code === 'unauthorized') return { failure: 'unauthorized', detail: error.message };
  if (error.code === 'maintenance') return { failure: 'maintenance', detail: error.message };
  if (error.kind === 'timeout') {
    return {
      failure: 'timeout',
      detail: `The marketplace is not answering in time (${error.endpoint} timed out); retrying automatically`,
    };
  }
  if (error.code === 'invalid_response') {
    return {
      failure: 'invalid-response',
      detail: `The marketplace answered something unexpected (${error.endpoint}: not understood); retrying automatically`,
    };
  }
  return { failure: 'other', detail: error.message };
}

/**
 * Why a catalog refresh the user asked for cannot leave now (the marketplace cannot answer one), or null. The catalog
 * refreshes by itself once the connection is back.
 */
export function catalogRefreshRefusal(state: ConnectionStatus['state']): string | null {
  switch (state) {
    case 'offline':
      return 'The marketplace cannot be reached; the catalog refreshes by itself when the connection is back.';
    case 'maintenance':
      return 'The marketplace is under maintenance; the catalog refreshes by itself when it ends.';
    case 'unauthorized':
      return 'The marketplace refused the API key or merchant ID: check them in Settings.';
    default:
      return null;
  }
}
