import { expect } from 'chai';
import { Registry } from 'prom-client';
import { ManualClock } from '../../util/clock.js';
import { EVENT_LOOP_LAG_METRICS, registerEventLoopLag } from './event-loop-lag.js';
import type { LagSampler } from './event-loop-lag.js';
import { createMetricsRegistry } from './metrics.js';

/** A sampler the test fills; records whether it is enabled. */
function fakeSampler() {
  const s = {
    enabled: false,
    samples: [] as number[],
    enable() {
      const was = s.enabled;
      s.enabled = true;
      return !was;
    },
    disable() {
      const was = s.enabled;
      s.enabled = false;
      return was;
    },
    reset() {
      s.samples = [];
    },
    get count() {
      return s.samples.length;
    },
    get min() {
      return s.samples.length ? Math.min(...s.samples) : 9223372036854776000;
    },
    get max() {
      return Math.max(0, ...s.samples);
    },
    get mean() {
      return s.samples.length ? s.samples.reduce((a, b) => a + b, 0) / s.samples.length : NaN;
    },
    stddev: 0,
    percentile: () => (s.samples.length ? Math.max(...s.samples) : 0),
  };
  return s satisfies LagSampler;
}

function setup() {
  const clock = new ManualClock(0);
  const sampler = fakeSampler();
  let poke = () => undefined as void;
  const registry = new Registry();
  const stop = registerEventLoopLag(
    registry,
    {
      clock,
      sampler,
      onActivity: (p) => {
        poke = p;
        return () => (poke = () => undefined);
      },
    },
    { resolutionMs: 100, quietMs: 10_000 },
  );
  /** One scrape (every metric's collect, in registration order): name → value. */
  const scrape = async () =>
    new Map((await registry.getMetricsAsJSON()).map((m) => [m.name, m.values[0]?.value]));
  return { clock, sampler, registry, stop, poke: () => poke(), scrape };
}

describe('runtime/event-loop-lag', () => {
  it('samples while garbage is collected and stops quietMs after the last collection', async () => {
    const { clock, sampler, poke, stop } = setup();
    expect(sampler.enabled, 'start-up is work').to.equal(true);
    await clock.advance(6_000);
    poke();
    await clock.advance(6_000);
    expect(sampler.enabled, '6 s after a collection').to.equal(true);
    await clock.advance(10_000);
    expect(sampler.enabled, 'quiet for 10 s').to.equal(false);
    expect(clock.pendingTimers(), 'no timer while idle').to.equal(0);
    poke();
    expect(sampler.enabled, 'work again').to.equal(true);
    stop();
    expect(sampler.enabled).to.equal(false);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('reports the delays since the last scrape in seconds, and 0 when nothing was sampled', async () => {
    const { sampler, scrape, stop } = setup();
    sampler.samples = [0.1e9, 0.25e9];
    const first = await scrape();
    expect(first.get('nodejs_eventloop_lag_max_seconds')).to.equal(0.25);
    expect(first.get('nodejs_eventloop_lag_min_seconds')).to.equal(0.1);
    // The scrape reset it: nothing since.
    const second = await scrape();
    expect(second.get('nodejs_eventloop_lag_max_seconds')).to.equal(0);
    expect(second.get('nodejs_eventloop_lag_min_seconds')).to.equal(0);
    expect(second.get('nodejs_eventloop_lag_mean_seconds')).to.equal(0);
    stop();
  });

  it("replaces prom-client's lag metrics in the default registry, each once", async () => {
    const text = await createMetricsRegistry().metrics();
    for (const name of EVENT_LOOP_LAG_METRICS)
      expect(text.split('\n').filter((l) => l.startsWith(`# TYPE ${name} `))).to.have.length(1);
    expect(text).to.include('process_resident_memory_bytes');
  });
});
