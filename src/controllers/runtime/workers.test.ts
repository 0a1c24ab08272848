import { expect } from 'chai';
import { ManualClock, settle } from './clock.js';
import { WorkQueue } from './queue.js';
import { ItemExponentialFailureRateLimiter } from './ratelimiter.js';
import type { ReconcileResultLabel, ReconcileResult } from './workers.js';
import { runWorkers, TerminalError } from './workers.js';

/** A reconcile whose completion the test controls, to observe concurrency. */
interface Pending {
  key: string;
  signal: AbortSignal;
  finish: (r?: ReconcileResult) => void;
  fail: (e: unknown) => void;
}

function setup(concurrency = 2) {
  const clock = new ManualClock(0);
  const queue = new WorkQueue({
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
  });
  const pending: Pending[] = [];
  const outcomes: Array<[string, ReconcileResultLabel]> = [];
  const ac = new AbortController();
  const done = runWorkers(
    queue,
    concurrency,
    (key, signal) =>
      new Promise<ReconcileResult | void>((finish, fail) =>
        pending.push({ key, signal, finish, fail }),
      ),
    ac.signal,
    { clock, observer: { reconciled: (key, outcome) => outcomes.push([key, outcome]) } },
  );
  return { clock, queue, pending, outcomes, ac, done };
}

describe('runWorkers', () => {
  it('runs different keys concurrently but one key on one worker at a time', async () => {
    const { queue, pending, ac, done } = setup(3);
    queue.add('a');
    queue.add('b');
    await settle();
    expect(pending.map((p) => p.key)).to.deep.equal(['a', 'b']);
    queue.add('a'); // while a is in flight
    await settle();
    expect(pending.map((p) => p.key)).to.deep.equal(['a', 'b']);
    pending[0]?.finish();
    await settle();
    expect(pending.map((p) => p.key)).to.deep.equal(['a', 'b', 'a']);
    pending[1]?.finish();
    pending[2]?.finish();
    ac.abort();
    await done;
  });

  it('retries errors with backoff, requeues after requeueAfter, and forgets on success', async () => {
    const { clock, queue, pending, outcomes, ac, done } = setup(1);
    queue.add('k');
    await settle();
    pending[0]?.fail(new Error('boom'));
    await settle();
    expect(queue.numRequeues('k')).to.equal(1);
    expect(clock.nextTimerIn()).to.equal(5);
    await clock.advance(5);
    expect(pending).to.have.length(2);
    pending[1]?.finish({ requeueAfter: 60_000 });
    await settle();
    expect(queue.numRequeues('k')).to.equal(0);
    expect(clock.nextTimerIn()).to.equal(60_000);
    await clock.advance(60_000);
    expect(pending).to.have.length(3);
    pending[2]?.finish({ requeue: true });
    await settle();
    expect(queue.numRequeues('k')).to.equal(1);
    await clock.advance(5);
    pending[3]?.finish();
    await settle();
    expect(queue.numRequeues('k')).to.equal(0);
    expect(outcomes.map((o) => o[1])).to.deep.equal([
      'error',
      'requeue_after',
      'requeue',
      'success',
    ]);
    ac.abort();
    await done;
  });

  it('does not retry a TerminalError', async () => {
    const { clock, queue, pending, outcomes, ac, done } = setup(1);
    queue.add('k');
    await settle();
    pending[0]?.fail(new TerminalError('spec is invalid'));
    await settle();
    expect(clock.pendingTimers()).to.equal(0);
    expect(outcomes).to.deep.equal([['k', 'error']]);
    ac.abort();
    await done;
  });

  it('does not retry an error whose cause chain holds a TerminalError', async () => {
    const { clock, queue, pending, ac, done } = setup(1);
    queue.add('k');
    await settle();
    const cause = TerminalError.wrap(new Error('digest does not exist'));
    pending[0]?.fail(new Error('sync failed', { cause }));
    await settle();
    expect(clock.pendingTimers()).to.equal(0);
    ac.abort();
    await done;
  });

  it('on abort stops taking keys and resolves only after in-flight reconciles return', async () => {
    const { queue, pending, ac, done } = setup(2);
    queue.add('a');
    await settle();
    let finished = false;
    void done.then(() => (finished = true));
    ac.abort();
    queue.add('b');
    await settle();
    expect(pending[0]?.signal.aborted).to.equal(true);
    expect(finished).to.equal(false);
    pending[0]?.finish(); // the in-flight sync finished or rolled back
    await done;
    expect(pending).to.have.length(1);
  });

  it('rejects a non-positive concurrency', async () => {
    const queue = new WorkQueue({ clock: new ManualClock(0) });
    let error: unknown;
    await runWorkers(queue, 0, async () => undefined, new AbortController().signal).catch(
      (e: unknown) => (error = e),
    );
    expect(error).to.be.instanceOf(RangeError);
  });
});
