import type { SandboxCore } from '../domain/core';
import { MarketMover } from './market';
import type { ResolvedOptions, SimulatorOptions } from './options';
import { resolveOptions } from './options';
import { TradeDriver } from './tradeDriver';

export type { MarketMix, SentOutcomeWeights, SimulatorOptions } from './options';
export { DEFAULT_MARKET_MIX, DEFAULT_OUTCOMES, SIMULATOR_DEFAULTS } from './options';

/**
 * The sandbox's market simulator (`--simulate`): trades move through their
 * lifecycle by themselves, and the catalog moves (reprices, new listings,
 * items sold elsewhere). Everything runs on the sandbox clock, so the admin
 * clock drives it, and every random choice comes from the seed.
 * docs/sandbox.md ("Market simulator") describes delays, probabilities and the mix.
 */
export class MarketSimulator {
  readonly options: ResolvedOptions;
  readonly trades: TradeDriver;
  readonly market: MarketMover;
  private running = false;

  constructor(
    private readonly core: SandboxCore,
    options: SimulatorOptions,
  ) {
    this.options = resolveOptions(options);
    this.trades = new TradeDriver(core, this.options);
    this.market = new MarketMover(core, this.options);
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.trades.start();
    this.market.start();
  }

  /** Cancels every timer and listener; safe to call twice. */
  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.trades.stop();
    this.market.stop();
  }
}
