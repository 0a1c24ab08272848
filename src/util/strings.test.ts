import { expect } from 'chai';
import v8 from 'node:v8';
import vm from 'node:vm';
import { detachString } from './strings.js';

/** A full garbage collection (exposed for this test only). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

describe('util/strings: detachString', () => {
  it('returns an equal string, for short, long, non-ASCII and lone-surrogate strings', () => {
    const doc = `name: ${'x'.repeat(4000)}\n`;
    for (const s of [
      '',
      'short',
      doc.slice(6, 40),
      'scale-workload-0496.v1.2.3',
      'ünïcødé-name-😀-long-enough',
      'lone \ud800 surrogate and more',
    ]) {
      expect(detachString(s)).to.equal(s);
    }
  });

  it('keeps none of the strings a name was cut from alive', () => {
    // 200 documents of 100 kB: kept through plain slices they would hold 20 MB of heap.
    const names = (cut: (s: string) => string): string[] =>
      Array.from({ length: 200 }, (_, i) =>
        cut(`name: pkg-${i}.v1.0.0\n${'x'.repeat(100_000)}`.slice(6, 20)),
      );
    collectGarbage();
    const before = v8.getHeapStatistics().used_heap_size;
    const kept = names(detachString);
    collectGarbage();
    const grown = v8.getHeapStatistics().used_heap_size - before;
    expect(kept[7]).to.equal('pkg-7.v1.0.0\nx');
    expect(grown).to.be.below(2_000_000);
  });
});
