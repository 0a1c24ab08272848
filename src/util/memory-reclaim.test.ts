import { expect } from 'chai';
import { ManualClock } from './clock.js';
import { onGarbageCollection } from './gc-activity.js';
import { reclaimingGc, startMemoryReclaim } from './memory-reclaim.js';

const MiB = 1024 * 1024;

/** A process whose CPU, RSS and activity the test sets; reclaim() drops RSS to `settled`. */
function fakeProcess() {
  const p = {
    cpu: 0,
    rss: 80 * MiB,
    settled: 70 * MiB,
    reclaims: [] as Array<[number, number]>,
    poke: () => undefined as void,
  };
  const clock = new ManualClock(0);
  const reclaimer = startMemoryReclaim(
    {
      clock,
      cpuSeconds: () => p.cpu,
      rss: () => p.rss,
      reclaim: () => {
        p.rss = p.settled;
        p.cpu += 0.05;
      },
      reclaimed: (before, after) => p.reclaims.push([before / MiB, after / MiB]),
      onActivity: (poke) => {
        p.poke = poke;
        return () => (p.poke = () => undefined);
      },
    },
    { intervalMs: 2_000 },
  );
  return { p, clock, stop: () => reclaimer.stop(), reclaimer };
}

describe('util/memory-reclaim', () => {
  it('after activity, reclaims once in the first quiet period, not while busy', async () => {
    const { p, clock, stop } = fakeProcess();
    // A sync: collections (pokes) and 1 s of CPU in each of two 2-s periods, RSS growing.
    p.poke();
    p.cpu += 1;
    p.rss = 120 * MiB;
    await clock.advance(2_000);
    p.poke();
    p.cpu += 1;
    p.rss = 130 * MiB;
    await clock.advance(2_000);
    expect(p.reclaims, 'nothing while busy').to.deep.equal([]);
    // Quiet: 0.01 s of CPU in 2 s.
    p.cpu += 0.01;
    await clock.advance(2_000);
    expect(p.reclaims).to.deep.equal([[130, 70]]);
    // The reclaim's own collections poke once more: a quiet check with no growth ends it.
    p.poke();
    await clock.advance(60_000);
    expect(p.reclaims).to.have.length(1);
    expect(clock.pendingTimers(), 'no timer once quiet').to.equal(0);
    stop();
  });

  it('has no timer while nothing happens, and skips a burst that grew RSS under minGrowthBytes', async () => {
    const { p, clock, stop } = fakeProcess();
    await clock.advance(60_000);
    expect(clock.pendingTimers(), 'idle from the start: no timer').to.equal(0);
    expect(p.reclaims).to.deep.equal([]);
    p.poke();
    p.cpu += 0.5;
    p.rss = 82 * MiB;
    await clock.advance(4_000);
    expect(p.reclaims, 'grew 2 MiB only').to.deep.equal([]);
    expect(clock.pendingTimers()).to.equal(0);
    p.poke();
    p.cpu += 0.5;
    p.rss = 100 * MiB;
    await clock.advance(4_000);
    expect(p.reclaims).to.deep.equal([[100, 70]]);
    stop();
  });

  it('stops: no timer and no reclaim after stop, even when poked', async () => {
    const { p, clock, stop } = fakeProcess();
    p.poke();
    p.rss = 200 * MiB;
    stop();
    p.poke();
    await clock.advance(10_000);
    expect(p.reclaims).to.deep.equal([]);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('reclaims before a burst when the last one left RSS grown, without waiting for quiet', () => {
    const { p, reclaimer, stop } = fakeProcess();
    p.rss = 82 * MiB;
    reclaimer.beforeBurst();
    expect(p.reclaims, 'grew 2 MiB only').to.deep.equal([]);
    p.rss = 140 * MiB;
    reclaimer.beforeBurst();
    expect(p.reclaims).to.deep.equal([[140, 70]]);
    reclaimer.beforeBurst();
    expect(p.reclaims, 'nothing grew since').to.have.length(1);
    stop();
  });

  it('hears of real garbage collections', async () => {
    let pokes = 0;
    const unsubscribe = onGarbageCollection(() => pokes++);
    try {
      reclaimingGc();
      const deadline = Date.now() + 5_000;
      while (pokes === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(pokes).to.be.greaterThan(0);
    } finally {
      unsubscribe();
    }
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
