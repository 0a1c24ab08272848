// Prometheus metrics in a registry of our own (never prom-client's global one, so that
// tests and several controllers in one process do not collide). The runtime's metrics
// keep controller-runtime's and client-go's names, so existing dashboards and alerts for
// Go controllers work unchanged; domain metrics are registered by their owners through
// newCounter/newGauge/newHistogram on the same registry.
import type { CounterConfiguration, GaugeConfiguration, HistogramConfiguration } from 'prom-client';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueMetricsSink, WorkQueue } from './queue.js';
import type { ReconcileObserver, ReconcileResultLabel } from './workers.js';
import { isTerminal } from '../../util/errors.js';
import { realClock } from '../../util/clock.js';
import { onGarbageCollection } from '../../util/gc-activity.js';
import { EVENT_LOOP_LAG_METRICS, registerEventLoopLag } from './event-loop-lag.js';

export interface MetricsRegistryOptions {
  /** Process metrics (RSS, heap, event-loop lag, GC); default true. */
  processMetrics?: boolean;
  /** The event-loop lag sampling period (default EVENT_LOOP_SAMPLE_MS). */
  eventLoopSampleMs?: number;
  /** The event-loop lag stops sampling after this long without a garbage collection. */
  eventLoopQuietMs?: number;
}

/**
 * How often the event-loop lag (`nodejs_eventloop_lag_*_seconds`, perf_hooks
 * monitorEventLoopDelay) is sampled. Each sample wakes the process: prom-client's default,
 * 10 ms, was 6,000 wakeups a minute and nearly all of an idle controller's CPU (0.24 of its
 * 0.25 s a minute, docs/runtime.md "Idle"). At 100 ms a stall of 100 ms or more is always seen
 * (read up to 100 ms short); a shorter one may be missed. It samples only while the process
 * works (event-loop-lag.ts).
 */
export const EVENT_LOOP_SAMPLE_MS = 100;
/** Sampling stops this long after the last garbage collection. */
export const EVENT_LOOP_QUIET_MS = 2_000;
/**
 * prom-client's own lag sampler cannot be left out of its default metrics: it is given a period
 * it never reaches (about 24 days), and its gauges are replaced by event-loop-lag.ts's.
 */
const NEVER_MS = 2 ** 31 - 1;

export function createMetricsRegistry(opts: MetricsRegistryOptions = {}): Registry {
  const registry = new Registry();
  if (opts.processMetrics ?? true) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: NEVER_MS });
    for (const name of EVENT_LOOP_LAG_METRICS) registry.removeSingleMetric(name);
    registerEventLoopLag(
      registry,
      { clock: realClock, onActivity: onGarbageCollection },
      {
        resolutionMs: opts.eventLoopSampleMs ?? EVENT_LOOP_SAMPLE_MS,
        quietMs: opts.eventLoopQuietMs ?? EVENT_LOOP_QUIET_MS,
      },
    );
  }
  return registry;
}

export function newCounter<L extends string>(
  registry: Registry,
  config: Omit<CounterConfiguration<L>, 'registers'>,
): Counter<L> {
  return new Counter<L>({ ...config, registers: [registry] });
}

function newGauge<L extends string>(
  registry: Registry,
  config: Omit<GaugeConfiguration<L>, 'registers'>,
): Gauge<L> {
  return new Gauge<L>({ ...config, registers: [registry] });
}

function newHistogram<L extends string>(
  registry: Registry,
  config: Omit<HistogramConfiguration<L>, 'registers'>,
): Histogram<L> {
  return new Histogram<L>({ ...config, registers: [registry] });
}

// controller-runtime's reconcile-time buckets, extended to 10 min: a cold sync of a large
// catalog takes minutes.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1,
  1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60, 120, 300,
  600,
];
// 1 ms to ~17 min, ×10 per bucket.
const QUEUE_BUCKETS = [0.001, 0.01, 0.1, 1, 10, 100, 1000];

/** A component whose leadership the leader gauge reports (LeaderElector). */
export interface LeadershipSource {
  isLeader(): boolean;
}

/**
 * The runtime's standard metrics, registered once per registry: reconciles by result and
 * duration, work-queue depth/adds/retries/latencies, and leader status. Hand out
 * reconcileObserver() to runWorkers and queueSink() to a WorkQueue.
 */
export class RuntimeMetrics {
  readonly #reconcileTotal: Counter<'controller' | 'result'>;
  readonly #reconcileErrors: Counter<'controller'>;
  readonly #terminalErrors: Counter<'controller'>;
  readonly #reconcileTime: Histogram<'controller'>;
  readonly #depth: Gauge<'name'>;
  readonly #adds: Counter<'name'>;
  readonly #retries: Counter<'name'>;
  readonly #queueDuration: Histogram<'name'>;
  readonly #workDuration: Histogram<'name'>;
  readonly #queues = new Map<string, WorkQueue>();
  readonly #leaders = new Map<string, LeadershipSource>();

  constructor(readonly registry: Registry) {
    this.#reconcileTotal = newCounter(registry, {
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller, by result',
      labelNames: ['controller', 'result'],
    });
    this.#reconcileErrors = newCounter(registry, {
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
    });
    this.#terminalErrors = newCounter(registry, {
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors (not retried) per controller',
      labelNames: ['controller'],
    });
    this.#reconcileTime = newHistogram(registry, {
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
    });
    const queues = this.#queues;
    this.#depth = newGauge(registry, {
      name: 'workqueue_depth',
      help: 'Current depth of the work queue',
      labelNames: ['name'],
    });
    this.#adds = newCounter(registry, {
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by the work queue',
      labelNames: ['name'],
    });
    this.#retries = newCounter(registry, {
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by the work queue',
      labelNames: ['name'],
    });
    this.#queueDuration = newHistogram(registry, {
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in the work queue before being requested',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
    });
    this.#workDuration = newHistogram(registry, {
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from the work queue takes',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
    });
    newGauge(registry, {
      name: 'workqueue_unfinished_work_seconds',
      help: 'Seconds of work in progress not yet observed by work_duration; large values indicate stuck workers',
      labelNames: ['name'],
      collect() {
        for (const [name, q] of queues) this.set({ name }, q.unfinishedWorkMs() / 1000);
      },
    });
    newGauge(registry, {
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds the longest running work-queue processor has been running',
      labelNames: ['name'],
      collect() {
        for (const [name, q] of queues) this.set({ name }, q.longestRunningMs() / 1000);
      },
    });
    const leaders = this.#leaders;
    newGauge(registry, {
      name: 'leader_election_master_status',
      help: '1 while this process leads the named lease, 0 otherwise',
      labelNames: ['name'],
      collect() {
        for (const [name, l] of leaders) this.set({ name }, l.isLeader() ? 1 : 0);
      },
    });
  }

  /** Counts and times the reconciles of one controller (pass to runWorkers). */
  reconcileObserver(controller: string): ReconcileObserver {
    const labels = { controller };
    for (const result of ['success', 'error', 'requeue', 'requeue_after'] as const) {
      this.#reconcileTotal.inc({ controller, result }, 0); // export zeros, so rate() works
    }
    this.#reconcileErrors.inc(labels, 0);
    this.#terminalErrors.inc(labels, 0);
    return {
      reconciled: (
        _key: string,
        outcome: ReconcileResultLabel,
        durationMs: number,
        error?: unknown,
      ) => {
        this.#reconcileTotal.inc({ controller, result: outcome });
        this.#reconcileTime.observe(labels, durationMs / 1000);
        if (outcome === 'error') {
          this.#reconcileErrors.inc(labels);
          if (isTerminal(error)) this.#terminalErrors.inc(labels);
        }
      },
    };
  }

  /** Metrics sink for a WorkQueue named name (pass as WorkQueueOptions.metrics). */
  queueSink(name: string): QueueMetricsSink {
    const labels = { name };
    this.#depth.set(labels, 0);
    this.#adds.inc(labels, 0);
    this.#retries.inc(labels, 0);
    return {
      added: () => this.#adds.inc(labels),
      depth: (n) => this.#depth.set(labels, n),
      retried: () => this.#retries.inc(labels),
      queueLatency: (ms) => this.#queueDuration.observe(labels, ms / 1000),
      workDuration: (ms) => this.#workDuration.observe(labels, ms / 1000),
    };
  }

  /** Reports the queue's in-flight work (unfinished and longest-running) at scrape time. */
  watchQueue(name: string, queue: WorkQueue): void {
    this.#queues.set(name, queue);
  }

  /** Reports leader status of the named lease at scrape time. */
  watchLeadership(name: string, source: LeadershipSource): void {
    this.#leaders.set(name, source);
  }
}
