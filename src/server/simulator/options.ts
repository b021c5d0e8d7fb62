import { DAY_MS, SECOND_MS } from '../../shared/time';

/** How a SENT trade ends, as relative weights (normalised; they need not sum to 1). */
export interface SentOutcomeWeights {
  /** COMPLETED. */
  completed: number;
  /** CANCELLED 504, Trade declined by user. */
  declined: number;
  /** CANCELLED 506, Trade countered. */
  countered: number;
  /** CANCELLED 505, Items no longer valid (the item was sold elsewhere). */
  itemsInvalid: number;
  /** FAILED 500 with a raw platform message. */
  failed: number;
  /** EXPIRED 503: the simulator does nothing and the trade's own expiry timer fires. */
  expired: number;
}

/** What one market event does, as relative weights. */
export interface MarketMix {
  /** An on-sale item's price moves by ±1–8 % (price_changed). */
  reprice: number;
  /** A new item is listed (item_upserted). */
  newListing: number;
  /** An on-sale item is sold elsewhere (item_removed). */
  soldElsewhere: number;
}

export type Range = readonly [min: number, max: number];

export interface SimulatorOptions {
  seed: number;
  /** Market events per second of real time; 0 = no market events (trades still move). */
  eventsPerSecond: number;
  /** Base of new listings' image URLs. */
  imageBaseUrl: string;
  /** PENDING → SENT (or FAILED / REJECTED) after this many seconds. Default [2, 6]. */
  sendDelaySeconds?: Range;
  /** Chance that a PENDING trade fails (FAILED 500, raw platform message). Default 0.01. */
  sendFailProbability?: number;
  /** Chance that a PENDING trade is rejected (REJECTED). Default 0.005. */
  sendRejectProbability?: number;
  /** A SENT trade reaches its outcome after this many seconds. Default [5, 90]. */
  outcomeDelaySeconds?: Range;
  /** Outcome weights of SENT trades; missing keys take the defaults. */
  outcomes?: Partial<SentOutcomeWeights>;
  /** Chance that a COMPLETED trade is later REVERSED. Default 0.02. */
  reversalProbability?: number;
  /** A reversal comes this many days after completion (inside the 7-day protection). Default [1, 6]. */
  reversalDelayDays?: Range;
  /** Market event mix; missing keys take the defaults. */
  marketMix?: Partial<MarketMix>;
  /** A reprice moves the price by this many percent, up or down. Default [1, 8]. */
  repricePercent?: Range;
}

export const DEFAULT_OUTCOMES: Readonly<SentOutcomeWeights> = {
  completed: 0.8,
  declined: 0.06,
  countered: 0.03,
  itemsInvalid: 0.03,
  failed: 0.02,
  expired: 0.06,
};

export const DEFAULT_MARKET_MIX: Readonly<MarketMix> = { reprice: 0.7, newListing: 0.2, soldElsewhere: 0.1 };

export const SIMULATOR_DEFAULTS = {
  sendDelaySeconds: [2, 6] as Range,
  sendFailProbability: 0.01,
  sendRejectProbability: 0.005,
  outcomeDelaySeconds: [5, 90] as Range,
  reversalProbability: 0.02,
  reversalDelayDays: [1, 6] as Range,
  repricePercent: [1, 8] as Range,
} as const;

/** Raw-looking platform messages of FAILED trades, before the offer was created (PENDING → FAILED). */
export const SEND_FAILURE_MESSAGES: readonly string[] = [
  'Steam Trade Offer error: (15) Target cannot trade',
  'Steam Trade Offer error: (16) Timeout',
  'Steam Trade Offer error: (20) Service unavailable',
  'Steam Trade Offer error: (25) Limit exceeded',
  'Steam Trade Offer error: (26) Item not in inventory',
  'There was an error sending your trade offer. Please try again later. (2)',
];

/** Raw-looking platform messages of FAILED trades after the offer was sent (SENT → FAILED). */
export const SENT_FAILURE_MESSAGES: readonly string[] = [
  'Steam Trade Offer error: (11) Invalid state',
  'Steam Trade Offer error: (16) Timeout',
  'Steam Trade Offer error: (28) Offer was invalidated by Steam',
  'Trade offer state changed to InEscrow; offer cancelled',
  'Steam API error: HTTP 502 Bad Gateway while confirming the offer',
];

export interface ResolvedOptions {
  seed: number;
  eventsPerSecond: number;
  imageBaseUrl: string;
  sendDelayMs: Range;
  sendFailProbability: number;
  sendRejectProbability: number;
  outcomeDelayMs: Range;
  outcomes: SentOutcomeWeights;
  reversalProbability: number;
  reversalDelayMs: Range;
  marketMix: MarketMix;
  repricePercent: Range;
}

function checkRange(name: string, range: Range, min = 0): Range {
  const [lo, hi] = range;
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo < min || hi < lo) {
    throw new RangeError(`${name} must be [min, max] with ${min} <= min <= max, got [${lo}, ${hi}]`);
  }
  return range;
}

function checkProbability(name: string, p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`${name} must be between 0 and 1, got ${p}`);
  return p;
}

function checkWeights<T extends object>(name: string, weights: T): T {
  const values = Object.values(weights) as number[];
  if (values.some((w) => !(w >= 0) || !Number.isFinite(w)))
    throw new RangeError(`${name}: weights must be finite and >= 0`);
  if (values.reduce((sum, w) => sum + w, 0) <= 0) throw new RangeError(`${name}: at least one weight must be > 0`);
  return weights;
}

const scale = (range: Range, unit: number): Range => [range[0] * unit, range[1] * unit];

/** Fills the defaults and refuses nonsense early (at construction, not in a timer). */
export function resolveOptions(options: SimulatorOptions): ResolvedOptions {
  if (!(options.eventsPerSecond >= 0) || !Number.isFinite(options.eventsPerSecond)) {
    throw new RangeError(`eventsPerSecond must be a finite number >= 0, got ${options.eventsPerSecond}`);
  }
  const d = SIMULATOR_DEFAULTS;
  const sendFailProbability = checkProbability(
    'sendFailProbability',
    options.sendFailProbability ?? d.sendFailProbability,
  );
  const sendRejectProbability = checkProbability(
    'sendRejectProbability',
    options.sendRejectProbability ?? d.sendRejectProbability,
  );
  if (sendFailProbability + sendRejectProbability > 1)
    throw new RangeError('sendFailProbability + sendRejectProbability must be <= 1');
  return {
    seed: options.seed,
    eventsPerSecond: options.eventsPerSecond,
    imageBaseUrl: options.imageBaseUrl,
    sendDelayMs: scale(checkRange('sendDelaySeconds', options.sendDelaySeconds ?? d.sendDelaySeconds), SECOND_MS),
    sendFailProbability,
    sendRejectProbability,
    outcomeDelayMs: scale(
      checkRange('outcomeDelaySeconds', options.outcomeDelaySeconds ?? d.outcomeDelaySeconds),
      SECOND_MS,
    ),
    outcomes: checkWeights('outcomes', { ...DEFAULT_OUTCOMES, ...options.outcomes }),
    reversalProbability: checkProbability('reversalProbability', options.reversalProbability ?? d.reversalProbability),
    // Reversals must land inside the protection period (stage 1), or the transition is refused.
    reversalDelayMs: scale(checkRange('reversalDelayDays', options.reversalDelayDays ?? d.reversalDelayDays), DAY_MS),
    marketMix: checkWeights('marketMix', { ...DEFAULT_MARKET_MIX, ...options.marketMix }),
    repricePercent: checkRange('repricePercent', options.repricePercent ?? d.repricePercent),
  };
}

/** Picks a key by relative weight with one uniform draw `u` in [0, 1). */
export function pickWeighted<K extends string>(weights: Readonly<Record<K, number>>, u: number): K {
  const entries = Object.entries(weights) as [K, number][];
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  let acc = 0;
  for (const [key, w] of entries) {
    acc += w / total;
    if (u < acc && w > 0) return key;
  }
  // Rounding at the top end: the last key with any weight.
  return (entries.filter(([, w]) => w > 0).pop() as [K, number])[0];
}
