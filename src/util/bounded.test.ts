import { expect } from 'chai';
import { runBounded } from './bounded.js';

describe('util/bounded: runBounded', () => {
  /** `n` tasks of one macrotask each; records how many were in flight when each started. */
  async function run(n: number, limit: number | (() => number), onStart?: (i: number) => void) {
    let inflight = 0;
    const seen: number[] = [];
    async function* tasks(): AsyncGenerator<() => Promise<void>> {
      for (let i = 0; i < n; i++) {
        yield async () => {
          onStart?.(i);
          seen.push(++inflight);
          await new Promise((r) => setImmediate(r));
          inflight--;
        };
      }
    }
    await runBounded(tasks(), limit);
    return seen;
  }

  it('keeps at most a fixed limit in flight', async () => {
    expect(Math.max(...(await run(20, 3)))).to.equal(3);
  });

  it('reads a function limit again as tasks end: more when it grows, fewer when it shrinks', async () => {
    let cap = 2;
    const seen = await run(
      40,
      () => cap,
      (i) => {
        if (i === 10) cap = 8;
        if (i === 25) cap = 1;
      },
    );
    expect(Math.max(...seen.slice(0, 10))).to.equal(2);
    expect(Math.max(...seen.slice(10, 25))).to.equal(8);
    // Started after the cap fell to 1 and the tasks in flight then ended: one at a time.
    expect(Math.max(...seen.slice(34))).to.equal(1);
  });

  it('rethrows the first failure once the others settle, starting no more', async () => {
    let started = 0;
    async function* tasks(): AsyncGenerator<() => Promise<void>> {
      for (let i = 0; i < 10; i++) {
        yield async () => {
          started++;
          if (i === 1) throw new Error('boom');
          await new Promise((r) => setImmediate(r));
        };
      }
    }
    const err = await runBounded(tasks(), 2).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as Error).message).to.equal('boom');
    expect(started).to.be.below(10);
  });
});
