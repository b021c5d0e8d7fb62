import { redactTradeUrl } from '../../../shared/api';
import { forwardHost, parseForwardUrl, type ForwardTarget } from '../../../shared/forwardUrl';
import type { ForwardStatus, Notification } from '../../../shared/ipc';
import { toUtcIso } from '../../../shared/time';
import { backoffBase } from '../feed/backoff';
import { NotPublicAddressError, postJson, type PostResult } from './webhookPost';

/**
 * "To the phone": the notifications of the categories the merchant chose, posted to a chat webhook
 * (Discord-compatible JSON, or a Telegram bot's sendMessage). At most one POST per `minIntervalMs`; whatever
 * arrives meanwhile goes in the next message, so a burst of 30 trades is one message. A failed POST is tried
 * again with a doubling backoff (a 429's retry-after respected) and the failure reported once per run of
 * failures; a refusal (4xx) drops that message, since sending it again cannot help, and so does a webhook
 * on a non-public address (see webhookPost.ts). Texts never carry an API key or a trade URL token, Discord's
 * Markdown in them is escaped, and failures name the webhook's host only (its URL holds a token) and say
 * nothing of what listens there beyond an HTTP status: one text for every other failure.
 */

export interface ForwardSettings {
  url: string | null;
  categories: readonly string[];
}

export type PostJson = (url: string, body: unknown, signal: AbortSignal) => Promise<PostResult>;

export interface ForwarderOptions {
  settings: () => ForwardSettings;
  categoryOf: (notification: Notification) => string;
  /** A failure (or recovery) the merchant should see in the notification centre. Never forwarded itself. */
  report: (notification: Notification) => void;
  onStatus?: (status: ForwardStatus) => void;
  /** Removes secrets the engine knows of (API keys) from the text. */
  scrub?: (text: string) => string;
  post?: PostJson;
  /** Tests only (their receiver listens on loopback): webhooks on non-public addresses too. No setting reaches it. */
  allowPrivateAddresses?: boolean;
  minIntervalMs?: number;
  /** A burst is gathered this long before its first message goes. */
  gatherMs?: number;
  maxBackoffMs?: number;
  timeoutMs?: number;
  maxPending?: number;
  now?: () => number;
}

/** Reports of the forwarder itself carry this id prefix: they are never forwarded (no loop through a failing webhook). */
export const FORWARD_REPORT_PREFIX = 'forward:';

const DISCORD_LIMIT = 2000;
const TELEGRAM_LIMIT = 4096;

export class NotificationForwarder {
  private readonly pending: Notification[] = [];
  private dropped = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private inFlight: Promise<void> | null = null;
  private lastPostAt = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private nextAttemptAt: number | null = null;
  private lastSentAt: string | null = null;
  private problem: string | null = null;
  private stopped = false;
  private readonly abort = new AbortController();
  private readonly minIntervalMs: number;
  private readonly gatherMs: number;
  private readonly maxBackoffMs: number;
  private readonly timeoutMs: number;
  private readonly maxPending: number;
  private readonly now: () => number;
  private readonly post: PostJson;

  constructor(private readonly options: ForwarderOptions) {
    this.minIntervalMs = options.minIntervalMs ?? 5_000;
    this.gatherMs = options.gatherMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 300_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxPending = options.maxPending ?? 200;
    this.now = options.now ?? Date.now;
    const allowPrivateAddresses = options.allowPrivateAddresses === true;
    this.post = options.post ?? ((url, body, signal) => postJson(url, body, signal, { allowPrivateAddresses }));
  }

  /** Notifications as the engine raises them: the chosen categories are queued for the next message. */
  offer(notifications: readonly Notification[]): void {
    if (this.stopped) return;
    const { url, categories } = this.options.settings();
    if (url === null) return;
    for (const notification of notifications) {
      if (notification.id.startsWith(FORWARD_REPORT_PREFIX)) continue;
      if (!categories.includes(this.options.categoryOf(notification))) continue;
      this.pending.push(notification);
    }
    while (this.pending.length > this.maxPending) {
      this.pending.shift();
      this.dropped++;
    }
    this.schedule(this.gatherMs);
  }

  /** The settings changed: a new URL starts afresh (no backoff earned by the old one); none drops the queue. */
  settingsChanged(): void {
    const { url } = this.options.settings();
    this.failures = 0;
    this.problem = null;
    this.nextAttemptAt = null;
    if (url === null) {
      this.pending.length = 0;
      this.dropped = 0;
      this.clearTimer();
    } else if (this.pending.length > 0) {
      this.clearTimer();
      this.schedule(0);
    }
    this.publish();
  }

  status(): ForwardStatus {
    const { url } = this.options.settings();
    return {
      host: url === null ? null : forwardHost(url),
      pending: this.pending.length + this.dropped,
      lastSentAt: this.lastSentAt,
      problem: this.problem,
      nextAttemptAt: this.nextAttemptAt === null ? null : toUtcIso(this.nextAttemptAt),
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.clearTimer();
    this.abort.abort();
    await this.inFlight?.catch(() => {});
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.timer || this.inFlight || this.pending.length + this.dropped === 0) return;
    const at = Math.max(this.now() + delayMs, this.lastPostAt + this.minIntervalMs, this.nextAttemptAt ?? 0);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.inFlight = this.flush().finally(() => {
          this.inFlight = null;
          this.schedule(0);
        });
      },
      Math.max(0, at - this.now()),
    );
    this.publish();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async flush(): Promise<void> {
    const settings = this.options.settings();
    const parsed = settings.url === null ? null : parseForwardUrl(settings.url);
    if (!parsed?.ok) {
      // A URL edited into config.json by hand: say why nothing is forwarded (once), and keep nothing.
      const count = this.pending.length + this.dropped;
      this.pending.length = 0;
      this.dropped = 0;
      if (parsed && !parsed.ok) {
        const problem = `The webhook URL in the settings is not usable: ${parsed.problem}; ${count} notification${count === 1 ? '' : 's'} not forwarded`;
        if (this.problem === null) this.report('failed', 'Forwarding failed', problem);
        this.problem = problem;
        this.publish();
      }
      return;
    }
    const batch = this.pending.splice(0, this.pending.length);
    const dropped = this.dropped;
    this.dropped = 0;
    const body = forwardBody(parsed.target, batch, dropped, (text) => this.clean(text));
    const host = forwardHost(parsed.target.url);
    this.lastPostAt = this.now();
    let outcome: { ok: true } | { ok: false; retry: boolean; problem: string; retryAfterMs: number | null };
    try {
      const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.timeoutMs)]);
      const answer = await this.post(parsed.target.url, body, signal);
      if (answer.status >= 200 && answer.status < 300) outcome = { ok: true };
      else {
        const retry = answer.status === 408 || answer.status === 429 || answer.status >= 500;
        outcome = {
          ok: false,
          retry,
          problem: `${host} answered HTTP ${answer.status}`,
          retryAfterMs: answer.retryAfterMs,
        };
      }
    } catch (error) {
      if (this.stopped) return;
      // Refused, reset, silent, not HTTP, unknown name: one text, so the report cannot tell what listens there.
      outcome =
        error instanceof NotPublicAddressError
          ? {
              ok: false,
              retry: false,
              problem: `${host} is not a public address: forwarding goes to public chat services only`,
              retryAfterMs: null,
            }
          : { ok: false, retry: true, problem: `${host} could not be reached`, retryAfterMs: null };
    }
    if (outcome.ok) {
      this.lastSentAt = toUtcIso(this.now());
      this.nextAttemptAt = null;
      if (this.failures > 0) {
        this.report(
          'recovered',
          `Forwarding to ${host} works again`,
          `${batch.length} notification${batch.length === 1 ? '' : 's'} delivered after the failure`,
        );
      }
      this.failures = 0;
      this.problem = null;
      this.publish();
      return;
    }
    this.failures++;
    if (outcome.retry) {
      // Back in front, before anything that arrived meanwhile; the oldest go first when the queue overflows.
      this.pending.unshift(...batch);
      this.dropped += dropped;
      while (this.pending.length > this.maxPending) {
        this.pending.shift();
        this.dropped++;
      }
      const backoff = backoffBase(this.failures, { initialMs: this.minIntervalMs, maxMs: this.maxBackoffMs });
      // A chat API's retry-after is honoured up to an hour.
      const wait = Math.max(backoff, Math.min(outcome.retryAfterMs ?? 0, 3_600_000));
      this.nextAttemptAt = this.now() + wait;
      this.problem = `${outcome.problem}; trying again in ${duration(wait)}`;
    } else {
      this.nextAttemptAt = null;
      this.problem = `${outcome.problem}; ${batch.length} notification${batch.length === 1 ? '' : 's'} not forwarded (check the webhook URL in Settings)`;
    }
    // Once per run of failures, and for every message dropped: the centre is not flooded by a receiver that stays down.
    if (this.failures === 1 || !outcome.retry) this.report('failed', `Forwarding to ${host} failed`, this.problem);
    this.publish();
  }

  private clean(text: string): string {
    return redactTradeUrl(this.options.scrub ? this.options.scrub(text) : text);
  }

  private report(kind: 'failed' | 'recovered', title: string, body: string): void {
    const at = toUtcIso(this.now());
    const severity = kind === 'failed' ? 'danger' : 'success';
    this.options.report({
      id: `${FORWARD_REPORT_PREFIX}${kind}:${at}`,
      kind: 'system',
      category: 'connection',
      severity,
      title,
      body,
      target: null,
      at,
    });
  }

  private publish(): void {
    this.options.onStatus?.(this.status());
  }
}

/** The JSON body for the webhook: one message for the whole batch, cut to the chat's length limit. */
export function forwardBody(
  target: ForwardTarget,
  batch: readonly Notification[],
  dropped: number,
  clean: (text: string) => string,
): unknown {
  if (target.format === 'telegram') {
    // Plain text (no parse_mode): nothing in it is markup.
    return {
      chat_id: target.chatId,
      text: forwardText(batch, dropped, TELEGRAM_LIMIT, clean),
      disable_web_page_preview: true,
    };
  }
  const text = forwardText(batch, dropped, DISCORD_LIMIT, (line) => escapeDiscordMarkdown(clean(line)));
  // No @everyone or role pings from an item's name (escaped too, so it does not even read as one).
  return { username: 'Merchant Desk', content: text, allowed_mentions: { parse: [] } };
}

/** Text Discord shows as written: no link, mention, emphasis, spoiler, code, quote or heading made of it. */
export function escapeDiscordMarkdown(text: string): string {
  return text.replace(/[\\*_~`|[\]()<>@]/g, '\\$&').replace(/^(\s*)([-#])/, '$1\\$2');
}

export function forwardText(
  batch: readonly Notification[],
  dropped: number,
  limit: number,
  clean: (text: string) => string,
): string {
  const lines = batch.map((notification) =>
    clean(`${notification.title} — ${notification.body}`).replace(/\s+/g, ' ').trim(),
  );
  const total = lines.length + dropped;
  if (total === 1 && lines[0] !== undefined) return cut(lines[0], limit);
  const head = `Merchant Desk: ${total} notifications`;
  let text = head;
  let shown = 0;
  for (const line of lines) {
    const rest = total - shown - 1;
    const tail = rest > 0 ? `\n…and ${rest} more` : '';
    if (text.length + 3 + line.length + tail.length > limit) break;
    text += `\n• ${line}`;
    shown++;
  }
  if (shown < total) text += `\n…and ${total - shown} more`;
  return cut(text, limit);
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`;
}
