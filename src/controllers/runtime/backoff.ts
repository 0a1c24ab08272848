// The backoff arithmetic lives in src/util/backoff.ts (shared with src/source and src/kube's
// caller); re-exported so that the runtime's imports keep working.
export { ExponentialBackoff, jitter } from '../../util/backoff.js';
export type { ExponentialBackoffOptions, Random } from '../../util/backoff.js';
