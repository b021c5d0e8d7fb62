import { z } from 'zod';
import { MAX_NAME_LENGTH } from '../api';
import { catalogFiltersSchema, type CatalogFiltersInput } from './catalogSchemas';
import { cents, id } from './schemaFields';

/** The conditions a rule held before it held the catalog's filters (older rules and callers): folded into `filters`. */
export interface LegacyRuleFields {
  namePattern?: string | undefined;
  phase?: string | null | undefined;
  floatMin?: number | null | undefined;
  floatMax?: number | null | undefined;
  stickerNames?: readonly string[] | undefined;
}

/** A rule's filters with an older rule's conditions folded in: its name pattern as the search words, its sticker names as the wanted stickers. */
export function ruleFiltersInput(
  rule: LegacyRuleFields & { filters?: CatalogFiltersInput | undefined },
): CatalogFiltersInput {
  const filters: CatalogFiltersInput = { ...rule.filters };
  if (rule.namePattern !== undefined && rule.namePattern.trim() !== '') filters.search = rule.namePattern;
  if (rule.phase != null) filters.phase = rule.phase;
  if (rule.floatMin != null) filters.floatMin = rule.floatMin;
  if (rule.floatMax != null) filters.floatMax = rule.floatMax;
  const stickers = (rule.stickerNames ?? []).map((name) => name.trim()).filter((name) => name !== '');
  if (stickers.length > 0) filters.stickerNames = stickers;
  return filters;
}

export const alertRuleInputSchema = z
  .strictObject({
    id: id.optional(),
    name: z.string().trim().min(1).max(80),
    enabled: z.boolean().default(true),
    /** What the rule matches: the catalog's filters. */
    filters: catalogFiltersSchema.optional(),
    namePattern: z.string().max(MAX_NAME_LENGTH).optional(),
    phase: z.string().max(64).nullable().optional(),
    floatMin: z.number().min(0).max(1).nullable().optional(),
    floatMax: z.number().min(0).max(1).nullable().optional(),
    stickerNames: z.array(z.string().min(1).max(MAX_NAME_LENGTH)).max(10).optional(),
    /** The most one item may cost, cents (auto-buy needs it). */
    maxPrice: cents.nullable().default(null),
    autoBuy: z
      .strictObject({
        enabled: z.boolean(),
        recipientId: id.nullable(),
        spendCap: cents,
        dailyCap: cents,
        /** Record "would buy at $X" and send nothing. */
        dryRun: z.boolean().default(false),
      })
      .default({ enabled: false, recipientId: null, spendCap: 0, dailyCap: 0, dryRun: false }),
    /**
     * On save with auto-buy on: 'skip' (the default) never buys what is on sale now, only new listings;
     * 'buy' also buys the matches listed now (the preview's N).
     */
    existingListings: z.enum(['skip', 'buy']).default('skip'),
  })
  .transform(({ namePattern, phase, floatMin, floatMax, stickerNames, filters, ...rule }, context) => {
    const folded = catalogFiltersSchema.safeParse(
      ruleFiltersInput({ namePattern, phase, floatMin, floatMax, stickerNames, filters }),
    );
    if (folded.success) return { ...rule, filters: folded.data };
    for (const issue of folded.error.issues)
      context.addIssue({ code: 'custom', message: issue.message, path: ['filters', ...issue.path] });
    return z.NEVER;
  });
export type AlertRuleInput = z.input<typeof alertRuleInputSchema>;
