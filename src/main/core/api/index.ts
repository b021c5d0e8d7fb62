export * from './client';
export * from './errors';
export * from './headers';
export * from './rateLimiter';
