import type { Server } from 'node:http';
import type { SandboxCore } from '../domain/core';

/** Placeholder being replaced by the WebSocket feed (issue 3). */
export class FeedServer {
  constructor(
    private readonly core: SandboxCore,
    private readonly server: Server,
  ) {}

  connectionCount(_merchantId: string): number {
    return 0;
  }

  async close(): Promise<void> {}
}
