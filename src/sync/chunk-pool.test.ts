import { expect } from 'chai';
import { ChunkPool } from './chunk-pool.js';

describe('sync/chunk-pool: ChunkPool', () => {
  it('reuses a chunk once the reader retired it and every lease was released', () => {
    const pool = new ChunkPool(16, 2);
    const a = pool.take();
    const [r1, r2] = [a.lease(), a.lease()];
    a.retire();
    r1();
    expect(pool.idleCount).to.equal(0);
    expect(pool.take().buf).to.not.equal(a.buf);
    r2();
    expect(pool.idleCount).to.equal(1);
    expect(pool.take().buf).to.equal(a.buf);
    expect(pool.idleCount).to.equal(0);
  });

  it('never reuses a chunk while a record cut from it is not released', () => {
    const pool = new ChunkPool(16, 2);
    const a = pool.take();
    a.lease(); // kept forever
    a.retire();
    for (let i = 0; i < 5; i++) {
      const c = pool.take();
      expect(c.buf).to.not.equal(a.buf);
      c.retire();
    }
  });

  it('counts a release once however often it is called', () => {
    const pool = new ChunkPool(16, 2);
    const a = pool.take();
    const r1 = a.lease();
    a.lease(); // still held
    a.retire();
    r1();
    r1();
    r1();
    expect(pool.idleCount).to.equal(0);
  });

  it('keeps at most maxIdle chunks, and never a larger one', () => {
    const pool = new ChunkPool(16, 2);
    const chunks = [pool.take(), pool.take(), pool.take(), pool.take(40)];
    expect(chunks[3]!.buf.length).to.equal(40);
    for (const c of chunks) c.retire();
    expect(pool.idleCount).to.equal(2);
    // A request above the chunk size is never served from the pool.
    expect(pool.take(17).buf.length).to.equal(17);
    expect(pool.idleCount).to.equal(2);
  });
});
