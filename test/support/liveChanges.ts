/**
 * One kind of live change through the store's one live write (`applyItemChanges`), answered as that kind's
 * result: on a LocalStore (or the store model's child process) a promise, on the writer's CatalogWriter in this
 * thread the result itself.
 */
import type { Item, PriceChange } from '../../src/shared/api';
import { packPriceChanges, priceChangeOutcome } from '../../src/main/core/catalog';
import {
  type CatalogTotals,
  type ItemChangeGroup,
  type ItemChangeGroupResult,
  type ItemRemovalResult,
  type ItemUpsertResult,
  type PriceMove,
} from '../../src/main/core/store';

type Results = ItemChangeGroupResult[];
interface Writes<R> {
  applyItemChanges(groups: ItemChangeGroup[]): R;
}
export interface PriceChangeResult {
  prices: PriceMove[];
  unknown: number[];
  totals: CatalogTotals;
}

function one<T>(answer: Results | Promise<Results>, read: (result: ItemChangeGroupResult) => T): T | Promise<T> {
  const first = (results: Results) => read(results[0] as ItemChangeGroupResult);
  return answer instanceof Promise ? answer.then(first) : first(answer);
}

export function applyItemUpserts(store: Writes<Promise<Results>>, items: Item[]): Promise<ItemUpsertResult>;
export function applyItemUpserts(writer: Writes<Results>, items: Item[]): ItemUpsertResult;
export function applyItemUpserts(
  target: Writes<Results | Promise<Results>>,
  items: Item[],
): ItemUpsertResult | Promise<ItemUpsertResult> {
  return one(
    target.applyItemChanges([{ kind: 'upserts', items }]),
    (entry) => (entry as { result: ItemUpsertResult }).result,
  );
}

export function applyItemRemovals(store: Writes<Promise<Results>>, itemIds: number[]): Promise<ItemRemovalResult>;
export function applyItemRemovals(writer: Writes<Results>, itemIds: number[]): ItemRemovalResult;
export function applyItemRemovals(
  target: Writes<Results | Promise<Results>>,
  itemIds: number[],
): ItemRemovalResult | Promise<ItemRemovalResult> {
  return one(
    target.applyItemChanges([{ kind: 'removals', itemIds }]),
    (entry) => (entry as { result: ItemRemovalResult }).result,
  );
}

export function applyPriceChanges(store: Writes<Promise<Results>>, changes: PriceChange[]): Promise<PriceChangeResult>;
export function applyPriceChanges(writer: Writes<Results>, changes: PriceChange[]): PriceChangeResult;
export function applyPriceChanges(
  target: Writes<Results | Promise<Results>>,
  changes: PriceChange[],
): PriceChangeResult | Promise<PriceChangeResult> {
  const packed = packPriceChanges(changes);
  return one(target.applyItemChanges([{ kind: 'prices', changes: packed }]), (entry) => {
    const { previous, totals } = (entry as Extract<ItemChangeGroupResult, { kind: 'prices' }>).result;
    return { ...priceChangeOutcome(packed, previous), totals };
  });
}
