import type { SandboxCore } from '../domain/core';

export interface SimulatorOptions {
  seed: number;
  eventsPerSecond: number;
  imageBaseUrl: string;
}

/** Placeholder being replaced by the market simulator (issue 3). */
export class MarketSimulator {
  constructor(
    private readonly core: SandboxCore,
    private readonly options: SimulatorOptions,
  ) {}

  start(): void {}

  stop(): void {}
}
