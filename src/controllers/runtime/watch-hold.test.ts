import { expect } from 'chai';
import { ManualClock } from './clock.js';
import { WatchHold } from './watch-hold.js';

describe('WatchHold', () => {
  it('pauses from the first hold until the last release, once per hold', () => {
    const clock = new ManualClock(0);
    const changes: boolean[] = [];
    const hold = new WatchHold({ clock, maxPauseMs: 30_000, onPause: (p) => changes.push(p) });
    let pauses = 0;
    hold.onPause(() => pauses++);
    expect(hold.paused()).to.equal(false);
    const a = hold.hold();
    const b = hold.hold();
    expect(hold.paused()).to.equal(true);
    expect(pauses).to.equal(1);
    a();
    a(); // a second release of one hold counts once
    expect(hold.paused()).to.equal(true);
    b();
    expect(hold.paused()).to.equal(false);
    expect(changes).to.deep.equal([true, false]);
  });

  it('resumes after maxPauseMs though held, and does not pause again until all are released', async () => {
    const clock = new ManualClock(0);
    const hold = new WatchHold({ clock, maxPauseMs: 30_000 });
    const a = hold.hold();
    await clock.advance(29_999);
    expect(hold.paused()).to.equal(true);
    await clock.advance(1);
    expect(hold.paused()).to.equal(false);
    const b = hold.hold();
    expect(hold.paused()).to.equal(false);
    a();
    b();
    const c = hold.hold();
    expect(hold.paused()).to.equal(true);
    c();
  });

  it('whenResumed waits for the resume, or the abort', async () => {
    const clock = new ManualClock(0);
    const hold = new WatchHold({ clock, maxPauseMs: 30_000 });
    await hold.whenResumed(new AbortController().signal); // not paused: at once
    const release = hold.hold();
    let resumed = false;
    const waiting = hold.whenResumed(new AbortController().signal).then(() => (resumed = true));
    await Promise.resolve();
    expect(resumed).to.equal(false);
    release();
    await waiting;
    expect(resumed).to.equal(true);
    hold.hold();
    const ac = new AbortController();
    const aborted = hold.whenResumed(ac.signal);
    ac.abort();
    await aborted;
  });

  it('never pauses with a maxPauseMs of 0', () => {
    const hold = new WatchHold({ clock: new ManualClock(0), maxPauseMs: 0 });
    const release = hold.hold();
    expect(hold.paused()).to.equal(false);
    release();
  });
});
