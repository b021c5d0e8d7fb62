import type { AppSettings } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import { boardCsv, emptyBoard, readFailuresBoard, readRefusals } from '../operations/failures';
import { exportReversers, readExposure } from '../operations/exposure';
import { lookupOrders } from '../operations/lookup';
import type { NextBuyService } from '../operations/nextBuy';
import { readRecipient, readRecipients } from '../operations/recipients';
import type { RunwayService } from '../operations/runwayService';
import { readWebhookHealth } from '../operations/webhookHealth';
import { replayLog, WebhookReplayer } from '../operations/webhookReplay';
import type { Accounts } from './accounts';
import type { IpcHandlers } from './ipcHandlers';

export type OperationsMethod = Extract<keyof IpcHandlers, `operations.${string}`>;

export interface OperationsDeps {
  accounts: Accounts;
  settings: () => AppSettings;
  runway: RunwayService;
  nextBuy: NextBuyService;
  /** Replays may post to non-public addresses (EngineOptions.forwardToPrivateAddresses). */
  allowPrivateAddresses: boolean;
  /** Aborted at close: a replay under way stops. */
  signal: AbortSignal;
}

/** The Operations screen's methods: webhook health and replays, failures, recipients, reversals, runway, orders. */
export function operationsHandlers(deps: OperationsDeps): Pick<IpcHandlers, OperationsMethod> {
  const { accounts, settings, runway, nextBuy, allowPrivateAddresses, signal } = deps;
  const replayer = new WebhookReplayer();
  return {
    'operations.runway': () => runway.current(),
    'operations.orderChain': (from) => nextBuy.chain(from),
    'operations.buyNext': (input) => nextBuy.buyNext(input),
    'operations.lookup': ({ query }) => lookupOrders(accounts.requireSession().store, query),
    'operations.webhookHealth': async () => {
      const session = accounts.session;
      // No frame tells of a failed delivery: the view also asks the server (throttled, in the background, when live).
      if (session?.connection.state === 'connected') void session.refreshWebhookFailed();
      const { webhookReplayEnabled, webhookReplayUrl } = settings();
      const replay = {
        enabled: webhookReplayEnabled === true,
        url: webhookReplayUrl ?? null,
        log: session ? await replayLog(session.store) : [],
      };
      if (!session) {
        const none = { failed: [], byStatus: [], byHour: [], byDay: [], history: { from: null, to: null } };
        return {
          ...none,
          failedTotal: 0,
          lastDeliveredCreatedAt: null,
          paused: null,
          replay,
          computedAt: toUtcIso(Date.now()),
        };
      }
      return readWebhookHealth(session.store, Date.now(), replay);
    },
    'operations.failures': async (input) =>
      accounts.session ? readFailuresBoard(accounts.session.store, input, Date.now()) : emptyBoard(input, Date.now()),
    'operations.failuresCsv': async (input) =>
      boardCsv(await readFailuresBoard(accounts.requireSession().store, input, Date.now())),
    'operations.refusals': async (input) => (accounts.session ? readRefusals(accounts.session.store, input) : []),
    'operations.recipients': async (input) => {
      const session = accounts.session;
      if (!session) return { rows: [], total: 0, offset: input.offset, computedAt: toUtcIso(Date.now()) };
      return readRecipients(session.store, input, Date.now());
    },
    'operations.reversals': async (input) => {
      const session = accounts.session;
      if (!session)
        return {
          exposure: { count: 0, value: 0 },
          undated: { count: 0, value: 0 },
          schedule: [],
          reversedTotal: 0,
          reversedOffset: input.offset,
          reversed: [],
          reversers: [],
          reversersTotal: 0,
          computedAt: toUtcIso(Date.now()),
        };
      return readExposure(session.store, Date.now(), { reversedOffset: input.offset });
    },
    'operations.reversersCsv': () => exportReversers(accounts.requireSession().store, Date.now()),
    'operations.recipient': (input) => readRecipient(accounts.requireSession().store, input.partner, Date.now()),
    'operations.replayWebhooks': (input) => {
      const session = accounts.requireSession();
      const { webhookReplayEnabled, webhookReplayUrl } = settings();
      return replayer.replay(
        {
          store: session.store,
          apiKey: session.credentials.apiKey,
          enabled: webhookReplayEnabled === true,
          url: webhookReplayUrl ?? null,
          allowPrivateAddresses: allowPrivateAddresses,
          now: Date.now,
          signal: signal,
        },
        input,
      );
    },
  };
}
