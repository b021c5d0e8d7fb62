export { FeedConnection } from './feedConnection';
export type {
  FeedConnectionOptions,
  FeedEndpoint,
  FeedProblem,
  FeedStats,
  FeedStatus,
  WebSocketConstructor,
} from './feedOptions';
export { DEFAULT_BACKOFF, backoffBase, backoffDelay, resolveBackoff } from './backoff';
export type { BackoffOptions } from './backoff';
export { formatDelay } from './detail';
