import type { SandboxCore } from '../domain/core';

/** Placeholder being replaced by the webhook dispatcher (issue 3). */
export class WebhookDispatcher {
  constructor(private readonly core: SandboxCore) {}

  async test(merchantId: string): Promise<{ delivered: boolean; httpStatus: number | null }> {
    this.core.merchants.get(merchantId);
    return { delivered: false, httpStatus: null };
  }

  log(_merchantId: string | undefined, _limit: number): unknown[] {
    return [];
  }

  afterReset(): void {}

  async close(): Promise<void> {}
}
