import { z } from 'zod';
import { utcTimestampSchema } from '../time';
import { MAX_FAILURE_DAYS, MAX_REPLAY_TRADES } from './operations';
import { partnerIdSchema } from './tradeSchemas';

/** Operations → Recipients: sort, filter (a label or partner number; who needs attention) and page. */
export const recipientsQuerySchema = z.strictObject({
  sort: z
    .enum(['partner', 'trades', 'active', 'strikes', 'delivered', 'cancelled', 'reversed', 'value', 'lastAt'], {
      error: 'sort must be one of partner, trades, active, strikes, delivered, cancelled, reversed, value, lastAt',
    })
    .default('active'),
  descending: z.boolean().default(true),
  search: z.string().trim().max(100, 'The recipient filter is at most 100 characters').default(''),
  only: z.enum(['all', 'active', 'attention'], { error: 'only must be all, active or attention' }).default('all'),
  offset: z.number().int().min(0).max(1_000_000).default(0),
  limit: z.number().int().min(1).max(200).default(100),
});
export type RecipientsQuery = z.infer<typeof recipientsQuerySchema>;

/** Operations → Reversals: where its page of reversed trades starts. */
export const reversalsQuerySchema = z
  .strictObject({ offset: z.number().int().min(0).max(1_000_000).default(0) })
  .default({ offset: 0 });

export const recipientPartnerSchema = z.strictObject({ partner: partnerIdSchema });

const replayOptions = {
  /** Send again what an earlier replay sent (asked of the user each time). */
  again: z.boolean().default(false),
  /** Only count what would be sent. */
  dryRun: z.boolean().default(false),
};
/** A replay of failed deliveries: those whose status time lies in [from, to], or the trades chosen. */
export const webhookReplayInputSchema = z.union([
  z.strictObject({ from: utcTimestampSchema, to: utcTimestampSchema, ...replayOptions }),
  z.strictObject({
    tradeIds: z
      .array(z.string().min(1).max(128))
      .min(1, 'Choose at least one trade')
      .max(MAX_REPLAY_TRADES, `At most ${MAX_REPLAY_TRADES} trades a replay`),
    ...replayOptions,
  }),
]);
export type WebhookReplayInput = z.input<typeof webhookReplayInputSchema>;

/** The buy refusals the failures board counts (the spec's buy errors, and the rate limit and maintenance waits). */
export const REFUSAL_CODES = [
  'item_unavailable',
  'price_changed',
  'price_too_high',
  'too_many_active_trades',
  'insufficient_balance',
  'partner_blocked',
  'rate_limited',
  'maintenance',
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

const utcDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'A day is written YYYY-MM-DD (UTC)')
  .refine((day) => {
    const ms = Date.parse(`${day}T00:00:00.000Z`);
    return Number.isFinite(ms) && new Date(ms).toISOString().startsWith(day);
  }, 'Not a calendar day');

/** A range of UTC days, both ends included: not reversed, at most MAX_FAILURE_DAYS. */
function dayRangeProblem(from: string | undefined, to: string | undefined): string | null {
  if (from === undefined || to === undefined) return null;
  // A malformed day has its own message.
  if (!Number.isFinite(Date.parse(from)) || !Number.isFinite(Date.parse(to))) return null;
  if (from > to) return `The range is reversed: it starts ${from}, after its end ${to}`;
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  if (days > MAX_FAILURE_DAYS) return `A range is at most ${MAX_FAILURE_DAYS} days (${from} to ${to} is ${days})`;
  return null;
}
const checkDayRange = (range: { from?: string | undefined; to?: string | undefined }, ctx: z.RefinementCtx) => {
  const problem = dayRangeProblem(range.from, range.to);
  if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['from'] });
};

/** The failures board's days (UTC, inclusive); left out: the last 30 days to today. */
export const failuresInputSchema = z
  .strictObject({ from: utcDay.optional(), to: utcDay.optional() })
  .default({})
  .superRefine(checkDayRange);
export type FailuresInput = z.input<typeof failuresInputSchema>;

/** The refusals behind one cell of the board: a code over days, or one hour of a day. */
export const refusalsInputSchema = z
  .strictObject({
    from: utcDay,
    to: utcDay,
    hour: z.int().min(0).max(23).nullable().default(null),
    code: z.enum(REFUSAL_CODES).nullable().default(null),
  })
  .superRefine(checkDayRange);
export type RefusalsInput = z.input<typeof refusalsInputSchema>;
