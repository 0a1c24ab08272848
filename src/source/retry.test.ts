import { expect } from 'chai';
import { backoffDelay, parseRetryAfter, withRetries, type RetryClock } from './retry.js';

function fakeClock(): RetryClock & { slept: number[] } {
  const slept: number[] = [];
  let t = 0;
  return { slept, now: () => t, sleep: async (ms) => void slept.push((t += ms) && ms) };
}

const policy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000 };

describe('source/retry', () => {
  it('backs off exponentially, capped, honouring Retry-After', () => {
    expect([0, 1, 2, 3, 4].map((a) => backoffDelay(policy, a))).to.deep.equal([
      100, 200, 400, 800, 1000,
    ]);
    expect(backoffDelay(policy, 0, 700)).to.equal(700);
    expect(backoffDelay(policy, 0, 60_000)).to.equal(1000);
    expect(parseRetryAfter('3', 0)).to.equal(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).to.equal(6000);
    expect(parseRetryAfter('soon', 0)).to.equal(undefined);
  });

  it('retries retryable outcomes up to the attempt limit', async () => {
    const clock = fakeClock();
    let calls = 0;
    const err = await withRetries(
      policy,
      clock,
      async () => {
        calls++;
        throw new Error('boom');
      },
      () => ({ retry: true }),
    ).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(Error);
    expect(calls).to.equal(4);
    expect(clock.slept).to.deep.equal([100, 200, 400]);
  });

  it('returns as soon as the outcome needs no retry', async () => {
    const clock = fakeClock();
    const got = await withRetries(
      policy,
      clock,
      async (attempt) => attempt,
      (o) => ('value' in o && o.value < 2 ? { retry: true, afterMs: 50 } : { retry: false }),
    );
    expect(got).to.equal(2);
    expect(clock.slept).to.deep.equal([100, 200]);
  });
});
