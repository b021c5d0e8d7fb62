/** The sandbox's deterministic catalog: generator, item images and the seeded PRNG. */
export {
  catalogTotals,
  completeItem,
  DEFAULT_FIRST_ITEM_ID,
  generateCatalog,
  generateItem,
  holderOf,
  itemSeed,
  wearIndexOf,
  type CatalogOptions,
  type CatalogTotals,
  type ItemInput,
} from './generator';
export { holderPool, type Holder, type HolderPool } from './holders';
export { Rng } from './rng';
export { renderItemImage } from './svg';
export type { ItemKind } from './entries';
