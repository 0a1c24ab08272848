import { expect } from 'chai';
import { ByteSource } from './byte-source.js';
import { YamlSplitter } from './yaml-split.js';

/** The chunks a reader of `text` is asked for, and the source over them. */
function source(text: string, chunkBytes: number) {
  const bytes = Buffer.from(text);
  let served = 0;
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunkBytes) {
      served = Math.min(bytes.length, i + chunkBytes);
      yield bytes.subarray(i, i + chunkBytes);
    }
  }
  return { src: new ByteSource(chunks()), served: () => served, total: bytes.length };
}

describe('fbc/yaml-split: documents of a YAML stream', () => {
  it('splits on --- lines', async () => {
    const { src } = source('a: 1\n---\nb: 2\n', 4);
    const s = new YamlSplitter(src, { offset: 0, line: 1, lineStart: 0 }, 1 << 20);
    const docs: string[] = [];
    for (let p = await s.next(); p; p = await s.next())
      if (p.kind === 'doc') docs.push(p.bytes.toString());
    expect(docs).to.deep.equal(['a: 1\n', 'b: 2\n']);
  });

  it('stops reading a document once its node bound passes the limit, mid-line', async () => {
    // One line of 100,000 values: two nodes a comma, so the bound passes 1,000 at the 500th.
    const { src, served, total } = source(`[${'1,'.repeat(100_000)}1]\n`, 1024);
    const s = new YamlSplitter(src, { offset: 0, line: 1, lineStart: 0 }, 1 << 20, 1000);
    const p = await s.next();
    expect(p?.kind).to.equal('doc');
    if (p?.kind !== 'doc') return;
    expect(p.bytes.length).to.be.lessThan(1100); // the document so far, not the whole line
    expect(served()).to.be.lessThan(4096); // and the rest of the file was never read
    expect(total).to.be.greaterThan(200_000);
    expect(await s.next()).to.equal(undefined);
  });
});
