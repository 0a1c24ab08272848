// Tests never sleep blindly: they poll a condition until it holds or a deadline passes.
import { setTimeout as delay } from 'node:timers/promises';

export interface PollOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Said in the error when the deadline passes. */
  what: string;
}

/** Calls `check` until it returns a value other than undefined/false; returns that value. */
export async function pollUntil<T>(
  check: () => Promise<T | undefined | false>,
  { timeoutMs, intervalMs = 250, what }: PollOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}`, { cause: lastError });
    }
    await delay(intervalMs);
  }
}
