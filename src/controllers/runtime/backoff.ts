// Backoff arithmetic shared by the queue's rate limiter, the informer's relist loop and
// the leader elector, so that all three back off the same, testable way.

/** A random source in [0, 1); injected so that jitter is deterministic in tests. */
export type Random = () => number;

/**
 * client-go's wait.Jitter: ms plus up to maxFactor × ms, uniformly. Used to spread polls
 * and retries of many replicas or objects so they do not hit the apiserver in lockstep.
 */
export function jitter(ms: number, maxFactor: number, random: Random = Math.random): number {
  const factor = maxFactor > 0 ? maxFactor : 1;
  return ms + random() * factor * ms;
}

export interface ExponentialBackoffOptions {
  /** First delay, ms. */
  initialMs: number;
  /** Cap on the delay, ms. */
  maxMs: number;
  /** Growth per step (default 2). */
  factor?: number;
  /** jitter() factor applied to each delay (default 0: none). */
  jitter?: number;
  random?: Random;
}

/** A sequence of growing delays, reset after a success. */
export class ExponentialBackoff {
  readonly #opts: Required<ExponentialBackoffOptions>;
  #steps = 0;

  constructor(opts: ExponentialBackoffOptions) {
    this.#opts = { factor: 2, jitter: 0, random: Math.random, ...opts };
  }

  /** The delay before the next attempt; each call grows the following one. */
  next(): number {
    const { initialMs, maxMs, factor, random } = this.#opts;
    const base = Math.min(maxMs, initialMs * Math.pow(factor, this.#steps));
    this.#steps++;
    const withJitter = this.#opts.jitter > 0 ? jitter(base, this.#opts.jitter, random) : base;
    return Math.min(maxMs, withJitter);
  }

  /** Number of delays handed out since the last reset. */
  get attempts(): number {
    return this.#steps;
  }

  reset(): void {
    this.#steps = 0;
  }
}
