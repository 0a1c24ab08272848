import { expect } from 'chai';
import { ManualClock } from './clock.js';
import {
  AttemptDeadline,
  DeadlineExceeded,
  formatBytes,
  formatDuration,
  parseDuration,
} from './deadline.js';

describe('util/deadline', () => {
  it('aborts after the limit with what was being done and its progress', async () => {
    const clock = new ManualClock();
    const d = new AttemptDeadline(90_000, clock);
    d.doing('fetching layer 2 of reg.example/a:v1', () => '1.5 kB of 2.0 MB');
    await clock.advance(89_999);
    expect(d.signal.aborted).to.equal(false);
    await clock.advance(1);
    expect(d.signal.aborted).to.equal(true);
    expect(d.signal.reason).to.be.instanceOf(DeadlineExceeded);
    expect((d.signal.reason as Error).message).to.equal(
      'timed out after 1m30s fetching layer 2 of reg.example/a:v1: 1.5 kB of 2.0 MB',
    );
  });

  it('does not count paused time; a parent abort passes through; dispose ends it', async () => {
    const clock = new ManualClock();
    const d = new AttemptDeadline(10_000, clock);
    await clock.advance(4000);
    d.pause();
    await clock.advance(60_000);
    d.resume();
    await clock.advance(5999);
    expect(d.signal.aborted).to.equal(false);
    await clock.advance(1);
    expect(d.signal.aborted).to.equal(true);

    const parent = new AbortController();
    const e = new AttemptDeadline(10_000, clock, [undefined, parent.signal]);
    parent.abort(new Error('deleted'));
    expect((e.signal.reason as Error).message).to.equal('deleted');

    const f = new AttemptDeadline(10_000, clock);
    f.dispose();
    await clock.advance(20_000);
    expect(f.signal.aborted).to.equal(false);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('formats and parses durations as Go does, and bytes in decimal units', () => {
    expect(formatDuration(10 * 60_000)).to.equal('10m0s');
    expect(formatDuration(15_000)).to.equal('15s');
    expect(formatDuration(3_600_000)).to.equal('1h0m0s');
    expect(parseDuration('10m')).to.equal(600_000);
    expect(parseDuration('1h30m')).to.equal(5_400_000);
    expect(parseDuration('1.5s')).to.equal(1500);
    expect(parseDuration('500ms')).to.equal(500);
    expect(parseDuration('10')).to.equal(undefined);
    expect(parseDuration('10x')).to.equal(undefined);
    expect(formatBytes(999)).to.equal('999 B');
    expect(formatBytes(12_345_678)).to.equal('12.3 MB');
  });
});
