// Work-queue rate limiters, after client-go's workqueue: a per-key exponential failure
// backoff combined with an overall token bucket, so that one failing key backs off on its
// own and a burst of failing keys cannot flood the apiserver.
import type { Clock } from './clock.js';

export interface RateLimiter {
  /** How long key should wait before it is processed again; counts one more requeue. */
  when(key: string): number;
  /** Forgets key's failures: its next when() starts from the base delay again. */
  forget(key: string): void;
  /** How many times key was rate-limited since it was last forgotten. */
  numRequeues(key: string): number;
}

/** base × 2^failures, capped at max; per key. */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  readonly #failures = new Map<string, number>();

  constructor(
    readonly baseMs: number,
    readonly maxMs: number,
  ) {}

  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    // 2^failures overflows to Infinity long before it matters; min() caps it.
    return Math.min(this.maxMs, this.baseMs * Math.pow(2, failures));
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * An overall token bucket (golang.org/x/time/rate reservation semantics): `burst` requeues
 * pass at once, then `qps` per second; each requeue reserves a token and waits until it
 * would be available. Not per key, so it neither forgets nor counts.
 */
export class BucketRateLimiter implements RateLimiter {
  #tokens: number;
  #last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.#tokens = burst;
    this.#last = clock.now();
  }

  when(_key: string): number {
    const now = this.clock.now();
    const elapsedMs = Math.max(0, now - this.#last);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsedMs / 1000) * this.qps);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.qps) * 1000;
  }

  forget(_key: string): void {}

  numRequeues(_key: string): number {
    return 0;
  }
}

/** The longest delay of several limiters; forget and numRequeues apply to all. */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  when(key: string): number {
    let longest = 0;
    for (const l of this.#limiters) longest = Math.max(longest, l.when(key));
    return longest;
  }

  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  numRequeues(key: string): number {
    let most = 0;
    for (const l of this.#limiters) most = Math.max(most, l.numRequeues(key));
    return most;
  }
}

/**
 * controller-runtime's default: 5 ms doubling per failure up to 1000 s per key, and
 * 10 qps with a burst of 100 overall.
 */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialFailureRateLimiter(5, 1000 * 1000),
    new BucketRateLimiter(10, 100, clock),
  );
}
