import { expect } from 'chai';
import { ManualClock } from './clock.js';
import { ExponentialBackoff, jitter } from './backoff.js';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from './ratelimiter.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles per failure of a key, caps at max, and forget resets it', () => {
    const rl = new ItemExponentialFailureRateLimiter(5, 30);
    expect([rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')]).to.deep.equal([5, 10, 20, 30]);
    expect(rl.when('b')).to.equal(5);
    expect(rl.numRequeues('a')).to.equal(4);
    rl.forget('a');
    expect(rl.numRequeues('a')).to.equal(0);
    expect(rl.when('a')).to.equal(5);
  });

  it('stays at max after very many failures', () => {
    const rl = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    let last = 0;
    for (let i = 0; i < 2000; i++) last = rl.when('k');
    expect(last).to.equal(1_000_000);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces requeues at qps, refilling over time', async () => {
    const clock = new ManualClock(0);
    const rl = new BucketRateLimiter(10, 2, clock);
    expect(rl.when('a')).to.equal(0);
    expect(rl.when('b')).to.equal(0);
    expect(rl.when('c')).to.be.closeTo(100, 1e-9);
    expect(rl.when('d')).to.be.closeTo(200, 1e-9);
    await clock.advance(1000);
    // 1 s at 10 qps refills to the burst of 2 (debt of 2 repaid, capped at 2).
    expect(rl.when('e')).to.equal(0);
    expect(rl.when('f')).to.equal(0);
    expect(rl.when('g')).to.be.closeTo(100, 1e-9);
  });
});

describe('MaxOfRateLimiter / default controller rate limiter', () => {
  it('takes the longest delay and forgets in all limiters', () => {
    const clock = new ManualClock(0);
    const rl = new MaxOfRateLimiter(
      new ItemExponentialFailureRateLimiter(5, 1000),
      new BucketRateLimiter(10, 1, clock),
    );
    expect(rl.when('a')).to.equal(5); // bucket: 0, item: 5
    expect(rl.when('a')).to.equal(100); // bucket: 100, item: 10
    expect(rl.numRequeues('a')).to.equal(2);
    rl.forget('a');
    expect(rl.numRequeues('a')).to.equal(0);
  });

  it('defaults to 5 ms per-item base', () => {
    const rl = defaultControllerRateLimiter(new ManualClock(0));
    expect(rl.when('x')).to.equal(5);
    expect(rl.when('x')).to.equal(10);
  });
});

describe('backoff', () => {
  it('jitter adds up to factor × duration', () => {
    expect(jitter(100, 0.5, () => 0)).to.equal(100);
    expect(jitter(100, 0.5, () => 0.5)).to.equal(125);
  });

  it('ExponentialBackoff grows to its cap and resets', () => {
    const b = new ExponentialBackoff({ initialMs: 800, maxMs: 30_000 });
    const seq = Array.from({ length: 7 }, () => b.next());
    expect(seq).to.deep.equal([800, 1600, 3200, 6400, 12800, 25600, 30000]);
    expect(b.attempts).to.equal(7);
    b.reset();
    expect(b.next()).to.equal(800);
  });
});
