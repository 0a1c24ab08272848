import { expect } from 'chai';
import { contentRange, ifRangeHolds, parseByteRange } from './byte-range.js';

describe('server/byte-range', () => {
  it('reads one range of a body, as Go http.ServeContent does', () => {
    expect(parseByteRange('bytes=0-9', 100)).to.deep.equal({ kind: 'range', start: 0, end: 10 });
    expect(parseByteRange('bytes=90-', 100)).to.deep.equal({ kind: 'range', start: 90, end: 100 });
    expect(parseByteRange('bytes=-10', 100)).to.deep.equal({ kind: 'range', start: 90, end: 100 });
    expect(parseByteRange('bytes=-500', 100)).to.deep.equal({ kind: 'range', start: 0, end: 100 });
    expect(parseByteRange('bytes=50-500', 100)).to.deep.equal({
      kind: 'range',
      start: 50,
      end: 100,
    });
  });

  it('a range outside the body is unsatisfiable', () => {
    expect(parseByteRange('bytes=100-', 100)).to.deep.equal({ kind: 'unsatisfiable' });
    expect(parseByteRange('bytes=-0', 100)).to.deep.equal({ kind: 'unsatisfiable' });
    expect(parseByteRange('bytes=0-', 0)).to.deep.equal({ kind: 'unsatisfiable' });
  });

  it('ignores what it does not serve: no header, other units, lists, nonsense', () => {
    for (const h of [undefined, 'items=0-1', 'bytes=0-1,5-6', 'bytes=5-1', 'bytes=-', 'bytes=a-b'])
      expect(parseByteRange(h, 100), String(h)).to.deep.equal({ kind: 'whole' });
  });

  it('If-Range: the strong ETag or the exact Last-Modified, else the whole body', () => {
    const lm = 'Wed, 04 Mar 2026 05:06:07 GMT';
    expect(ifRangeHolds(undefined, '"abc"', lm)).to.equal(true);
    expect(ifRangeHolds('"abc"', '"abc"', lm)).to.equal(true);
    expect(ifRangeHolds('W/"abc"', '"abc"', lm)).to.equal(false);
    expect(ifRangeHolds('"old"', '"abc"', lm)).to.equal(false);
    expect(ifRangeHolds(lm, '"abc"', lm)).to.equal(true);
    expect(ifRangeHolds('Tue, 03 Mar 2026 05:06:07 GMT', '"abc"', lm)).to.equal(false);
  });

  it('Content-Range names the last byte, not the end', () => {
    expect(contentRange(0, 10, 100)).to.equal('bytes 0-9/100');
  });
});
