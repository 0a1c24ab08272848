// The pulls that run, one per image (cache key), shared by every attempt that wants that image:
// a second attempt waits for the first's transfer instead of starting its own, and the transfer
// stops only when the last attempt waiting for it has aborted.
import type { Activity as PullActivity } from '../util/deadline.js';

/**
 * A pull of one image shared by every attempt that wants it: it is aborted only when every
 * attempt waiting for it has aborted, and tells each of them what it is doing.
 */
interface SharedPull<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
  activities: Set<PullActivity>;
}

export class SharedPulls<T> {
  private readonly inflight = new Map<string, SharedPull<T>>();

  /** Whether a pull of key runs. */
  has(key: string): boolean {
    return this.inflight.has(key);
  }

  /** How many pulls run. */
  get size(): number {
    return this.inflight.size;
  }

  /** Waits for the shared pull of key (starting it if none runs) until it settles or signal aborts. */
  async join(
    key: string,
    activity: PullActivity,
    signal: AbortSignal | undefined,
    start: (shared: { signal: AbortSignal; activity: PullActivity }) => Promise<T>,
  ): Promise<T> {
    signal?.throwIfAborted();
    let shared = this.inflight.get(key);
    if (!shared) {
      const controller = new AbortController();
      const activities = new Set<PullActivity>();
      const fanOut: PullActivity = {
        doing: (what, detail) => {
          for (const a of activities) a.doing(what, detail);
        },
      };
      const s: SharedPull<T> = {
        controller,
        activities,
        waiters: 0,
        promise: start({ signal: controller.signal, activity: fanOut }).finally(() => {
          if (this.inflight.get(key) === s) this.inflight.delete(key);
        }),
      };
      shared = s;
      this.inflight.set(key, s);
    }
    const s = shared;
    s.waiters++;
    s.activities.add(activity);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        s.activities.delete(activity);
        const reason = signal!.reason as Error;
        if (--s.waiters > 0) {
          // The others still want the image: the transfer goes on for them.
          reject(reason);
          return;
        }
        // The last one out stops the transfer, and returns once its temp dir is removed.
        s.controller.abort(reason);
        if (this.inflight.get(key) === s) this.inflight.delete(key);
        s.promise.then(
          () => reject(reason),
          () => reject(reason),
        );
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([s.promise, aborted]);
    } finally {
      if (!signal?.aborted) {
        s.waiters--;
        s.activities.delete(activity);
      }
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
