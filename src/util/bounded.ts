// The project's one bounded concurrency: the sync's writes (under a cap that may change while
// they run: src/sync/pacing.ts), spec reads and dry-run checks (runBounded over a stream of
// tasks) and the bench's loads (mapBounded over an array). The client library keeps its own
// small cap (src/client/content.ts): its entry point loads no npm package but js-yaml.

/**
 * Runs tasks with at most `limit` in flight, taking the next task from `tasks` only when a slot
 * frees up, so that a spooled write's body is read just before it is sent; stops starting new
 * ones after the first failure and rethrows it once the others settle. A function `limit` is read
 * again after every task that ends (the sync's paced window, src/sync/pacing.ts): a smaller value
 * lets the tasks in flight finish before the next starts, a larger one starts more.
 */
export async function runBounded(
  tasks: AsyncIterable<() => Promise<void>>,
  limit: number | (() => number),
): Promise<void> {
  const cap = typeof limit === 'number' ? () => limit : limit;
  const inflight = new Set<Promise<void>>();
  let failure: { err: unknown } | undefined;
  for await (const task of tasks) {
    if (failure) break;
    const p = Promise.resolve()
      .then(task)
      .then(
        () => void inflight.delete(p),
        (err: unknown) => {
          inflight.delete(p);
          failure ??= { err };
        },
      );
    inflight.add(p);
    while (inflight.size >= Math.max(1, cap())) await Promise.race(inflight);
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
