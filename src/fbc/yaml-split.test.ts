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

describe('fbc/yaml-split: whole buffered lines and lines across reads split alike', () => {
  /** Every piece of `text` read `chunkBytes` at a time, in a comparable form. */
  async function pieces(text: string, chunkBytes: number, maxBytes: number, maxNodes: number) {
    const { src } = source(text, chunkBytes);
    const s = new YamlSplitter(src, { offset: 0, line: 1, lineStart: 0 }, maxBytes, maxNodes);
    const out: unknown[] = [];
    for (let p = await s.next(); p; p = await s.next())
      out.push(p.kind === 'doc' ? { ...p, bytes: p.bytes.toString() } : p);
    return out;
  }

  const texts = [
    'a: 1\nb: 2\n---\nc: 3\nd: 4\n',
    '---\na: 1\n--- # comment\n\n---\n---\nb: [1, 2]\n',
    '# only a comment\n---\n  \n---\r\nx: y\r\n---  \t\nz: {a: 1}',
    'a: 1\n--\n---x\nb: 2\n',
    'a: 1\n---- \nb: 2\n',
    'a: "é—€😀"\n---\nb: |\n  ---\n  text\n',
    'key: value\n---\n',
    '\n\n\n',
    'a: 1',
    `${'k: v\n'.repeat(40)}---\n${'- [1, 2, 3]\n'.repeat(20)}`,
  ];

  it('yields the same documents, errors and positions whatever the reads', async () => {
    for (const text of texts)
      // One bound at a time: when a line passes both, which one it is refused by first depends on
      // where the reads cut it (nextLine stops a line early once it is too large), in either path.
      for (const [maxBytes, maxNodes] of [
        ...[4, 5, 9, 10, 11, 24].map((b) => [b, Infinity] as const),
        ...[3, 7, 40].map((n) => [1 << 20, n] as const),
        [1 << 20, Infinity] as const,
      ]) {
        // One byte a read: no line but an empty one is ever whole in the buffer, so this is
        // next()'s line-at-a-time path, the reference.
        const reference = await pieces(text, 1, maxBytes, maxNodes);
        for (const chunk of [2, 3, 5, 8, 13, 64, 1 << 16])
          expect(
            await pieces(text, chunk, maxBytes, maxNodes),
            `${JSON.stringify(text.slice(0, 30))} in reads of ${chunk}, limits ${maxBytes}/${maxNodes}`,
          ).to.deep.equal(reference);
      }
  });
});
