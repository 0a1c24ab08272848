// Two small bounds on what a caller takes in, however much there is: calls in flight
// (mapBounded) and bytes read into memory (readLimited). They import nothing, so the client
// library's entry point loads them without a package (src/client/entry-point.test.ts); the
// sync's stream of writes has its own runner (bounded.ts).

/**
 * Runs `fn` over `items` with at most `limit` calls at a time; results in input order. Bounds
 * what a caller fetches or sends at once, however many items it has. The first failure is
 * thrown once the calls in flight have settled; no new call starts after it.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  const settled = await Promise.allSettled(workers);
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
  return out;
}

/**
 * A body (a Node stream or a fetch Response's) read into memory, failing with onTooLarge() past
 * `limit` bytes: a wrong URL or a hostile server must not fill memory. Leaving the loop early
 * destroys (or cancels) the body.
 */
export async function readLimited(
  body: AsyncIterable<Uint8Array>,
  limit: number,
  onTooLarge: () => Error,
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  for await (const chunk of body) {
    n += chunk.byteLength;
    if (n > limit) throw onTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
