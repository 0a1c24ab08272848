import { expect } from 'chai';
import { SyncSlots } from './sync-slots.js';

const settle = () => new Promise((r) => setImmediate(r));

describe('SyncSlots', () => {
  it('grants at most size slots, in order, and a waiter that aborts leaves the line', async () => {
    const slots = new SyncSlots(1);
    const first = await slots.acquire();
    const got: string[] = [];
    const ac = new AbortController();
    const b = slots.acquire(ac.signal).then(
      () => got.push('b'),
      () => got.push('b aborted'),
    );
    const c = slots.acquire().then((release) => {
      got.push('c');
      release();
    });
    await settle();
    expect(got).to.deep.equal([]);
    ac.abort(new Error('interrupted'));
    await b;
    expect(got).to.deep.equal(['b aborted']);
    first();
    first(); // idempotent: does not free a second slot
    await c;
    expect(got).to.deep.equal(['b aborted', 'c']);
    const again = await slots.acquire();
    again();
  });
});
