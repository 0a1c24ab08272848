// Time, injected. Everything in the runtime that waits or reads the time does it through a
// Clock, so that tests drive time with ManualClock.advance() instead of sleeping and never
// depend on how fast the machine is.

/** A scheduled callback; cancel() is idempotent and a no-op once the callback ran. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** now() as a Date. */
  date(): Date;
  /** Calls fn once, ms milliseconds from now (ms <= 0: on the next timer turn). */
  setTimer(ms: number, fn: () => void): Timer;
  /**
   * Resolves after ms milliseconds, or as soon as signal aborts. It never rejects: loops
   * check signal.aborted after waking, which keeps abort from turning into stray rejections.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function sleepWith(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const onAbort = (): void => {
      timer.cancel();
      resolve();
    };
    const timer = clock.setTimer(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The wall clock, over setTimeout. */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  date(): Date {
    return new Date();
  }

  setTimer(ms: number, fn: () => void): Timer {
    const handle = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }
}

/** One shared real clock; components default to it when no clock is injected. */
export const realClock: Clock = new RealClock();

/**
 * Runs tick every intervalMs on clock until the returned function is called. The next run is
 * armed only when the previous one settled, so a slow tick never overlaps itself; a rejection
 * goes to onError and polling goes on.
 */
export function pollEvery(
  clock: Pick<Clock, 'setTimer'>,
  intervalMs: number,
  tick: () => Promise<void>,
  onError: (err: unknown) => void,
): () => void {
  let timer: Timer | undefined;
  let stopped = false;
  const run = (): void => {
    void tick()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = clock.setTimer(intervalMs, run);
      });
  };
  timer = clock.setTimer(intervalMs, run);
  return () => {
    stopped = true;
    timer?.cancel();
  };
}

interface PendingTimer {
  due: number;
  seq: number;
  fn: () => void;
}

/**
 * Lets pending promise continuations run: setImmediate fires only after the microtask
 * queue is empty, so every `await` chain that does not wait for I/O or a timer completes.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A clock that moves only when told to. advance(ms) fires due timers in due-time order
 * (ties in the order they were set), moving now() to each timer's due time before calling
 * it and letting promise continuations settle after each, so that code which re-arms a
 * timer from a continuation behaves as it would in real time.
 */
export class ManualClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: PendingTimer[] = [];

  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.#now;
  }

  date(): Date {
    return new Date(this.#now);
  }

  setTimer(ms: number, fn: () => void): Timer {
    const timer: PendingTimer = { due: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(timer);
    return {
      cancel: () => {
        this.#timers = this.#timers.filter((t) => t !== timer);
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, ms, signal);
  }

  /** Number of timers that have not fired nor been cancelled. */
  pendingTimers(): number {
    return this.#timers.length;
  }

  /** Milliseconds until the earliest pending timer, or undefined when there is none. */
  nextTimerIn(): number | undefined {
    const next = this.#earliest();
    return next === undefined ? undefined : next.due - this.#now;
  }

  /** Moves time forward by ms, firing every timer that becomes due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + Math.max(0, ms);
    await settle();
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.due > target) break;
      this.#fire(next);
      await settle();
    }
    this.#now = target;
    await settle();
  }

  /** Moves time to the earliest pending timer and fires it; false when there is none. */
  async advanceToNextTimer(): Promise<boolean> {
    await settle();
    const next = this.#earliest();
    if (next === undefined) return false;
    this.#fire(next);
    await settle();
    return true;
  }

  #earliest(): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.#timers) {
      if (best === undefined || t.due < best.due || (t.due === best.due && t.seq < best.seq)) {
        best = t;
      }
    }
    return best;
  }

  #fire(timer: PendingTimer): void {
    this.#timers = this.#timers.filter((t) => t !== timer);
    this.#now = Math.max(this.#now, timer.due);
    timer.fn();
  }
}
