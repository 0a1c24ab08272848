import { expect } from 'chai';
import { LargeGarbage } from './large-garbage.js';

describe('util/large-garbage', () => {
  it('collects once the large blobs parsed since the last collection pass the budget', () => {
    let collected = 0;
    const g = new LargeGarbage(() => collected++, 10, 4);
    g.note(6);
    expect(collected).to.equal(0);
    g.note(6); // 12 ≥ 10
    expect(collected).to.equal(1);
    g.note(9);
    expect(collected).to.equal(1);
    g.note(4);
    expect([collected, g.collections]).to.deep.equal([2, 2]);
  });

  it('never collects for small blobs, however many', () => {
    let collected = 0;
    const g = new LargeGarbage(() => collected++, 10, 4);
    for (let i = 0; i < 1000; i++) g.note(3);
    expect(collected).to.equal(0);
  });

  it('runs a real collection by default', () => {
    const g = new LargeGarbage();
    g.note(64 << 20);
    expect(g.collections).to.equal(1);
  });
});
