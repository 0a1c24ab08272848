// A request for a revision this replica does not hold yet waits for it, briefly (SPEC §4,
// docs/server.md "Revisions"). The leader writes the new urls.base as soon as it serves the
// revision itself; another replica builds the same revision 50-100 ms later, from the status it
// watches. A client that fetches at once (OLM v1's operator-controller does) would get a 404 or a
// 503 from that replica and log an error; held until the revision is published here, it gets
// the 200. Never an older revision: past the bound (or when too many wait) the answer is the
// retryable 503/404 it was before.
import type { Clock } from '../util/clock.js';

/** How a wait ended. */
export type RevisionWaitOutcome = 'held' | 'timeout' | 'aborted' | 'full';

export interface RevisionWaitOptions {
  /** The longest a request waits (--revision-wait); 0: never. */
  maxWaitMs: number;
  /** The most requests that wait at once; more are answered at once. */
  maxWaiting: number;
  clock: Pick<Clock, 'setTimer' | 'now'>;
  /** Each wait's outcome and how long it took (metrics). */
  onWait?: (outcome: RevisionWaitOutcome, ms: number) => void;
}

/** The default --revision-wait: well under clients' timeouts (operator-controller's was 10 s). */
export const DEFAULT_REVISION_WAIT_MS = 5000;
/** Requests that may wait at once: each holds a socket and a small closure, nothing else. */
export const DEFAULT_MAX_WAITING = 1000;

interface Waiter {
  catalog: string;
  check(): void;
}

export class RevisionWaiters {
  readonly #waiters = new Set<Waiter>();

  constructor(private readonly opts: RevisionWaitOptions) {}

  get waiting(): number {
    return this.#waiters.size;
  }

  /**
   * Waits until `held()` is true (checked now and whenever a revision of `catalog` is published),
   * for at most maxWaitMs, or until `signal` aborts (the client went away).
   */
  wait(catalog: string, held: () => boolean, signal?: AbortSignal): Promise<RevisionWaitOutcome> {
    const { clock, maxWaitMs, onWait } = this.opts;
    const started = clock.now();
    const finish = (outcome: RevisionWaitOutcome): RevisionWaitOutcome => {
      onWait?.(outcome, clock.now() - started);
      return outcome;
    };
    if (held()) return Promise.resolve('held');
    if (maxWaitMs <= 0) return Promise.resolve(finish('timeout'));
    if (this.#waiters.size >= this.opts.maxWaiting) return Promise.resolve(finish('full'));
    if (signal?.aborted) return Promise.resolve(finish('aborted'));
    return new Promise((resolve) => {
      const end = (outcome: RevisionWaitOutcome) => {
        this.#waiters.delete(waiter);
        timer.cancel();
        signal?.removeEventListener('abort', onAbort);
        resolve(finish(outcome));
      };
      const waiter: Waiter = {
        catalog,
        check: () => {
          if (held()) end('held');
        },
      };
      const onAbort = () => end('aborted');
      const timer = clock.setTimer(maxWaitMs, () => end('timeout'));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** A revision of `catalog` was published: its waiters look again. */
  published(catalog: string): void {
    for (const waiter of [...this.#waiters]) if (waiter.catalog === catalog) waiter.check();
  }
}
