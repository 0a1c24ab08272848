// A work queue of string keys with client-go's workqueue semantics (rate-limiting,
// delaying, deduplicating):
// - a key queued twice is processed once (dirty set);
// - a key is never handed to two workers at once (processing set); a key added while it
//   is being processed is queued again when its worker calls done();
// - addAfter keeps the earliest of several pending delays per key;
// - addRateLimited delays by the rate limiter, forget resets a key's backoff.
// Keys, not events: the queue holds names to reconcile, never what happened to them.
import type { Clock, Timer } from './clock.js';
import { realClock } from './clock.js';
import type { RateLimiter } from './ratelimiter.js';
import { defaultControllerRateLimiter } from './ratelimiter.js';

/** Where a queue reports what it does; metrics.ts implements it over prom-client. */
export interface QueueMetricsSink {
  /** A key was accepted into the queue (workqueue_adds_total). */
  added(): void;
  /** The number of keys waiting to be processed changed (workqueue_depth). */
  depth(n: number): void;
  /** A key was requeued through the rate limiter (workqueue_retries_total). */
  retried(): void;
  /** A key waited this long between being queued and handed to a worker. */
  queueLatency(ms: number): void;
  /** A worker held a key this long, from get() to done(). */
  workDuration(ms: number): void;
}

export interface WorkQueueOptions {
  clock?: Clock;
  rateLimiter?: RateLimiter;
  metrics?: QueueMetricsSink;
}

export interface WorkQueueStats {
  /** Keys waiting for a worker. */
  depth: number;
  /** Keys held by workers. */
  processing: number;
  /** Keys scheduled by addAfter/addRateLimited that are not due yet. */
  waiting: number;
  /** Keys accepted since the queue was created. */
  adds: number;
  /** Rate-limited requeues since the queue was created. */
  retries: number;
}

interface Delayed {
  readyAt: number;
  timer: Timer;
}

export class WorkQueue {
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter;
  readonly #metrics: QueueMetricsSink | undefined;

  // FIFO of keys waiting for a worker: an array consumed from #head, compacted lazily.
  #fifo: string[] = [];
  #head = 0;
  /** Keys that need processing, with when they were queued (queued or held by a worker). */
  readonly #dirty = new Map<string, number>();
  /** Keys held by a worker, with when it got them. */
  readonly #processing = new Map<string, number>();
  readonly #delayed = new Map<string, Delayed>();
  #getters: Array<(key: string | undefined) => void> = [];
  #drainers: Array<() => void> = [];
  #shuttingDown = false;
  #adds = 0;
  #retries = 0;

  constructor(opts: WorkQueueOptions = {}) {
    this.#clock = opts.clock ?? realClock;
    this.#rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter(this.#clock);
    this.#metrics = opts.metrics;
  }

  /** Queues key unless it is already waiting; ignored after shutDown(). */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#adds++;
    this.#metrics?.added();
    this.#dirty.set(key, this.#clock.now());
    // A key being processed is queued again by done(), never handed out twice.
    if (this.#processing.has(key)) return;
    this.#fifo.push(key);
    this.#dispatch();
  }

  /** Queues key after ms; with several pending delays for one key, the earliest wins. */
  addAfter(key: string, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const readyAt = this.#clock.now() + ms;
    const pending = this.#delayed.get(key);
    if (pending !== undefined) {
      if (pending.readyAt <= readyAt) return;
      pending.timer.cancel();
    }
    const timer = this.#clock.setTimer(ms, () => {
      this.#delayed.delete(key);
      this.add(key);
    });
    this.#delayed.set(key, { readyAt, timer });
  }

  /** Queues key after the rate limiter's delay for it (a retry). */
  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.#retries++;
    this.#metrics?.retried();
    this.addAfter(key, this.#rateLimiter.when(key));
  }

  /** Resets key's retry backoff (call after it was processed successfully). */
  forget(key: string): void {
    this.#rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#rateLimiter.numRequeues(key);
  }

  /**
   * The next key to process, waiting for one if needed; undefined once the queue is shut
   * down or signal aborts. The caller must call done(key) when it is finished with it.
   */
  get(signal?: AbortSignal): Promise<string | undefined> {
    if (this.#shuttingDown || signal?.aborted) return Promise.resolve(undefined);
    const key = this.#take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => {
      const getter = (k: string | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(k);
      };
      const onAbort = (): void => {
        this.#getters = this.#getters.filter((g) => g !== getter);
        resolve(undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#getters.push(getter);
    });
  }

  /** Ends processing of key; requeues it if it was added meanwhile. */
  done(key: string): void {
    const startedAt = this.#processing.get(key);
    if (startedAt === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.workDuration(this.#clock.now() - startedAt);
    if (this.#dirty.has(key) && !this.#shuttingDown) {
      this.#fifo.push(key);
      this.#dispatch();
    }
    if (this.#processing.size === 0) this.#resolveDrainers();
  }

  /**
   * Stops the queue: adds are ignored, pending delays are cancelled, waiting getters and
   * later get() calls receive undefined. Keys already held by workers stay held until done().
   */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const d of this.#delayed.values()) d.timer.cancel();
    this.#delayed.clear();
    const getters = this.#getters;
    this.#getters = [];
    for (const g of getters) g(undefined);
    if (this.#processing.size === 0) this.#resolveDrainers();
  }

  /** Resolves when no key is held by a worker (after shutDown: when in-flight work ended). */
  drained(): Promise<void> {
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainers.push(resolve));
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Keys waiting for a worker. */
  len(): number {
    return this.#fifo.length - this.#head;
  }

  stats(): WorkQueueStats {
    return {
      depth: this.len(),
      processing: this.#processing.size,
      waiting: this.#delayed.size,
      adds: this.#adds,
      retries: this.#retries,
    };
  }

  /** How long the longest-held key has been held, ms (stuck-worker detection). */
  longestRunningMs(): number {
    const now = this.#clock.now();
    let longest = 0;
    for (const since of this.#processing.values()) longest = Math.max(longest, now - since);
    return longest;
  }

  /** Sum of how long every held key has been held, ms (workqueue_unfinished_work_seconds). */
  unfinishedWorkMs(): number {
    const now = this.#clock.now();
    let total = 0;
    for (const since of this.#processing.values()) total += now - since;
    return total;
  }

  #take(): string | undefined {
    if (this.#head >= this.#fifo.length) return undefined;
    const key = this.#fifo[this.#head++] as string;
    if (this.#head > 1024 && this.#head * 2 > this.#fifo.length) {
      this.#fifo = this.#fifo.slice(this.#head);
      this.#head = 0;
    }
    const queuedAt = this.#dirty.get(key) ?? this.#clock.now();
    this.#dirty.delete(key);
    const now = this.#clock.now();
    this.#processing.set(key, now);
    this.#metrics?.queueLatency(now - queuedAt);
    this.#metrics?.depth(this.len());
    return key;
  }

  #dispatch(): void {
    while (this.#getters.length > 0 && this.len() > 0) {
      const getter = this.#getters.shift() as (key: string | undefined) => void;
      getter(this.#take());
    }
    this.#metrics?.depth(this.len());
  }

  #resolveDrainers(): void {
    const drainers = this.#drainers;
    this.#drainers = [];
    for (const d of drainers) d();
  }
}
