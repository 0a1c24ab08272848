// The sync's bounded concurrency: its writes (under a cap that may change while they run:
// src/sync/pacing.ts), spec reads and dry-run checks (runBounded over a stream of tasks). Over an
// array (the client's fetches, the bench's loads): mapBounded in limits.ts, which imports nothing.
import pLimit from 'p-limit';

/**
 * Runs tasks with at most `limit` in flight (p-limit keeps the cap), taking the next task from
 * `tasks` only when a slot frees up, so that a spooled write's body is read just before it is
 * sent; stops starting new ones after the first failure and rethrows it once the others settle.
 * A function `limit` is read again after every task that ends (the sync's paced window): a smaller
 * value lets the tasks in flight finish before the next starts, a larger one starts more; p-limit's
 * own concurrency follows it.
 */
export async function runBounded(
  tasks: AsyncIterable<() => Promise<void>>,
  limit: number | (() => number),
): Promise<void> {
  const cap = typeof limit === 'number' ? () => Math.max(1, limit) : () => Math.max(1, limit());
  const run = pLimit(cap());
  const inflight = new Set<Promise<void>>();
  let failure: { err: unknown } | undefined;
  // Woken by the next task to end. Not Promise.race over the tasks in flight: it adds a reaction
  // to each of them per wait, which they keep until they settle; over a sync's tens of
  // thousands of writes with 32 in flight that cost 0.008 to 0.017 ms of CPU a write
  // (bench/README, stop 39).
  let wake: (() => void) | undefined;
  const ended = (p: Promise<void>) => {
    inflight.delete(p);
    const w = wake;
    wake = undefined;
    w?.();
  };
  for await (const task of tasks) {
    if (failure) break;
    const p: Promise<void> = run(task).then(
      () => ended(p),
      (err: unknown) => {
        failure ??= { err };
        ended(p);
      },
    );
    inflight.add(p);
    for (;;) {
      const now = cap();
      if (run.concurrency !== now) run.concurrency = now;
      if (inflight.size < now) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  await Promise.all(inflight);
  if (failure) throw failure.err;
}
