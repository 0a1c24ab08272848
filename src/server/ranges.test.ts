import { expect } from 'chai';
import { intersectRanges, pushRange, rangeCount, seqsWithin } from './ranges.js';
import type { SeqRanges } from './ranges.js';

function expand(r: SeqRanges): number[] {
  return r.flatMap(([s, e]) => Array.from({ length: e - s }, (_, i) => s + i));
}

describe('server/ranges', () => {
  it('pushRange merges touching and overlapping ranges', () => {
    const out: SeqRanges = [];
    pushRange(out, 0, 2);
    pushRange(out, 2, 4);
    pushRange(out, 3, 5);
    pushRange(out, 7, 8);
    expect(out).to.deep.equal([
      [0, 5],
      [7, 8],
    ]);
  });

  it('intersectRanges equals the set intersection (random cases)', () => {
    let seed = 7;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const random = (): SeqRanges => {
      const out: SeqRanges = [];
      let at = 0;
      for (let k = rnd(5); k > 0; k--) {
        const s = at + rnd(4) + 1;
        const e = s + rnd(4) + 1;
        out.push([s, e]);
        at = e;
      }
      return out;
    };
    for (let t = 0; t < 500; t++) {
      const a = random();
      const b = random();
      const want = expand(a).filter((x) => expand(b).includes(x));
      expect(expand(intersectRanges(a, b))).to.deep.equal(want);
    }
  });

  it('seqsWithin keeps members and groups consecutive ones', () => {
    expect(
      seqsWithin(
        [1, 2, 3, 5, 9, 10, 11],
        [
          [2, 6],
          [10, 20],
        ],
      ),
    ).to.deep.equal([
      [2, 4],
      [5, 6],
      [10, 12],
    ]);
    expect(seqsWithin([1, 2], [])).to.deep.equal([]);
  });

  it('rangeCount', () => {
    expect(
      rangeCount([
        [0, 3],
        [5, 6],
      ]),
    ).to.equal(4);
  });
});
