import type { AlertRuleInput } from '../../../../shared/ipc/contract';
import type { AlertRule } from '../../../../shared/ipc/models';
import { parseDollarsToCents } from '../../../../shared/money';
import {
  activeFilterCount,
  type CatalogFilters,
  DEFAULT_SORT,
  EMPTY_FILTERS,
  filterProblems,
  toCatalogQuery,
} from '../../lib/catalogQuery';
import { centsToInput } from '../../lib/format';
import { formOfQuery } from '../../lib/savedSearch';

/** The rule editor's form, as typed. */
export interface RuleForm {
  id?: string;
  name: string;
  enabled: boolean;
  /** What it matches: the catalog's filter form. */
  filters: CatalogFilters;
  maxPrice: string;
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
  filters: EMPTY_FILTERS,
  maxPrice: '',
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
    filters: formOfQuery({ ...rule.filters, ...DEFAULT_SORT_QUERY }).filters,
    maxPrice: centsToInput(rule.maxPrice),
    autoBuy: rule.autoBuy.enabled,
    recipientId: rule.autoBuy.recipientId ?? '',
    spendCap: rule.autoBuy.spendCap ? centsToInput(rule.autoBuy.spendCap) : '',
    dailyCap: rule.autoBuy.dailyCap ? centsToInput(rule.autoBuy.dailyCap) : '',
    dryRun: rule.autoBuy.dryRun === true,
  };
}

const DEFAULT_SORT_QUERY = { sort: DEFAULT_SORT.column, direction: DEFAULT_SORT.direction };

export type RuleProblems = Partial<Record<keyof RuleForm, string>>;

function dollars(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const cents = parseDollarsToCents(text);
  return cents === null || cents < 0 ? undefined : cents;
}

export function ruleProblems(f: RuleForm): RuleProblems {
  const p: RuleProblems = {};
  if (f.name.trim() === '') p.name = 'Give the rule a name';
  else if (f.name.trim().length > 80) p.name = 'At most 80 characters';
  // A filter the catalog would leave out (shown red) is not saved into a rule as if it were not there.
  const unread = Object.keys(filterProblems(f.filters)).length;
  if (unread > 0) p.filters = `Fix the ${unread === 1 ? 'filter' : `${unread} filters`} marked in red`;
  else if (activeFilterCount(f.filters) === 0 && f.filters.search.trim() === '' && dollars(f.maxPrice) == null) {
    p.filters = 'Add at least one condition (a filter or a maximum price)';
  }
  if (dollars(f.maxPrice) === undefined) p.maxPrice = 'A dollar amount, e.g. 250';
  if (f.autoBuy) {
    if (!f.recipientId) p.recipientId = 'Auto-buy needs a saved recipient';
    if (dollars(f.maxPrice) === null) p.maxPrice = 'Auto-buy needs a maximum price per item';
    const spend = dollars(f.spendCap);
    const daily = dollars(f.dailyCap);
    if (spend === undefined || !spend) p.spendCap = 'A total cap above $0';
    if (daily === undefined || !daily) p.dailyCap = 'A daily cap above $0';
    if (typeof spend === 'number' && typeof daily === 'number' && spend > 0 && daily > spend)
      p.dailyCap = 'Cannot exceed the total cap';
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
    filters: filtersOfForm(f.filters),
    maxPrice: dollars(f.maxPrice) ?? null,
    autoBuy: {
      enabled: f.autoBuy,
      recipientId: f.recipientId || null,
      spendCap: dollars(f.spendCap) ?? 0,
      dailyCap: dollars(f.dailyCap) ?? 0,
      dryRun: f.autoBuy && f.dryRun,
    },
  };
}

/** The rule's filters from the form (the catalog query's filter fields). */
function filtersOfForm(filters: CatalogFilters): NonNullable<AlertRuleInput['filters']> {
  const { sort: _sort, direction: _direction, ...query } = toCatalogQuery(filters, DEFAULT_SORT);
  return query;
}
