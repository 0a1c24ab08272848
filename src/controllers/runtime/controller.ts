// A controller: informers' keys → a work queue → workers running a reconciler (kube-rs's
// Controller, controller-runtime's Controller). It only wires the runtime's parts; the
// reconciler holds the domain logic.
//
// Informers are run by the caller, not by the controller, so that every replica keeps its
// caches warm (readiness, fast failover) while only the leader runs controllers.
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type {
  AddPredicate,
  DeletePredicate,
  Informer,
  KeyMapper,
  UpdatePredicate,
} from './informer.js';
import type { RuntimeMetrics } from './metrics.js';
import type { WorkQueueOptions } from './queue.js';
import { WorkQueue } from './queue.js';
import type { RateLimiter } from './ratelimiter.js';
import { KeyInterrupts } from './interrupts.js';
import type { ReconcileObserver, ReconcileResultLabel, Reconciler } from './workers.js';
import { runWorkers } from './workers.js';

/** One informer and how its objects map to the controller's keys, with the item type erased. */
export interface WatchSource {
  readonly name: string;
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  subscribe(enqueue: (key: string) => void): () => void;
}

/**
 * Pairs an informer with the mapping from its objects to keys to reconcile; `updated`, `added`
 * and `deleted`, when given, drop updates, additions and deletions that do not matter (e.g. the
 * controller's own writes).
 */
export function watch<T>(
  informer: Informer<T>,
  map: KeyMapper<T>,
  updated?: UpdatePredicate<T>,
  added?: AddPredicate<T>,
  deleted?: DeletePredicate<T>,
): WatchSource {
  return {
    name: informer.name,
    hasSynced: () => informer.hasSynced(),
    waitForSync: (signal) => informer.waitForSync(signal),
    subscribe: (enqueue) => informer.subscribe(map, enqueue, updated, added, deleted),
  };
}

export interface ControllerOptions {
  /** Names the queue and the metrics labels (e.g. "clustercatalog"). */
  name: string;
  reconcile: Reconciler;
  watches: WatchSource[];
  /** Workers; a key is never reconciled by two at once (default 1). */
  concurrency?: number;
  clock?: Clock;
  rateLimiter?: RateLimiter;
  metrics?: RuntimeMetrics;
  /** Called after every reconcile (logging). */
  onReconciled?: ReconcileObserver['reconciled'];
}

export class Controller {
  readonly name: string;
  readonly #opts: ControllerOptions;
  readonly #clock: Clock;
  #queue: WorkQueue | undefined;
  readonly #interrupts = new KeyInterrupts();

  constructor(opts: ControllerOptions) {
    this.name = opts.name;
    this.#opts = opts;
    this.#clock = opts.clock ?? realClock;
  }

  /** The queue of the current run (undefined before the first); for enqueueing from outside. */
  get queue(): WorkQueue | undefined {
    return this.#queue;
  }

  /**
   * Aborts the interrupted signal of key's reconcile in flight (e.g. its object was deleted or
   * its spec changed, so the work in flight is moot); returns whether one was in flight.
   */
  interrupt(key: string, why: string): boolean {
    return this.#interrupts.interrupt(key, why);
  }

  /**
   * Subscribes to the watches, waits until every one has synced (reconciling against a
   * partial cache would delete or recreate what it has not seen yet), then reconciles
   * until signal aborts and every in-flight reconcile has returned. Each run gets a fresh
   * queue, so a controller can run again after losing and regaining leadership.
   */
  async run(signal: AbortSignal): Promise<void> {
    const { name, metrics } = this.#opts;
    const queueOpts: WorkQueueOptions = { clock: this.#clock };
    if (this.#opts.rateLimiter) queueOpts.rateLimiter = this.#opts.rateLimiter;
    if (metrics) queueOpts.metrics = metrics.queueSink(name);
    const queue = new WorkQueue(queueOpts);
    this.#queue = queue;
    metrics?.watchQueue(name, queue);

    const unsubscribe = this.#opts.watches.map((w) => w.subscribe((key) => queue.add(key)));
    try {
      const synced = await Promise.all(this.#opts.watches.map((w) => w.waitForSync(signal)));
      if (signal.aborted || synced.includes(false)) return;
      await runWorkers(queue, this.#opts.concurrency ?? 1, this.#opts.reconcile, signal, {
        clock: this.#clock,
        observer: this.#observer(),
        interrupts: this.#interrupts,
      });
    } finally {
      for (const u of unsubscribe) u();
      queue.shutDown();
    }
  }

  #observer(): ReconcileObserver {
    const observers: ReconcileObserver[] = [];
    if (this.#opts.metrics) observers.push(this.#opts.metrics.reconcileObserver(this.name));
    const onReconciled = this.#opts.onReconciled;
    if (onReconciled) observers.push({ reconciled: onReconciled });
    return {
      reconciled: (key: string, outcome: ReconcileResultLabel, ms: number, error?: unknown) => {
        for (const o of observers) o.reconciled(key, outcome, ms, error);
      },
    };
  }
}
