// Retries with exponential backoff (src/util/backoff.ts), on an injected clock so tests never
// sleep for real.
import { backoffDelay, type RetryPolicy } from '../util/backoff.js';
import type { Clock } from '../util/clock.js';

export { backoffDelay, type RetryPolicy };

/** What retrying needs of the one Clock (src/util/clock.ts): the time and a sleep. */
export type RetryClock = Pick<Clock, 'now' | 'sleep'>;

/** 4 attempts, 250 ms → 500 ms → 1 s: a stopped registry fails within ~2 s plus timeouts. */
export const defaultRetryPolicy: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 5000 };

/** Parses Retry-After (seconds or an HTTP date) into milliseconds from now. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : Math.max(0, t - now);
}

export type RetryDecision = { retry: false } | { retry: true; afterMs?: number };

/**
 * Runs fn until it returns a value that needs no retry, or the attempts are used up.
 * `decide` looks at a result or an error; the last result is returned, the last error thrown.
 * When `signal` aborts, the backoff ends and its reason is thrown.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  clock: RetryClock,
  fn: (attempt: number) => Promise<T>,
  decide: (outcome: { value: T } | { error: unknown }) => RetryDecision,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await fn(attempt) };
    } catch (error) {
      // An aborted attempt is not retried: the abort's reason says why it ended.
      if (signal?.aborted) throw signal.reason;
      outcome = { error };
    }
    const d = attempt + 1 < policy.attempts ? decide(outcome) : ({ retry: false } as const);
    if (!d.retry) {
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    }
    await clock.sleep(backoffDelay(policy, attempt, d.afterMs), signal);
    if (signal?.aborted) throw signal.reason;
  }
}
