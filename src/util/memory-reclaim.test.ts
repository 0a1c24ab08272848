import { expect } from 'chai';
import { ManualClock } from './clock.js';
import { reclaimingGc, startMemoryReclaim } from './memory-reclaim.js';

const MiB = 1024 * 1024;

/** A process whose CPU and RSS the test sets; reclaim() drops RSS to `settled`. */
function fakeProcess() {
  const p = {
    cpu: 0,
    rss: 80 * MiB,
    settled: 70 * MiB,
    reclaims: [] as Array<[number, number]>,
  };
  const clock = new ManualClock(0);
  const stop = startMemoryReclaim(
    {
      clock,
      cpuSeconds: () => p.cpu,
      rss: () => p.rss,
      reclaim: () => {
        p.rss = p.settled;
        p.cpu += 0.05;
      },
      reclaimed: (before, after) => p.reclaims.push([before / MiB, after / MiB]),
    },
    { intervalMs: 10_000 },
  );
  return { p, clock, stop };
}

describe('util/memory-reclaim', () => {
  it('reclaims once, in the first quiet period after a busy one, and not while busy', async () => {
    const { p, clock, stop } = fakeProcess();
    // Busy: 5 s of CPU in each of two 10-s periods (a sync), RSS growing.
    p.cpu += 5;
    p.rss = 120 * MiB;
    await clock.advance(10_000);
    p.cpu += 5;
    p.rss = 130 * MiB;
    await clock.advance(10_000);
    expect(p.reclaims, 'nothing while busy').to.deep.equal([]);
    // Quiet: 0.01 s of CPU in 10 s.
    p.cpu += 0.01;
    await clock.advance(10_000);
    expect(p.reclaims).to.deep.equal([[130, 70]]);
    // Quiet on: nothing more (the collection's own CPU is not taken for work).
    await clock.advance(60_000);
    expect(p.reclaims).to.have.length(1);
    stop();
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('skips a burst that left RSS within minGrowthBytes of the last reclaim, and never runs idle', async () => {
    const { p, clock, stop } = fakeProcess();
    await clock.advance(60_000);
    expect(p.reclaims, 'idle from the start').to.deep.equal([]);
    p.cpu += 2;
    p.rss = 82 * MiB;
    await clock.advance(20_000);
    expect(p.reclaims, 'grew 2 MiB only').to.deep.equal([]);
    p.cpu += 2;
    p.rss = 100 * MiB;
    await clock.advance(20_000);
    expect(p.reclaims).to.deep.equal([[100, 70]]);
    stop();
  });

  it('runs a real last-resort collection without --expose-gc on the command line', () => {
    expect((globalThis as { gc?: unknown }).gc, 'no global gc in the test process').to.equal(
      undefined,
    );
    reclaimingGc();
    reclaimingGc();
    expect((globalThis as { gc?: unknown }).gc, 'the global scope is left alone').to.equal(
      undefined,
    );
  });
});
