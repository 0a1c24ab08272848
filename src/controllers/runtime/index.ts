// The controller runtime: generic machinery with no domain code. See docs/runtime.md.
export * from './backoff.js';
export * from './clock.js';
export * from './controller.js';
export * from './delegated-access.js';
export * from './health.js';
export * from './informer.js';
export * from './interrupts.js';
export * from './leader.js';
export * from './metrics.js';
export * from './queue.js';
export * from './ratelimiter.js';
export * from './shutdown.js';
export * from './workers.js';
export * from './watch-hold.js';
