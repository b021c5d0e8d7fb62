export { itemFilter, type ItemTest } from './catalogQuery';
export { packPriceChanges, priceChangeOutcome } from './priceChanges';
