import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { TRADE_STATUSES_ACCEPTED } from '../../../shared/api';
import { MAX_FORWARD_URL_LENGTH } from '../../../shared/forwardUrl';
import type { AppSettings } from '../../../shared/ipc';
import {
  BULK_SHARE_PERCENT_MAX,
  BULK_SHARE_PERCENT_MIN,
  DEFAULT_BULK_SHARE_PERCENT,
} from '../../../shared/requestBudget';
import { RUNWAY_ALERT_MAX_HOURS } from '../../../shared/runway';

const accountSchema = z.object({
  baseUrl: z.string().min(1),
  wsUrl: z.string().min(1),
  merchantId: z.string().min(1),
});
export type AccountEndpoint = z.infer<typeof accountSchema>;

const settingsSchema = z.object({
  theme: z.enum(['dark', 'light']).default('dark'),
  notifyStatuses: z
    .array(z.enum(TRADE_STATUSES_ACCEPTED))
    .default(['SENT', 'COMPLETED', 'CANCELLED', 'FAILED', 'EXPIRED', 'REVERSED', 'REJECTED']),
  notifyAlerts: z.boolean().default(true),
  alertsPaused: z.boolean().default(false),
  demoSandbox: z.boolean().default(true),
  closeToTray: z.boolean().default(false),
  soundCategories: z.array(z.enum(['trade', 'alert', 'auto-buy', 'connection'])).default([]),
  soundMuted: z.boolean().default(false),
  autoBuyStopped: z.boolean().default(false),
  autoBuyDailyBudget: z.int().min(0).nullable().default(null),
  autoBuyBalanceFloor: z.int().min(0).default(0),
  forwardUrl: z.string().max(MAX_FORWARD_URL_LENGTH).nullable().default(null),
  forwardCategories: z
    .array(z.enum(['trade', 'alert', 'auto-buy', 'connection']))
    .default(['trade', 'alert', 'auto-buy']),
  // Checked when saved (settingsPatchSchema); read back by shape alone, so one list edited by hand loses no other setting.
  seedLists: z.array(z.object({ name: z.string(), seeds: z.string() })).default([]),
  bulkSharePercent: z
    .int()
    .min(BULK_SHARE_PERCENT_MIN)
    .max(BULK_SHARE_PERCENT_MAX)
    .default(DEFAULT_BULK_SHARE_PERCENT)
    .catch(DEFAULT_BULK_SHARE_PERCENT),
  // Off by default; a value edited out of range by hand turns it off rather than losing the other settings.
  runwayAlertHours: z.number().positive().max(RUNWAY_ALERT_MAX_HOURS).nullable().default(null).catch(null),
  webhookReplayEnabled: z.boolean().default(false),
  webhookReplayUrl: z.string().max(4096).nullable().default(null),
  startWithSession: z.boolean().default(false),
  // On unless switched off; a value edited by hand into something else reads as on, losing no other setting.
  checkForUpdates: z.boolean().default(true).catch(true),
});

const configSchema = z.object({
  version: z.literal(1).default(1),
  account: accountSchema.nullable().default(null),
  settings: settingsSchema.default(settingsSchema.parse({})),
});
export type AppConfig = z.infer<typeof configSchema>;

export const DEFAULT_SETTINGS: AppSettings = settingsSchema.parse({});

/**
 * `config.json` in the data directory: the account's endpoints and the app's
 * settings (never the API key, which lives in the keychain). Written
 * atomically (temp file + rename) so a crash never leaves half a file; an
 * unreadable file is kept aside as `config.json.broken-<time>` and defaults are used.
 */
export class AppConfigFile {
  private readonly file: string;
  private value: AppConfig;
  problem: string | null = null;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'config.json');
    this.value = this.load();
  }

  get(): AppConfig {
    return this.value;
  }

  update(change: (config: AppConfig) => AppConfig): AppConfig {
    this.value = configSchema.parse(change(structuredClone(this.value)));
    mkdirSync(dirname(this.file), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(this.value, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, this.file);
    return this.value;
  }

  private load(): AppConfig {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return configSchema.parse({});
    }
    try {
      return configSchema.parse(JSON.parse(text));
    } catch (error) {
      const aside = `${this.file}.broken-${Date.now()}`;
      try {
        renameSync(this.file, aside);
      } catch {
        // Keeping the defaults in memory is enough when the file cannot be moved.
      }
      this.problem = `Settings file was unreadable (${(error as Error).message.slice(0, 120)}); kept it as ${aside} and started with defaults.`;
      return configSchema.parse({});
    }
  }
}
