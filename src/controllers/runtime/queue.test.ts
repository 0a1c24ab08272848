import { expect } from 'chai';
import { ManualClock } from './clock.js';
import type { QueueMetricsSink } from './queue.js';
import { WorkQueue } from './queue.js';
import { ItemExponentialFailureRateLimiter } from './ratelimiter.js';

function newQueue(clock = new ManualClock(0), metrics?: QueueMetricsSink): WorkQueue {
  return new WorkQueue({
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
    ...(metrics ? { metrics } : {}),
  });
}

describe('WorkQueue', () => {
  it('hands out keys in FIFO order and deduplicates queued keys', async () => {
    const q = newQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.len()).to.equal(2);
    expect(await q.get()).to.equal('a');
    expect(await q.get()).to.equal('b');
    expect(q.len()).to.equal(0);
    expect(q.stats().adds).to.equal(2);
  });

  it('never hands a key to two workers; a key added while processing comes back after done', async () => {
    const q = newQueue();
    q.add('a');
    const first = await q.get();
    expect(first).to.equal('a');
    q.add('a');
    q.add('a');
    expect(q.len()).to.equal(0); // held by a worker: not queued yet
    let second: string | undefined;
    const waiting = q.get().then((k) => (second = k));
    await Promise.resolve();
    expect(second).to.equal(undefined);
    q.done('a');
    await waiting;
    expect(second).to.equal('a');
    q.done('a');
    expect(q.len()).to.equal(0);
    expect(q.stats().processing).to.equal(0);
  });

  it('wakes a waiting getter when a key is added', async () => {
    const q = newQueue();
    const got = q.get();
    q.add('x');
    expect(await got).to.equal('x');
  });

  it('addAfter queues when due and keeps the earliest of several delays', async () => {
    const clock = new ManualClock(0);
    const q = newQueue(clock);
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 500);
    expect(q.stats().waiting).to.equal(1);
    await clock.advance(49);
    expect(q.len()).to.equal(0);
    await clock.advance(1);
    expect(q.len()).to.equal(1);
    expect(q.stats().waiting).to.equal(0);
    expect(clock.pendingTimers()).to.equal(0);
  });

  it('addRateLimited backs off exponentially per key; forget resets', async () => {
    const clock = new ManualClock(0);
    const q = newQueue(clock);
    q.addRateLimited('a');
    expect(clock.nextTimerIn()).to.equal(5);
    await clock.advance(5);
    expect(await q.get()).to.equal('a');
    q.done('a');
    q.addRateLimited('a');
    expect(clock.nextTimerIn()).to.equal(10);
    expect(q.numRequeues('a')).to.equal(2);
    q.forget('a');
    expect(q.numRequeues('a')).to.equal(0);
    expect(q.stats().retries).to.equal(2);
  });

  it('shutDown releases getters, ignores adds, cancels delays, and drained waits for in-flight keys', async () => {
    const clock = new ManualClock(0);
    const q = newQueue(clock);
    q.add('held');
    expect(await q.get()).to.equal('held');
    q.addAfter('later', 1000);
    const waiter = q.get();
    q.shutDown();
    expect(await waiter).to.equal(undefined);
    expect(await q.get()).to.equal(undefined);
    expect(clock.pendingTimers()).to.equal(0);
    q.add('new');
    expect(q.len()).to.equal(0);
    let drained = false;
    const d = q.drained().then(() => (drained = true));
    await Promise.resolve();
    expect(drained).to.equal(false);
    q.done('held');
    await d;
    expect(drained).to.equal(true);
  });

  it('get resolves undefined when its signal aborts, without losing a later key', async () => {
    const q = newQueue();
    const ac = new AbortController();
    const got = q.get(ac.signal);
    ac.abort();
    expect(await got).to.equal(undefined);
    q.add('k');
    expect(await q.get()).to.equal('k');
  });

  it('reports adds, depth, retries, queue latency and work duration', async () => {
    const clock = new ManualClock(0);
    const seen = {
      added: 0,
      depth: [] as number[],
      retried: 0,
      latency: [] as number[],
      work: [] as number[],
    };
    const q = newQueue(clock, {
      added: () => seen.added++,
      depth: (n) => seen.depth.push(n),
      retried: () => seen.retried++,
      queueLatency: (ms) => seen.latency.push(ms),
      workDuration: (ms) => seen.work.push(ms),
    });
    q.add('a');
    await clock.advance(30);
    const k = await q.get();
    await clock.advance(70);
    expect(q.longestRunningMs()).to.equal(70);
    expect(q.unfinishedWorkMs()).to.equal(70);
    q.done(k as string);
    q.addRateLimited('a');
    expect(seen.added).to.equal(1);
    expect(seen.depth).to.deep.equal([1, 0]);
    expect(seen.retried).to.equal(1);
    expect(seen.latency).to.deep.equal([30]);
    expect(seen.work).to.deep.equal([70]);
  });

  it('stays correct with many keys (FIFO compaction)', async () => {
    const q = newQueue();
    for (let i = 0; i < 5000; i++) q.add(`k${i}`);
    for (let i = 0; i < 5000; i++) {
      const k = await q.get();
      expect(k).to.equal(`k${i}`);
      q.done(k as string);
    }
    expect(q.len()).to.equal(0);
  });
});
