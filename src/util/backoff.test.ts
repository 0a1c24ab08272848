import { expect } from 'chai';
import { backoffDelay, ExponentialBackoff, exponentialDelay, requestRetry } from './backoff.js';
import { ManualClock } from './clock.js';

describe('util/backoff', () => {
  it('grows one way for every caller: base × 2^step, capped', () => {
    expect([0, 1, 2, 3, 4, 5].map((s) => exponentialDelay(200, 5000, s))).to.deep.equal([
      200, 400, 800, 1600, 3200, 5000,
    ]);
    const seq = new ExponentialBackoff({ initialMs: 200, maxMs: 5000 });
    expect([1, 2, 3].map(() => seq.next())).to.deep.equal([200, 400, 800]);
    const policy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 5000 };
    expect([0, 1, 2].map((a) => backoffDelay(policy, a))).to.deep.equal([200, 400, 800]);
  });

  it('gives the apiserver client its delays (attempt from 1) and sleeps on the injected clock', async () => {
    const clock = new ManualClock(0);
    const retry = requestRetry(clock);
    expect([1, 2, 3, 6, 9].map((a) => retry.retryDelay(a))).to.deep.equal([
      200, 400, 800, 5000, 5000,
    ]);
    expect(retry.retryDelay(1, 1000), 'Retry-After wins').to.equal(1000);
    expect(retry.retryDelay(5, 1000), 'Retry-After wins').to.equal(1000);
    expect(retry.retryDelay(1, 0), 'an empty Retry-After is ignored').to.equal(200);
    let woke = false;
    const sleeping = retry.sleep(400).then(() => (woke = true));
    await clock.advance(399);
    expect(woke).to.equal(false);
    await clock.advance(1);
    await sleeping;
    expect(woke).to.equal(true);
  });
});
