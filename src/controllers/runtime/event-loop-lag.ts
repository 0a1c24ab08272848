// prom-client's event-loop lag metrics (`nodejs_eventloop_lag_*_seconds`, same names and
// meanings), sampled only while the process works.
//
// perf_hooks' monitorEventLoopDelay samples on a timer: every sample wakes the main thread. At
// 100 ms that was 600 wakeups a minute and most of an idle controller's CPU: 0.04 to 0.05 s a
// minute, against 0.01 s with the sampler at 1 s (bench/idle-cpu.ts, docs/runtime.md "Idle").
// A stall needs work, and work collects garbage: the sampler is enabled by any garbage
// collection and disabled after `quietMs` without one, so an idle process has no sampling
// timer, and a busy one keeps the 100 ms resolution (a stall of 100 ms or more always seen).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Clock, Timer } from '../../util/clock.js';

/** What of perf_hooks' IntervalHistogram the metrics read. */
export interface LagSampler {
  enable(): boolean;
  disable(): boolean;
  reset(): void;
  readonly count: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly stddev: number;
  percentile(p: number): number;
}

export interface EventLoopLagDeps {
  clock: Pick<Clock, 'setTimer'>;
  /** Subscribes to activity (garbage collections); returns the unsubscribe function. */
  onActivity(poke: () => void): () => void;
  /** Default: monitorEventLoopDelay at `resolutionMs`. */
  sampler?: LagSampler;
}

export interface EventLoopLagOptions {
  /** Sampling period while sampling. */
  resolutionMs: number;
  /** Sampling stops after this long without activity. */
  quietMs: number;
}

/** prom-client's eventLoopLag names, for replacing them in a registry. */
export const EVENT_LOOP_LAG_METRICS = [
  'nodejs_eventloop_lag_seconds',
  'nodejs_eventloop_lag_min_seconds',
  'nodejs_eventloop_lag_max_seconds',
  'nodejs_eventloop_lag_mean_seconds',
  'nodejs_eventloop_lag_stddev_seconds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p90_seconds',
  'nodejs_eventloop_lag_p99_seconds',
] as const;

/** Registers the lag gauges on `registry`; returns the stop function. */
export function registerEventLoopLag(
  registry: Registry,
  deps: EventLoopLagDeps,
  opts: EventLoopLagOptions,
): () => void {
  const sampler = deps.sampler ?? monitorEventLoopDelay({ resolution: opts.resolutionMs });
  let sampling = false;
  let active = false;
  let timer: Timer | undefined;
  let stopped = false;
  const quietCheck = (): void => {
    timer = undefined;
    if (stopped) return;
    if (active) {
      active = false;
      timer = deps.clock.setTimer(opts.quietMs, quietCheck);
      return;
    }
    sampler.disable();
    sampling = false;
  };
  const poke = (): void => {
    if (stopped) return;
    active = true;
    if (!sampling) {
      sampler.enable();
      sampling = true;
    }
    if (timer === undefined) {
      active = false;
      timer = deps.clock.setTimer(opts.quietMs, quietCheck);
    }
  };
  const unsubscribe = deps.onActivity(poke);
  poke(); // start-up is work

  // Registered first, as prom-client does: a scrape runs its collect, which sets the others,
  // before it reads them.
  new Gauge({
    name: EVENT_LOOP_LAG_METRICS[0],
    help: 'Lag of event loop in seconds.',
    registers: [registry],
    aggregator: 'average',
    collect() {
      // As prom-client: this scrape's own wait for the event loop.
      const start = process.hrtime.bigint();
      setImmediate(() => this.set(Number(process.hrtime.bigint() - start) / 1e9));
      // Since the last scrape; no samples (idle, not sampling): no delay seen, 0.
      const seen = sampler.count > 0;
      const s = (ns: number) => (seen ? ns / 1e9 : 0);
      lagMin.set(s(sampler.min));
      lagMax.set(s(sampler.max));
      lagMean.set(s(sampler.mean));
      lagStddev.set(s(sampler.stddev));
      lagP50.set(s(sampler.percentile(50)));
      lagP90.set(s(sampler.percentile(90)));
      lagP99.set(s(sampler.percentile(99)));
      sampler.reset();
    },
  });
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, registers: [registry], aggregator: 'max' });
  const [, minName, maxName, meanName, stddevName, p50Name, p90Name, p99Name] =
    EVENT_LOOP_LAG_METRICS;
  const lagMin = gauge(minName, 'The minimum recorded event loop delay.');
  const lagMax = gauge(maxName, 'The maximum recorded event loop delay.');
  const lagMean = gauge(meanName, 'The mean of the recorded event loop delays.');
  const lagStddev = gauge(stddevName, 'The standard deviation of the recorded event loop delays.');
  const lagP50 = gauge(p50Name, 'The 50th percentile of the recorded event loop delays.');
  const lagP90 = gauge(p90Name, 'The 90th percentile of the recorded event loop delays.');
  const lagP99 = gauge(p99Name, 'The 99th percentile of the recorded event loop delays.');
  return () => {
    stopped = true;
    unsubscribe();
    timer?.cancel();
    timer = undefined;
    sampler.disable();
  };
}
