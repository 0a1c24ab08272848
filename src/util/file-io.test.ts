import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { BufferedFileWriter } from './file-io.js';

describe('util/file-io: BufferedFileWriter', () => {
  let dir: string;
  before(async () => (dir = await mkdtemp(path.join(tmpdir(), 'file-io-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  async function written(strings: string[], bufferBytes: number): Promise<[Buffer, number]> {
    const file = path.join(dir, `out-${Math.random()}`);
    const fh = await open(file, 'w');
    const out = new BufferedFileWriter(fh, bufferBytes);
    let lengths = 0;
    for (const s of strings) lengths += await out.writeString(s);
    await out.flush();
    await fh.close();
    expect(out.position).to.equal(lengths);
    return [await readFile(file), lengths];
  }

  it('writes strings longer than its buffer as their exact UTF-8, surrogate pairs whole', async () => {
    // Slices of a long string are a quarter of the buffer: put pairs (4 UTF-8 bytes) and
    // 3-byte characters across every possible slice boundary.
    for (const filler of ['a', 'é', '€', '😀', 'a😀', '€😀a']) {
      const long = `{"x":"${filler.repeat(97)}"}`;
      const strings = ['head', long, 'mid', long.slice(1), 'tail'];
      for (const size of [16, 17, 18, 19, 64]) {
        const [bytes, length] = await written(strings, size);
        expect(bytes.equals(Buffer.from(strings.join(''), 'utf8')), `${filler} / ${size}`).to.equal(
          true,
        );
        expect(length).to.equal(bytes.length);
      }
    }
  });
});
