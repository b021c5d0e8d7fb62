import { z } from 'zod';
import { TRADE_STATUSES_ACCEPTED } from '../api';
import { formatNumberList, parseNumberList, SEED_MAX } from '../filters';
import { MAX_FORWARD_URL_LENGTH, parseForwardUrl } from '../forwardUrl';
import { BULK_SHARE_PERCENT_MAX, BULK_SHARE_PERCENT_MIN } from '../requestBudget';
import { RUNWAY_ALERT_MAX_HOURS } from '../runway';
import { SEED_LIST_NAME_MAX, SEED_LISTS_MAX } from '../seedLists';
import { cents } from './schemaFields';

/** A named seed list: its name, and its seeds as formatNumberList writes them. */
const seedListSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, 'Name the seed list')
    .max(SEED_LIST_NAME_MAX, `A seed list's name is at most ${SEED_LIST_NAME_MAX} characters`),
  seeds: z
    .string()
    .max(20_000, 'The seed list is too long')
    .transform((text, context) => {
      const parsed = parseNumberList(text, SEED_MAX);
      if (parsed.ok && parsed.ranges.length > 0) return formatNumberList(parsed.ranges);
      context.addIssue({ code: 'custom', message: parsed.ok ? 'The seed list holds no seed' : parsed.error });
      return z.NEVER;
    }),
});

/** Every saved list; names differ (letter case aside). */
export const seedListsSchema = z
  .array(seedListSchema)
  .max(SEED_LISTS_MAX, `At most ${SEED_LISTS_MAX} seed lists`)
  .superRefine((lists, context) => {
    const seen = new Set<string>();
    lists.forEach((list, i) => {
      const key = list.name.toLowerCase();
      if (seen.has(key))
        context.addIssue({ code: 'custom', message: `Two seed lists are named "${list.name}"`, path: [i, 'name'] });
      seen.add(key);
    });
  });

/** A chat webhook URL: http(s) only; a Telegram sendMessage URL must name its chat (see shared/forwardUrl). */
const forwardUrlSchema = z
  .string()
  .max(MAX_FORWARD_URL_LENGTH + 64)
  .transform((value, context) => {
    const parsed = parseForwardUrl(value);
    if (parsed.ok) return parsed.target.url;
    context.addIssue({ code: 'custom', message: parsed.problem });
    return z.NEVER;
  });

/** The balance runway's alert threshold: hours, more than 0, at most RUNWAY_ALERT_MAX_HOURS. */
const runwayHoursSchema = z
  .number({ error: 'the runway threshold must be a number of hours' })
  .positive({ error: 'the runway threshold must be more than 0 hours' })
  .max(RUNWAY_ALERT_MAX_HOURS, { error: `the runway threshold must be at most ${RUNWAY_ALERT_MAX_HOURS} hours` });

/** The merchant's own webhook URL a replay posts to: http(s) only (main refuses non-public addresses, see docs/operations.md). */
const replayUrlSchema = z
  .string()
  .trim()
  .max(2048, 'The webhook URL is too long')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'The webhook URL must be an http:// or https:// address');

export const settingsPatchSchema = z.strictObject({
  theme: z.enum(['dark', 'light']).optional(),
  notifyStatuses: z.array(z.enum(TRADE_STATUSES_ACCEPTED)).max(10).optional(),
  notifyAlerts: z.boolean().optional(),
  alertsPaused: z.boolean().optional(),
  demoSandbox: z.boolean().optional(),
  closeToTray: z.boolean().optional(),
  autoBuyStopped: z.boolean().optional(),
  autoBuyDailyBudget: cents.nullable().optional(),
  autoBuyBalanceFloor: cents.optional(),
  forwardUrl: forwardUrlSchema.nullable().optional(),
  forwardCategories: z
    .array(z.enum(['trade', 'alert', 'auto-buy', 'connection']))
    .max(4)
    .optional(),
  soundCategories: z
    .array(z.enum(['trade', 'alert', 'auto-buy', 'connection']))
    .max(4)
    .optional(),
  soundMuted: z.boolean().optional(),
  /** Every named seed list (a change sends the whole set). */
  seedLists: seedListsSchema.optional(),
  bulkSharePercent: z.int().min(BULK_SHARE_PERCENT_MIN).max(BULK_SHARE_PERCENT_MAX).optional(),
  runwayAlertHours: runwayHoursSchema.nullable().optional(),
  webhookReplayEnabled: z.boolean().optional(),
  webhookReplayUrl: replayUrlSchema.nullable().optional(),
  startWithSession: z.boolean().optional(),
  checkForUpdates: z.boolean().optional(),
});
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
const wsUrl = z.url({ protocol: /^wss?$/ }).max(2048);

export const accountInputSchema = z.strictObject({
  baseUrl: httpUrl,
  wsUrl,
  merchantId: z.string().trim().min(1).max(128),
  /** Absent: keep the key already stored for this merchant. */
  apiKey: z.string().min(8).max(512).optional(),
});
export type AccountInput = z.infer<typeof accountInputSchema>;
