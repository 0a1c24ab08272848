// Holds a watch closed for a while: the drift watch while a large sync writes. Every object a sync
// writes comes back as an event of the drift watch, and reading an event costs the controller
// about a quarter of the CPU of its write (a TLS record, an HTTP chunk and a decode per event:
// bench/README.md, stop 44), on the cores a small cluster shares with the apiserver. Those events
// are the sync's own, never drift. Closed, the watch costs nothing; resumed from the last
// resourceVersion it had, it receives every event it missed (the apiserver's watch cache replays
// them, in fewer and larger chunks) and no relist is needed, so drift by others during the sync is
// still seen, after the writes instead of during them. A hold is bounded (maxPauseMs): past it
// the watch resumes though the sync still writes, so that the resourceVersion it resumes from
// stays within the apiserver's watch cache (75 s of events and more).
import type { Clock, Timer } from './clock.js';
import type { WatchPause } from './informer.js';

export interface WatchHoldOptions {
  clock: Pick<Clock, 'setTimer'>;
  /** The longest a pause lasts, however long the holds do. */
  maxPauseMs: number;
  /** Called when a pause begins and when it ends (metrics, logs). */
  onPause?: (paused: boolean) => void;
}

export class WatchHold implements WatchPause {
  readonly #clock: Pick<Clock, 'setTimer'>;
  readonly #maxPauseMs: number;
  readonly #onPause: (paused: boolean) => void;
  #holds = 0;
  #paused = false;
  #cap: Timer | undefined;
  readonly #pauseListeners = new Set<() => void>();
  readonly #resumeWaiters = new Set<() => void>();

  constructor(opts: WatchHoldOptions) {
    this.#clock = opts.clock;
    this.#maxPauseMs = opts.maxPauseMs;
    this.#onPause = opts.onPause ?? (() => {});
  }

  /**
   * Pauses the watch until the returned release is called (once per hold; several holds pause it
   * until the last is released), or until maxPauseMs have passed since the pause began.
   */
  hold(): () => void {
    this.#holds++;
    // A pause that ran out while holds remained is not begun again by a later hold of the same
    // period: the watch catches up first.
    if (this.#holds === 1) this.#pause();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds--;
      if (this.#holds === 0) this.#resume();
    };
  }

  paused(): boolean {
    return this.#paused;
  }

  onPause(listener: () => void): () => void {
    this.#pauseListeners.add(listener);
    return () => this.#pauseListeners.delete(listener);
  }

  whenResumed(signal: AbortSignal): Promise<void> {
    if (!this.#paused || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.#resumeWaiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#resumeWaiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #pause(): void {
    if (this.#maxPauseMs <= 0) return;
    this.#paused = true;
    this.#cap = this.#clock.setTimer(this.#maxPauseMs, () => this.#resume());
    this.#onPause(true);
    for (const listener of [...this.#pauseListeners]) listener();
  }

  #resume(): void {
    this.#cap?.cancel();
    this.#cap = undefined;
    if (!this.#paused) return;
    this.#paused = false;
    this.#onPause(false);
    for (const waiter of [...this.#resumeWaiters]) waiter();
  }
}
