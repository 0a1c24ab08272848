import { expect } from 'chai';
import type { DecreaseReason, WritePacingOptions } from './pacing.js';
import { LatencyBaseline, WritePacing } from './pacing.js';

/** A fake clock: pacing only reads the time, it never waits. */
function fakeClock() {
  let t = Date.UTC(2026, 0, 1);
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** A pacing on a fake clock, and a scripted apiserver answering a window's worth at a time. */
function paced(opts: Partial<WritePacingOptions> = {}) {
  const clock = fakeClock();
  const decreases: DecreaseReason[] = [];
  const pacing = new WritePacing({
    min: 4,
    max: 32,
    clock,
    onDecrease: (r) => decreases.push(r),
    ...opts,
  });
  /**
   * `rounds` times: the window's writes are sent together and all answered `latencyMs` later
   * (`status` for the first of them).
   */
  const answer = (
    rounds: number,
    latencyMs: number | ((window: number) => number),
    status = 201,
  ) => {
    for (let i = 0; i < rounds; i++) {
      const w = pacing.window;
      const ms = typeof latencyMs === 'number' ? latencyMs : latencyMs(w);
      clock.advance(ms);
      for (let k = 0; k < w; k++) pacing.observe({ status: k === 0 ? status : 201, latencyMs: ms });
    }
  };
  return { clock, pacing, decreases, answer };
}

describe('sync: write pacing', () => {
  it('starts at the floor and ramps up to the ceiling while latency stays at its baseline', () => {
    const { pacing, decreases, answer } = paced();
    expect(pacing.window).to.equal(4);
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) {
      answer(1, 10);
      seen.push(pacing.window);
    }
    expect(seen.slice(0, 3)).to.deep.equal([8, 16, 32]); // slow start: doubles per round
    expect(pacing.window).to.equal(32);
    expect(decreases).to.deep.equal([]);
  });

  it('backs off when latency rises beyond the tolerance, then grows back by one per round', () => {
    const { pacing, decreases, answer } = paced();
    answer(5, 10);
    expect(pacing.window).to.equal(32);
    answer(1, 40); // 4 × the baseline: queueing
    expect(pacing.window).to.equal(24);
    expect(decreases).to.deep.equal(['latency']);
    answer(1, 20); // 2 ×: within the tolerance
    expect(pacing.window).to.equal(25); // additive now, not doubling
    answer(3, 10);
    expect(pacing.window).to.equal(28);
  });

  it('keeps backing off while latency stays high, down to the floor, never below', () => {
    const { pacing, decreases, answer } = paced();
    answer(5, 10);
    answer(20, 100);
    expect(pacing.window).to.equal(4);
    expect(decreases.length).to.be.within(5, 8);
    expect(decreases.every((r) => r === 'latency')).to.equal(true);
  });

  it('halves on a 429 and on 503/504, then recovers once the answers are fast again', () => {
    const { pacing, decreases, answer } = paced();
    answer(5, 10);
    answer(1, 10, 429);
    expect(pacing.window).to.equal(16);
    answer(1, 10, 503);
    expect(pacing.window).to.equal(8);
    expect(decreases).to.deep.equal(['throttled', 'throttled']);
    answer(30, 10);
    expect(pacing.window).to.equal(32);
  });

  it('counts one decrease for the answers to requests sent before it', () => {
    const { clock, pacing, decreases, answer } = paced();
    answer(5, 10);
    clock.advance(5);
    // Five 429s answered together, all to requests sent under the old window: one halving.
    for (let i = 0; i < 5; i++) pacing.observe({ status: 429, latencyMs: 5 });
    expect(pacing.window).to.equal(16);
    expect(decreases).to.deep.equal(['throttled']);
  });

  it('settles near the tolerance × the knee of a server that saturates, not at the ceiling', () => {
    // Little's law: a server that completes 800 writes/s at most and takes 5 ms when idle
    // answers a window w in max(5, w / 0.8) ms; the knee is at w = 4.
    const { pacing, answer } = paced({ min: 1, max: 64 });
    const latency = (w: number) => Math.max(5, w / 0.8);
    const windows: number[] = [];
    for (let i = 0; i < 200; i++) {
      answer(1, latency);
      windows.push(pacing.window);
    }
    const late = windows.slice(100);
    expect(Math.max(...late)).to.be.at.most(13); // 2.5 × 5 ms × 0.8/ms, plus one step
    expect(Math.min(...late)).to.be.at.least(6);
  });

  it('starts from the floor again after an idle spell (a new sync)', () => {
    const { pacing, answer, clock } = paced();
    answer(5, 10);
    expect(pacing.window).to.equal(32);
    clock.advance(60_000);
    answer(1, 10);
    expect(pacing.window).to.equal(8); // restarted at 4, then doubled by slow start
  });

  it('does not move with pacing off', () => {
    const { pacing, decreases, answer } = paced({ fixed: true });
    expect(pacing.window).to.equal(32);
    answer(5, 500, 429);
    expect(pacing.window).to.equal(32);
    expect(decreases).to.deep.equal([]);
  });

  it('keeps the floor within the ceiling', () => {
    const { pacing } = paced({ min: 4, max: 1 });
    expect([pacing.min, pacing.max, pacing.window]).to.deep.equal([1, 1, 1]);
  });

  it('starts a new baseline when the priority level changes (a FlowSchema applied)', () => {
    const { pacing, clock } = paced();
    clock.advance(10);
    for (let i = 0; i < 4; i++) pacing.observe({ status: 201, latencyMs: 10, priorityLevel: 'a' });
    expect([pacing.baselineMs, pacing.window]).to.deep.equal([10, 8]);
    clock.advance(50);
    // 5 × the old baseline, but under another level: a new baseline, no decrease.
    for (let i = 0; i < 8; i++) pacing.observe({ status: 201, latencyMs: 50, priorityLevel: 'b' });
    expect([pacing.baselineMs, pacing.window]).to.deep.equal([50, 16]);
  });
});

describe('sync: latency baseline', () => {
  it('is the lowest round median of the window, and forgets older rounds', () => {
    const b = new LatencyBaseline(10_000);
    expect(b.value(0)).to.equal(undefined);
    b.add(20, 0);
    b.add(30, 1000);
    expect(b.value(1000)).to.equal(20);
    b.add(25, 2000);
    expect(b.value(11_000)).to.equal(25); // the first round is out of the window
    expect(b.value(12_000)).to.equal(25);
    expect(b.value(12_001)).to.equal(undefined);
  });
});
