import { expect } from 'chai';
import { FbcError } from './errors.js';
import { DEFAULT_PARSE_LIMITS, parseDocuments } from './parse.js';
import type { ParseLimits, ParsedDocument } from './parse.js';

/** The input as a stream, split into chunks of `size` bytes (to exercise chunk boundaries). */
async function* chunks(input: string | Buffer, size: number): AsyncGenerator<Uint8Array> {
  const buf = typeof input === 'string' ? Buffer.from(input) : input;
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

async function parse(
  input: string | Buffer,
  size = 7,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): Promise<ParsedDocument[]> {
  const out: ParsedDocument[] = [];
  for await (const d of parseDocuments(chunks(input, size), 'dir/f', limits)) out.push(d);
  return out;
}

async function parseError(
  input: string | Buffer,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): Promise<FbcError> {
  try {
    await parse(input, 5, limits);
  } catch (err) {
    if (err instanceof FbcError) return err;
    throw err;
  }
  throw new Error('expected an FbcError');
}

const values = (docs: ParsedDocument[]) => docs.map((d) => d.value);
const where = (d: ParsedDocument) => `${d.position.line}:${d.position.column}@${d.position.offset}`;

describe('fbc/parse: one file as a stream of documents', () => {
  for (const size of [1, 3, 64, 1 << 20]) {
    it(`splits a JSON stream in any chunking (chunks of ${size})`, async () => {
      const docs = await parse(
        '{"schema":"a","name":"x"}{"schema":"b"}\n\n  {\n "schema": "c",\n "v": "}{\\"\\\\"\n}\n',
        size,
      );
      expect(values(docs)).to.deep.equal([
        { schema: 'a', name: 'x' },
        { schema: 'b' },
        { schema: 'c', v: '}{"\\' },
      ]);
      expect(docs.map(where)).to.deep.equal(['1:1@0', '1:26@25', '3:3@43']);
    });
  }

  it('splits multi-document YAML at lines starting with ---, with positions', async () => {
    const docs = await parse(
      'schema: a\n---\nschema: b\n--- # comment\n# leading comment\nschema: c\n---\n',
    );
    expect(values(docs)).to.deep.equal([{ schema: 'a' }, { schema: 'b' }, { schema: 'c' }]);
    expect(docs.map((d) => d.position.line)).to.deep.equal([1, 3, 5]);
  });

  it('a leading --- and CRLF line ends are fine', async () => {
    expect(
      values(await parse('---\r\nschema: a\r\nname: b\r\n---\r\nschema: c\r\n')),
    ).to.deep.equal([{ schema: 'a', name: 'b' }, { schema: 'c' }]);
  });

  it('a comment-only chunk is an empty document (operator-registry then reports a missing schema)', async () => {
    const docs = await parse('schema: a\n---\n# nothing\n');
    expect(values(docs)).to.deep.equal([{ schema: 'a' }, null]);
  });

  it('rejects a separator line with content after ---', async () => {
    const e = await parseError('schema: a\n--- !tag\nschema: b\n');
    expect(e.message).to.equal('dir/f:2:1: invalid YAML document separator: !tag');
  });

  it('reads a file that starts with a BOM as YAML (JSON is YAML)', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(
      values(await parse(Buffer.concat([bom, Buffer.from('{"schema": "a", "n": 1}\n')]))),
    ).to.deep.equal([{ schema: 'a', n: 1 }]);
    expect(values(await parse(Buffer.concat([bom, Buffer.from('schema: a\n')])))).to.deep.equal([
      { schema: 'a' },
    ]);
  });

  it('falls back to YAML when the first JSON value fails, as apimachinery does', async () => {
    expect(values(await parse('{"schema": "a", "v": 1e400}\n'))).to.deep.equal([
      { schema: 'a', v: '1e400' },
    ]);
    expect(values(await parse('{schema: a, v: yes}\n'))).to.deep.equal([{ schema: 'a', v: true }]);
  });

  it('reports the JSON error when the YAML retry fails too, and never retries after two good values', async () => {
    const e1 = await parseError('{"schema": "a", "x": ]}\n');
    expect(e1.message).to.match(/^dir\/f:1:\d+: invalid JSON/);
    const e2 = await parseError('{"schema":"a"}\n{"schema":"b"}\n{"schema": "c", "v": 1e400}\n');
    expect(e2.message).to.equal(
      'dir/f:3:1: invalid JSON: a number is out of the range of a float64',
    );
  });

  it('names the line and column of a JSON syntax error inside a value', async () => {
    const e = await parseError(
      '{"schema":"a"}\n{"schema":"b"}\n{\n  "schema": "c",\n  "x": ]\n}\n',
    );
    expect(e.message).to.equal(`dir/f:5:8: invalid JSON: unexpected "]", expected a value`);
  });

  it('names the line of a YAML syntax error', async () => {
    const e = await parseError('schema: a\n---\nschema: b\nentries: [\n  - x\n');
    expect(e.position?.line).to.be.greaterThanOrEqual(4);
    expect(e.message).to.match(/^dir\/f:\d+:\d+: invalid YAML: /);
  });

  it('rejects a value that is not an object', async () => {
    const e = await parseError('{"schema":"a"}\n{"schema":"b"}\n[1, 2]\n');
    expect(e.message).to.equal('dir/f:3:1: not an object: a blob must be a JSON object, got array');
    expect((await parseError('just some text\n')).message).to.equal(
      'dir/f:1:1: not an object: a blob must be a JSON object, got string',
    );
  });

  it('rejects invalid UTF-8 with the byte position', async () => {
    const e = await parseError(Buffer.from('schema: a\nname: caf\xe9\n', 'latin1'));
    expect(e.message).to.equal('dir/f:2:10: invalid UTF-8');
    expect(e.position?.offset).to.equal(19);
  });

  it('rejects a stray closing bracket between values', async () => {
    const e = await parseError('{"schema":"a"}\n{"schema":"b"}\n}\n');
    expect(e.message).to.equal('dir/f:3:1: invalid JSON: unexpected "}", expected a value');
  });

  it('rejects unterminated JSON', async () => {
    const e = await parseError('{"schema":"a"}\n{"schema":"b"}\n{"schema": "c"\n');
    expect(e.message).to.match(/^dir\/f:4:1: unexpected end of JSON input/);
  });

  it('rejects a file over the size limit', async () => {
    const e = await parseError('{"schema":"a"}\n'.repeat(100), {
      ...DEFAULT_PARSE_LIMITS,
      maxFileBytes: 100,
    });
    expect(e.message).to.equal('dir/f: file is larger than the limit of 100 bytes');
  });

  it('rejects a document over the size limit (JSON and YAML)', async () => {
    const limits = { ...DEFAULT_PARSE_LIMITS, maxDocumentBytes: 50 };
    expect((await parseError(`{"schema":"a","v":"${'x'.repeat(100)}"}`, limits)).message).to.match(
      /JSON value is larger than the limit of 50 bytes/,
    );
    expect((await parseError(`schema: a\nv: ${'x'.repeat(100)}\n`, limits)).message).to.match(
      /YAML document is larger than the limit of 50 bytes/,
    );
  });

  it('accepts a JSON blob nested 9998 deep and rejects deeper (the apiserver adds spec.content to 10000)', async () => {
    const nest = (d: number) => `{"schema":"a","v":${'['.repeat(d)}${']'.repeat(d)}}`;
    expect(await parse(nest(9997), 1 << 16)).to.have.length(1);
    expect((await parseError(`{"schema":"a"}\n{"schema":"b"}\n${nest(9998)}`)).message).to.equal(
      'dir/f:3:10016: exceeded max depth of 9998',
    );
  });

  it('replaces lone surrogate escapes in JSON with U+FFFD, like Go', async () => {
    expect(values(await parse('{"schema":"a","v":"\\ud800","\\udc00k":1}'))).to.deep.equal([
      { schema: 'a', v: '\uFFFD', '\uFFFDk': 1 },
    ]);
  });

  it('keeps big integers as float64 values', async () => {
    expect(values(await parse('{"schema":"a","v":12345678901234567890,"w":1.0}'))).to.deep.equal([
      { schema: 'a', v: 12345678901234567000, w: 1 },
    ]);
  });

  it('reads meta keys case-insensitively', async () => {
    const [d] = await parse('{"Schema":"a","PACKAGE":"p","nAmE":"n"}');
    expect(d!.meta).to.deep.equal({ schema: 'a', package: 'p', name: 'n' });
  });

  it('an empty file has no documents', async () => {
    expect(await parse('')).to.deep.equal([]);
    expect(await parse('\n\n  \n').then((d) => d.length)).to.equal(1);
  });

  describe('what the parser bounds (hostile input)', () => {
    it('refuses a document over 8 MiB by default', async () => {
      expect(DEFAULT_PARSE_LIMITS.maxDocumentBytes).to.equal(8 << 20);
      const e = await parseError(`schema: a\nv: ${'x'.repeat(8 << 20)}\n`);
      expect(e.message).to.equal(
        'dir/f:1:1: a YAML document is larger than the limit of 8388608 bytes',
      );
    });

    it('stops reading a YAML line at the document cap (a file may be one huge line)', async () => {
      let pulled = 0;
      // One line of 1 MB, in 1 KB chunks.
      async function* endless(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('schema: a\nv: ');
        for (let i = 0; i < 1000; i++) {
          pulled += 1000;
          yield Buffer.alloc(1000, 0x78);
        }
      }
      const limits = { ...DEFAULT_PARSE_LIMITS, maxDocumentBytes: 10_000 };
      let message = '';
      try {
        for await (const _ of parseDocuments(endless(), 'dir/f', limits)) void _;
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).to.equal(
        'dir/f:1:1: a YAML document is larger than the limit of 10000 bytes',
      );
      expect(pulled).to.be.at.most(12_000);
    });

    it('refuses YAML aliases that expand past the document cap, naming the alias', async () => {
      const limits = { ...DEFAULT_PARSE_LIMITS, maxDocumentBytes: 10_000 };
      const doc = `schema: a\nv: &x ${'y'.repeat(3000)}\nw:\n${'  - *x\n'.repeat(10)}`;
      const e = await parseError(doc, limits);
      expect(e.message).to.equal(
        'dir/f:6:6: invalid YAML: aliases expand the document past the limit of 10000 bytes',
      );
      // Two aliases (9 KB) are within the budget.
      const ok = `schema: a\nv: &x ${'y'.repeat(3000)}\nw: [*x, *x]\n`;
      expect(await parse(ok, 1 << 16, limits)).to.have.length(1);
    });

    it('refuses a JSON value with more than 200,000 values, and does not re-read it as YAML', async () => {
      // n values: the object, "a", the array and n - 3 numbers.
      const many = (n: number) => `{"schema":"a","v":[${'1,'.repeat(n - 4)}1]}`;
      expect(await parse(many(200_000), 1 << 16)).to.have.length(1);
      const e = await parseError(many(200_001));
      expect(e.message).to.equal('dir/f:1:400013: a JSON value has more than 200000 values');
      // Unterminated: a JSON error would otherwise be retried as YAML, which builds every node.
      const e2 = await parseError(many(300_000).slice(0, -1));
      expect(e2.message).to.match(/^dir\/f:1:\d+: a JSON value has more than 200000 values$/);
    });

    it('refuses a YAML document that may have more than 200,000 nodes before parsing it', async () => {
      const flow = `schema: a\nv: [${'1,'.repeat(150_000)}1]\n`;
      expect((await parseError(flow)).message).to.equal(
        'dir/f:2:199998: a YAML document has more than 200000 nodes (counted from its "-,:?[{" characters)',
      );
      const block = `schema: a\nv:\n${'- 1\n'.repeat(200_000)}`;
      expect((await parseError(block)).message).to.match(
        /^dir\/f:199998:1: a YAML document has more/,
      );
      expect(await parse(`schema: a\nv:\n${'- 1\n'.repeat(100_000)}`, 1 << 16)).to.have.length(1);
    });

    it('refuses YAML nested deeper than 1000 with the position, never overflowing the stack', async () => {
      const flow = (d: number) => `schema: a\nv: ${'['.repeat(d)}${']'.repeat(d)}\n`;
      expect(await parse(flow(999), 1 << 16)).to.have.length(1);
      expect((await parseError(flow(5000))).message).to.equal(
        'dir/f:2:1003: invalid YAML: nesting exceeded maxDepth (1000)',
      );
      let block = 'schema: a\nv:\n';
      for (let i = 1; i <= 3000; i++) block += `${' '.repeat(i)}k:\n`;
      expect((await parseError(block)).message).to.equal(
        'dir/f:1001:1000: invalid YAML: nesting exceeded maxDepth (1000)',
      );
    });

    it('refuses YAML aliases that nest the document deeper than the JSON limit', async () => {
      // Each anchor nests the previous one 900 levels down: a11 would be 10,801 deep.
      const chain = (n: number) => {
        let doc = `schema: a\na0: &a0 ${'['.repeat(900)}${']'.repeat(900)}\n`;
        for (let k = 1; k <= n; k++)
          doc += `a${k}: &a${k} ${'['.repeat(900)}*a${k - 1}${']'.repeat(900)}\n`;
        return doc;
      };
      expect(await parse(chain(10), 1 << 16)).to.have.length(1);
      expect((await parseError(chain(11))).message).to.equal(
        'dir/f:13:912: invalid YAML: aliases nest the document deeper than 9998 levels',
      );
    });

    it('reads a JSON blob 9,000 deep holding a lone surrogate (no recursion)', async () => {
      const deep = `{"schema":"a","v":${'['.repeat(9000)}"\\ud800"${']'.repeat(9000)}}`;
      const [d] = await parse(deep, 1 << 16);
      let v: unknown = d!.value!.v;
      for (let i = 0; i < 9000; i++) v = (v as unknown[])[0];
      expect(v).to.equal('\uFFFD');
    });
  });

  describe("frees a large document's bytes once decoded (util/buffers.ts)", () => {
    // The splitter copies a document that spans chunks into one Buffer. Left to the collector,
    // the copies of 7.5 MB documents piled up as tens of MB of external memory.
    const big = 'x'.repeat(3 << 20);
    for (const [kind, text] of [
      ['YAML', `schema: s\nname: a\ndata: ${big}\n---\nschema: s\nname: b\n`],
      ['JSON', `{"schema":"s","name":"a","data":"${big}"}\n{"schema":"s","name":"b"}\n`],
    ] as const) {
      it(`${kind}: no copy of a 3 MB document is held while it is handed out`, async () => {
        // Chunks are views of one Buffer, so any new ArrayBuffer memory is the parser's own.
        const input = Buffer.from(text);
        const before = process.memoryUsage().arrayBuffers;
        const held: number[] = [];
        for await (const d of parseDocuments(chunks(input, 256 * 1024), 'dir/f')) {
          held.push(process.memoryUsage().arrayBuffers - before);
          expect(d.sourceBytes).to.be.greaterThan(0);
        }
        expect(held).to.have.length(2);
        expect(held[0], 'bytes of ArrayBuffers held at the first document').to.be.below(1 << 20);
      });
    }
  });
});
