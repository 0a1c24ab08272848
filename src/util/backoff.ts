// The one backoff of the project: the queue's rate limiter, the informer's relist loop, the
// leader elector, the registry client and the apiserver client all grow their delays with
// exponentialDelay and wait on an injected Clock, so tests drive time instead of sleeping.
import type { Clock } from './clock.js';

/** A random source in [0, 1); injected so that jitter is deterministic in tests. */
export type Random = () => number;

/** base × factor^step, capped at max: the delay before retry number step + 1 (step from 0). */
export function exponentialDelay(baseMs: number, maxMs: number, step: number, factor = 2): number {
  return Math.min(maxMs, baseMs * Math.pow(factor, step));
}

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
    const base = exponentialDelay(initialMs, maxMs, this.#steps, factor);
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

/** How a client retries a failed request. */
export interface RetryPolicy {
  /** Total attempts, ≥ 1. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Delay before attempt `attempt + 1` (attempt counts from 0): exponential, honouring a server's
 * Retry-After as a floor, never above the policy's cap.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, retryAfterMs?: number): number {
  const exp = exponentialDelay(policy.baseDelayMs, policy.maxDelayMs, attempt);
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs)) return exp;
  return Math.min(policy.maxDelayMs, Math.max(exp, retryAfterMs));
}

/** The apiserver client's retries: 200 ms → 400 ms → … → 5 s. */
const apiserverRetryPolicy: Omit<RetryPolicy, 'attempts'> = {
  baseDelayMs: 200,
  maxDelayMs: 5000,
};

/**
 * What a request client (src/kube's KubeClient) needs to wait between attempts, without
 * importing anything: `retryDelay(attempt, retryAfterMs)` with attempt counting from 1 (the
 * attempt that failed), and `sleep` on the injected clock (it resolves early on abort).
 */
export interface RequestRetry {
  retryDelay(attempt: number, retryAfterMs?: number): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The apiserver client's waits: exponential by the policy, or the apiserver's Retry-After when
 * it sent one (the apiserver's priority and fairness knows its load better than we do).
 */
export function requestRetry(
  clock: Pick<Clock, 'sleep'>,
  policy: Omit<RetryPolicy, 'attempts'> = apiserverRetryPolicy,
): RequestRetry {
  return {
    retryDelay: (attempt, retryAfterMs) => requestRetryDelay(attempt, retryAfterMs, policy),
    sleep: (ms, signal) => clock.sleep(ms, signal),
  };
}

/** RequestRetry's wait after attempt `attempt` (from 1) failed: Retry-After, else exponential. */
export function requestRetryDelay(
  attempt: number,
  retryAfterMs?: number,
  policy: Omit<RetryPolicy, 'attempts'> = apiserverRetryPolicy,
): number {
  return retryAfterMs !== undefined && retryAfterMs > 0
    ? retryAfterMs
    : exponentialDelay(policy.baseDelayMs, policy.maxDelayMs, attempt - 1);
}
