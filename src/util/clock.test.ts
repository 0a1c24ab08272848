import { expect } from 'chai';
import { ManualClock, pollEvery, RealClock } from './clock.js';

describe('ManualClock', () => {
  it('fires due timers in due-time order, moving now() to each due time', async () => {
    const clock = new ManualClock(1000);
    const fired: Array<[string, number]> = [];
    clock.setTimer(30, () => fired.push(['c', clock.now()]));
    clock.setTimer(10, () => fired.push(['a', clock.now()]));
    clock.setTimer(10, () => fired.push(['b', clock.now()]));
    clock.setTimer(100, () => fired.push(['late', clock.now()]));
    await clock.advance(50);
    expect(fired).to.deep.equal([
      ['a', 1010],
      ['b', 1010],
      ['c', 1030],
    ]);
    expect(clock.now()).to.equal(1050);
    expect(clock.pendingTimers()).to.equal(1);
    expect(clock.nextTimerIn()).to.equal(50);
  });

  it('does not fire cancelled timers', async () => {
    const clock = new ManualClock();
    let fired = false;
    const t = clock.setTimer(5, () => (fired = true));
    t.cancel();
    await clock.advance(10);
    expect(fired).to.equal(false);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('fires timers re-armed from promise continuations within the same advance', async () => {
    const clock = new ManualClock(0);
    const wakes: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await clock.sleep(10);
        wakes.push(clock.now());
      }
    })();
    await clock.advance(30);
    await loop;
    expect(wakes).to.deep.equal([10, 20, 30]);
  });

  it('sleep resolves early when its signal aborts, and cancels its timer', async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    const p = clock.sleep(1000, ac.signal);
    ac.abort();
    await p;
    expect(clock.pendingTimers()).to.equal(0);
    await clock.sleep(1000, ac.signal); // already aborted: resolves at once
  });

  it('advanceToNextTimer jumps to the earliest timer', async () => {
    const clock = new ManualClock(0);
    let at = -1;
    clock.setTimer(500, () => (at = clock.now()));
    expect(await clock.advanceToNextTimer()).to.equal(true);
    expect(at).to.equal(500);
    expect(await clock.advanceToNextTimer()).to.equal(false);
  });
});

describe('RealClock', () => {
  it('sleep(0) resolves and an aborted sleep resolves', async () => {
    const clock = new RealClock();
    await clock.sleep(0);
    const ac = new AbortController();
    const p = clock.sleep(60_000, ac.signal);
    ac.abort();
    await p;
  });
});

describe('pollEvery', () => {
  it('runs every interval, never overlapping a slow run, past errors, until stopped', async () => {
    const clock = new ManualClock(0);
    const runs: number[] = [];
    const errors: unknown[] = [];
    let release: (() => void) | undefined;
    const stop = pollEvery(
      clock,
      10,
      async () => {
        runs.push(clock.now());
        if (runs.length === 2) await new Promise<void>((r) => (release = r));
        if (runs.length === 3) throw new Error('boom');
      },
      (err) => errors.push(err),
    );
    await clock.advance(10);
    expect(runs).to.deep.equal([10]);
    await clock.advance(10); // the second run starts and hangs
    await clock.advance(100);
    expect(runs).to.deep.equal([10, 20]); // nothing armed while it runs
    release?.();
    await clock.advance(10);
    expect(runs).to.deep.equal([10, 20, 130]);
    expect(errors.map(String)).to.deep.equal(['Error: boom']);
    await clock.advance(10);
    expect(runs).to.have.length(4);
    stop();
    await clock.advance(100);
    expect(runs).to.have.length(4);
  });
});
