import { expect } from 'chai';
import { ManualClock, settle } from './clock.js';
import { KeyInterrupted, KeyInterrupts } from './interrupts.js';
import { WorkQueue } from './queue.js';
import { ItemExponentialFailureRateLimiter } from './ratelimiter.js';
import type { ReconcileResultLabel } from './workers.js';
import { runWorkers } from './workers.js';

describe('KeyInterrupts', () => {
  it("aborts only the interrupted key's reconcile, which is requeued at once without backoff", async () => {
    const clock = new ManualClock(0);
    const queue = new WorkQueue({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(60_000, 600_000),
    });
    const interrupts = new KeyInterrupts();
    const started: Array<{ key: string; interrupted: AbortSignal }> = [];
    const outcomes: Array<[string, ReconcileResultLabel]> = [];
    const ac = new AbortController();
    const done = runWorkers(
      queue,
      2,
      (key, signal, interrupted) =>
        new Promise((_, reject) => {
          started.push({ key, interrupted });
          const stop = () => reject(new Error('stopped'));
          interrupted.addEventListener('abort', stop);
          signal.addEventListener('abort', stop);
        }),
      ac.signal,
      { clock, interrupts, observer: { reconciled: (k, o) => outcomes.push([k, o]) } },
    );
    queue.add('slow');
    queue.add('other');
    await settle();
    expect(started.map((s) => s.key)).to.deep.equal(['slow', 'other']);

    expect(interrupts.interrupt('slow', 'deleted')).to.equal(true);
    expect(interrupts.interrupt('absent', 'deleted')).to.equal(false);
    await settle();
    expect(started[0]!.interrupted.reason).to.be.instanceOf(KeyInterrupted);
    expect(started[1]!.interrupted.aborted).to.equal(false);
    // Reconciled again at once (no 60 s backoff of a failure), with a fresh signal.
    expect(outcomes).to.deep.equal([['slow', 'requeue']]);
    expect(started.map((s) => s.key)).to.deep.equal(['slow', 'other', 'slow']);
    expect(started[2]!.interrupted.aborted).to.equal(false);

    ac.abort();
    await done;
  });
});
