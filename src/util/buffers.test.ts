import { expect } from 'chai';
import { RELEASE_MIN_BYTES, releaseBuffer } from './buffers.js';

describe('util/buffers: releaseBuffer', () => {
  it('frees a large Buffer that owns its memory at once', () => {
    const before = process.memoryUsage().arrayBuffers;
    const buf = Buffer.alloc(2 * RELEASE_MIN_BYTES, 1);
    expect(process.memoryUsage().arrayBuffers - before).to.be.at.least(2 * RELEASE_MIN_BYTES);
    releaseBuffer(buf);
    expect(buf.length).to.equal(0);
    expect(process.memoryUsage().arrayBuffers - before).to.be.below(RELEASE_MIN_BYTES);
  });

  it('leaves small Buffers, pooled ones and views of a larger allocation alone', () => {
    const small = Buffer.from('small');
    const whole = Buffer.alloc(4 * RELEASE_MIN_BYTES);
    const head = whole.subarray(0, 2 * RELEASE_MIN_BYTES);
    const tail = whole.subarray(RELEASE_MIN_BYTES);
    for (const b of [small, head, tail]) releaseBuffer(b);
    expect([small.length, head.length, tail.length, whole.length]).to.deep.equal([
      5,
      2 * RELEASE_MIN_BYTES,
      3 * RELEASE_MIN_BYTES,
      4 * RELEASE_MIN_BYTES,
    ]);
  });
});
