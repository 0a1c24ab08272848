// The project's one bounded concurrency: the sync's writes, spec reads and dry-run checks
// (runBounded over a stream of tasks) and the bench's loads (mapBounded over an array). The
// client library keeps its own small cap (src/client/content.ts): its entry point loads no npm
// package but js-yaml.
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

/**
 * Runs `fn` over `items` with at most `limit` calls at a time (runBounded); results in input
 * order. Bounds what a caller fetches at once, however many items it has.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  async function* tasks(): AsyncGenerator<() => Promise<void>> {
    for (const [i, item] of items.entries()) {
      yield async () => {
        out[i] = await fn(item);
      };
    }
  }
  await runBounded(tasks(), limit);
  return out;
}
