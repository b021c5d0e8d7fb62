/** Shared by the auto-buy bench and its market child (lib/auto-buy-market.ts): the rule's name pattern. */
export const AUTO_BUY_MARKER = 'Bench AutoBuy';
