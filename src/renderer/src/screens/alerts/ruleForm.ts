import type { AlertRuleInput } from '../../../../shared/ipc/contract';
import type { AlertRule } from '../../../../shared/ipc/models';
import { parseDollarsToCents } from '../../../../shared/money';
import { centsToInput, parseUnitFloat } from '../../lib/format';

/** The rule editor's form, as typed. */
export interface RuleForm {
  id?: string;
  name: string;
  enabled: boolean;
  namePattern: string;
  phase: string;
  floatMin: string;
  floatMax: string;
  maxPrice: string;
  stickerNames: string;
  autoBuy: boolean;
  recipientId: string;
  spendCap: string;
  dailyCap: string;
  /** Record "would buy" only, send nothing. */
  dryRun: boolean;
}

export const EMPTY_RULE_FORM: RuleForm = {
  name: '',
  enabled: true,
  namePattern: '',
  phase: '',
  floatMin: '',
  floatMax: '',
  maxPrice: '',
  stickerNames: '',
  autoBuy: false,
  recipientId: '',
  spendCap: '',
  dailyCap: '',
  dryRun: false,
};

export function formFromRule(rule: AlertRule): RuleForm {
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    namePattern: rule.namePattern,
    phase: rule.phase ?? '',
    floatMin: rule.floatMin === null ? '' : String(rule.floatMin),
    floatMax: rule.floatMax === null ? '' : String(rule.floatMax),
    maxPrice: centsToInput(rule.maxPrice),
    stickerNames: rule.stickerNames.join(', '),
    autoBuy: rule.autoBuy.enabled,
    recipientId: rule.autoBuy.recipientId ?? '',
    spendCap: rule.autoBuy.spendCap ? centsToInput(rule.autoBuy.spendCap) : '',
    dailyCap: rule.autoBuy.dailyCap ? centsToInput(rule.autoBuy.dailyCap) : '',
    dryRun: rule.autoBuy.dryRun === true,
  };
}

export type RuleProblems = Partial<Record<keyof RuleForm, string>>;

function dollars(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const cents = parseDollarsToCents(text);
  return cents === null || cents < 0 ? undefined : cents;
}

export function splitStickers(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function ruleProblems(f: RuleForm): RuleProblems {
  const p: RuleProblems = {};
  if (f.name.trim() === '') p.name = 'Give the rule a name';
  else if (f.name.trim().length > 80) p.name = 'At most 80 characters';
  const fMin = parseUnitFloat(f.floatMin);
  const fMax = parseUnitFloat(f.floatMax);
  if (fMin === undefined) p.floatMin = 'A float between 0 and 1';
  if (fMax === undefined) p.floatMax = 'A float between 0 and 1';
  if (typeof fMin === 'number' && typeof fMax === 'number' && fMin > fMax) p.floatMax = 'Must be at least the minimum';
  if (dollars(f.maxPrice) === undefined) p.maxPrice = 'A dollar amount, e.g. 250';
  if (splitStickers(f.stickerNames).length > 10) p.stickerNames = 'At most 10 sticker names';
  if (f.namePattern.trim() === '' && f.phase === '' && fMin == null && fMax == null && dollars(f.maxPrice) == null && splitStickers(f.stickerNames).length === 0) {
    p.namePattern = 'Add at least one condition (a name, phase, float, price or sticker)';
  }
  if (f.autoBuy) {
    if (!f.recipientId) p.recipientId = 'Auto-buy needs a saved recipient';
    if (dollars(f.maxPrice) === null) p.maxPrice = 'Auto-buy needs a maximum price per item';
    const spend = dollars(f.spendCap);
    const daily = dollars(f.dailyCap);
    if (spend === undefined || !spend) p.spendCap = 'A total cap above $0';
    if (daily === undefined || !daily) p.dailyCap = 'A daily cap above $0';
    if (typeof spend === 'number' && typeof daily === 'number' && spend > 0 && daily > spend) p.dailyCap = 'Cannot exceed the total cap';
  } else {
    if (dollars(f.spendCap) === undefined) p.spendCap = 'A dollar amount';
    if (dollars(f.dailyCap) === undefined) p.dailyCap = 'A dollar amount';
  }
  return p;
}

export function ruleInput(f: RuleForm): AlertRuleInput {
  return {
    ...(f.id ? { id: f.id } : {}),
    name: f.name.trim(),
    enabled: f.enabled,
    namePattern: f.namePattern.trim(),
    phase: f.phase || null,
    floatMin: parseUnitFloat(f.floatMin) ?? null,
    floatMax: parseUnitFloat(f.floatMax) ?? null,
    maxPrice: dollars(f.maxPrice) ?? null,
    stickerNames: splitStickers(f.stickerNames),
    autoBuy: {
      enabled: f.autoBuy,
      recipientId: f.recipientId || null,
      spendCap: dollars(f.spendCap) ?? 0,
      dailyCap: dollars(f.dailyCap) ?? 0,
      dryRun: f.autoBuy && f.dryRun,
    },
  };
}
