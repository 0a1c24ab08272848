// The sync's bounded concurrency: its writes, spec reads and dry-run checks (runBounded over a
// stream of tasks). Over an array (the client's fetches, the bench's loads): mapBounded in
// limits.ts, which imports nothing.
import pLimit from 'p-limit';

/**
 * Runs tasks with at most `limit` in flight (p-limit keeps the cap), taking the next task from
 * `tasks` only when a slot frees up, so that a spooled write's body is read just before it is
 * sent; stops starting new ones after the first failure and rethrows it once the others settle.
 */
export async function runBounded(
  tasks: AsyncIterable<() => Promise<void>>,
  limit: number,
): Promise<void> {
  const run = pLimit(Math.max(1, limit));
  const inflight = new Set<Promise<void>>();
  let failure: { err: unknown } | undefined;
  for await (const task of tasks) {
    if (failure) break;
    const p = run(task).then(
      () => void inflight.delete(p),
      (err: unknown) => {
        inflight.delete(p);
        failure ??= { err };
      },
    );
    inflight.add(p);
    if (inflight.size >= run.concurrency) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  if (failure) throw failure.err;
}
