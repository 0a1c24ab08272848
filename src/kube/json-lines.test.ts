import { expect } from 'chai';
import { LineSplitter } from './json-lines.js';

describe('kube/json-lines: LineSplitter', () => {
  it('parses whole lines within and across chunks, skipping blank ones', () => {
    const got: unknown[] = [];
    const lines = new LineSplitter((l) => got.push(l));
    lines.push(Buffer.from('{"a":1}\n{"b"'));
    lines.push(Buffer.from(':2'));
    lines.push(Buffer.from('}\n\n  \n{"c":3}\n{"d"'));
    expect(got).to.deep.equal([{ a: 1 }, { b: 2 }, { c: 3 }]);
  });

  it('throws on a line that is not JSON', () => {
    const lines = new LineSplitter(() => {});
    expect(() => lines.push(Buffer.from('{"a":\n'))).to.throw(SyntaxError);
  });
});
