import { expect } from 'chai';
import { open, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pollUntil } from '../../test/support/poll.js';
import { ChunkPool, sendFileRanges } from './send-file.js';
import { CopyingSink } from './test-catalogs.test.js';

/** Counts the buffers it had to allocate (not taken from its idle ones). */
class CountingPool extends ChunkPool {
  allocated = 0;
  override take(): Buffer {
    if (this.idle === 0) this.allocated++;
    return super.take();
  }
}

/** A writable that takes chunks only when told to (a client that stopped reading). */
class StalledSink extends Writable {
  readonly copy = new CopyingSink();
  #waiting: Array<() => void> = [];
  constructor() {
    super({ highWaterMark: 1 });
  }
  override _write(chunk: Buffer, enc: BufferEncoding, done: (err?: Error | null) => void): void {
    this.#waiting.push(() => this.copy.write(Buffer.from(chunk), enc, done));
  }
  /** Lets every chunk through from now on. */
  release(): void {
    this._write = (chunk, enc, done) => this.copy.write(Buffer.from(chunk), enc, done);
    for (const w of this.#waiting.splice(0)) w();
  }
}

const CHUNK = 1024;

describe('server/send-file', () => {
  let dir: string;
  let file: FileHandle;
  let content: Buffer;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'send-file-'));
    content = Buffer.from(Array.from({ length: 20 * CHUNK + 17 }, (_, i) => i % 251));
    await writeFile(path.join(dir, 'f'), content);
    file = await open(path.join(dir, 'f'), 'r');
  });

  after(async () => {
    await file.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the ranges in order, chunk by chunk', async () => {
    const sink = new CopyingSink();
    const ranges: Array<[number, number]> = [
      [0, 10],
      [CHUNK - 3, 3 * CHUNK + 5],
      [content.length - 4, content.length],
    ];
    await sendFileRanges(file, ranges, sink, new ChunkPool(CHUNK));
    const want = Buffer.concat(ranges.map(([s, e]) => content.subarray(s, e)));
    expect(sink.bytes().equals(want)).to.equal(true);
  });

  it('reuses two buffers for every response: nothing allocated per chunk', async () => {
    const pool = new CountingPool(CHUNK);
    for (let i = 0; i < 5; i++) {
      const sink = new CopyingSink();
      await sendFileRanges(file, [[0, content.length]], sink, pool);
      expect(sink.bytes().equals(content)).to.equal(true);
    }
    expect(pool.allocated).to.equal(2);
    expect(pool.idle).to.equal(2);
  });

  it('frees a buffer beyond the idle ones at once, not at the next collection', () => {
    const pool = new ChunkPool(CHUNK, 1);
    const [a, b] = [pool.take(), pool.take()];
    pool.give(a);
    pool.give(b);
    expect(pool.idle).to.equal(1);
    expect(a.length).to.equal(CHUNK);
    expect(b.length).to.equal(0);
    expect(b.buffer.byteLength).to.equal(0);
  });

  it('a reader that stops reading stops the reads: two chunks read ahead, no more', async () => {
    const sink = new StalledSink();
    let read = 0;
    const sending = sendFileRanges(file, [[0, content.length]], sink, new ChunkPool(CHUNK), (n) => {
      read += n;
    });
    await pollUntil(async () => read === 2 * CHUNK, {
      timeoutMs: 5000,
      intervalMs: 5,
      what: 'the first two chunks to be read',
    });
    // Give the sender every chance to run ahead.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(read).to.equal(2 * CHUNK);
    sink.release();
    await sending;
    expect(read).to.equal(content.length);
    expect(sink.copy.bytes().equals(content)).to.equal(true);
  });

  it('a reader that goes away fails the send, and its buffers are not reused', async () => {
    const pool = new CountingPool(CHUNK);
    const sink = new StalledSink();
    const sending = sendFileRanges(file, [[0, content.length]], sink, pool);
    await new Promise((r) => setImmediate(r));
    sink.destroy();
    let failed: unknown;
    await sending.catch((err: unknown) => (failed = err));
    expect(failed).to.be.instanceOf(Error);
    expect(pool.idle).to.equal(0);
  });
});
