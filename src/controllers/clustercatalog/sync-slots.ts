// The write slots: how many catalogs parse and write at once (--workers). Pulls run outside them
// (--pull-workers reconciles in flight), so that a catalog waiting on a slow registry holds no
// slot and the others keep syncing; the writes stay bounded for the apiserver and the heap.

export class SyncSlots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`sync slots must be a positive integer, got ${size}`);
    this.#free = size;
  }

  /** Waits for a free slot; returns its release (idempotent). Rejects if signal aborts first. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#free > 0) this.#free--;
    else {
      await new Promise<void>((resolve, reject) => {
        const grant = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.#waiting.indexOf(grant);
          if (i >= 0) this.#waiting.splice(i, 1);
          reject(signal!.reason as Error);
        };
        this.#waiting.push(grant);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}
