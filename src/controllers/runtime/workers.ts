// The worker loop over a WorkQueue, after controller-runtime's reconcileHandler: a
// reconciler gets a key and returns a result; the loop turns the result into the next
// queue operation, so reconcilers never touch the queue.
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { WorkQueue } from './queue.js';
import { isTerminal } from '../../util/errors.js';
import { KeyInterrupts } from './interrupts.js';

/** What a reconcile asks for next (controller-runtime's reconcile.Result). */
export interface ReconcileResult {
  /** Reconcile the key again after the rate limiter's delay (a retry without an error). */
  requeue?: boolean;
  /** Reconcile the key again after this many ms (e.g. a poll interval); resets backoff. */
  requeueAfter?: number;
}

/**
 * Reconciles one key. signal aborts on shutdown: the reconciler finishes or rolls back
 * its in-flight work promptly and returns or throws. interrupted aborts when this key's work
 * became moot (KeyInterrupts.interrupt: the object was deleted or changed): the reconciler
 * stops what can be stopped safely and throws; the key is reconciled again at once.
 */
export type Reconciler = (
  key: string,
  signal: AbortSignal,
  interrupted: AbortSignal,
) => Promise<ReconcileResult | void>;

// A TerminalError anywhere in a reconcile error's cause chain: the key is reported and not
// requeued. Any other error requeues the key with backoff.
export { isTerminal, TerminalError } from '../../util/errors.js';

/** controller-runtime's reconcile_total result label values. */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

export interface ReconcileObserver {
  /** Called once per reconcile, after it returned or threw. */
  reconciled(key: string, outcome: ReconcileResultLabel, durationMs: number, error?: unknown): void;
}

export interface RunWorkersOptions {
  clock?: Clock;
  observer?: ReconcileObserver;
  /** Where a key's reconcile in flight can be interrupted from outside. */
  interrupts?: KeyInterrupts;
}

/**
 * Runs `concurrency` workers that take keys from queue and reconcile them, until signal
 * aborts. On abort the queue is shut down (queued keys are dropped: they are level state
 * and the next leader or start re-lists them), in-flight reconciles see the abort, and
 * the returned promise resolves once every one of them has returned.
 */
export async function runWorkers(
  queue: WorkQueue,
  concurrency: number,
  reconcile: Reconciler,
  signal: AbortSignal,
  opts: RunWorkersOptions = {},
): Promise<void> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`worker concurrency must be a positive integer, got ${concurrency}`);
  }
  const clock = opts.clock ?? realClock;
  const interrupts = opts.interrupts ?? new KeyInterrupts();
  const stop = (): void => queue.shutDown();
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });

  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      const interrupted = interrupts.begin(key);
      try {
        await reconcileOne(queue, key, reconcile, signal, interrupted, clock, opts.observer);
      } finally {
        interrupts.end(key);
        queue.done(key);
      }
    }
  };

  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    await queue.drained();
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

async function reconcileOne(
  queue: WorkQueue,
  key: string,
  reconcile: Reconciler,
  signal: AbortSignal,
  interrupted: AbortSignal,
  clock: Clock,
  observer: ReconcileObserver | undefined,
): Promise<void> {
  const started = clock.now();
  let result: ReconcileResult | void;
  try {
    result = await reconcile(key, signal, interrupted);
  } catch (err) {
    // Interrupted: not a failure of the key, whose new state is reconciled at once.
    if (interrupted.aborted && !signal.aborted) {
      queue.forget(key);
      queue.add(key);
      observer?.reconciled(key, 'requeue', clock.now() - started);
      return;
    }
    if (isTerminal(err)) queue.forget(key);
    else queue.addRateLimited(key);
    observer?.reconciled(key, 'error', clock.now() - started, err);
    return;
  }
  const elapsed = clock.now() - started;
  if (result?.requeueAfter !== undefined && result.requeueAfter > 0) {
    queue.forget(key);
    queue.addAfter(key, result.requeueAfter);
    observer?.reconciled(key, 'requeue_after', elapsed);
  } else if (result?.requeue) {
    queue.addRateLimited(key);
    observer?.reconciled(key, 'requeue', elapsed);
  } else {
    queue.forget(key);
    observer?.reconciled(key, 'success', elapsed);
  }
}
